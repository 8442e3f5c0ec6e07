"""``turnframe corpus …``: checking reviewed corpora before they are registered.

``turnframe corpus check PATH`` loads a teaching corpus (``.jsonl``) or a pack folder and prints
every line left out, one per line, as ``FILE:LINE: reason [code]``. The pack a corpus is checked
against is the first ``--pack DIR``; further ``--pack`` folders serve cross-pack chains. Without
``--pack`` it comes from the manifest next to the file (``<stem>.manifest.json``: ``pack_path``
and ``extra_pack_paths``, relative to the manifest).

Exit status: 0 when every line loads (retired chains are listed but are normal curation), 1 when
any line is malformed or gated out, 2 when the file, pack or manifest cannot be read at all.
``--json`` prints the same as one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from turnframe.cli.progress import ProgressBar, progress
from turnframe.corpora.errors import CorpusError, CorpusFileError, Drop
from turnframe.corpora.loader import (
    load_pack,
    load_teaching_file,
    manifest_path_for,
    read_corpus_manifest,
)
from turnframe.corpora.packs import Pack


def add_corpus_commands(subparsers: Any) -> None:
    """Add ``corpus`` and its subcommands to a parser's ``add_subparsers()`` object."""
    corpus = subparsers.add_parser("corpus", help="check reviewed packs and teaching corpora")
    corpus.set_defaults(handler=lambda _args: _print_help(corpus))
    commands = corpus.add_subparsers(dest="corpus_command", metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="list every line of a corpus or pack that does not load, with its reason",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    check.add_argument("path", type=Path, help="a teaching corpus .jsonl file or a pack folder")
    check.add_argument(
        "--pack",
        dest="packs",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="pack folder to check against (repeat for cross-pack chains; first is bound)",
    )
    check.add_argument("--corpus-id", help="corpus id (default: manifest, else file stem)")
    check.add_argument(
        "--json", action="store_true", help="print the dropped lines and the counts as JSON"
    )
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    try:
        with progress(f"checking {args.path}") as bar:
            drops, summary = _check(args.path, args.packs, args.corpus_id, bar)
    except CorpusError as exc:
        print(f"turnframe: {exc.code}: {exc}", file=sys.stderr)
        return 2
    defects = sum(1 for d in drops if d.is_defect)
    retired = len(drops) - defects
    if args.json:
        print(json.dumps(_check_json(args.path, drops, summary, defects, retired), indent=2))
    else:
        for drop in drops:
            print(drop)
        print(f"{args.path}: {summary}, {defects} defective, {retired} retired", file=sys.stderr)
    return 1 if defects else 0


def _check_json(
    path: Path, drops: list[Drop], summary: str, defects: int, retired: int
) -> dict[str, Any]:
    return {
        "path": str(path),
        "loaded": summary,
        "defective": defects,
        "retired": retired,
        "drops": [
            {
                "source": d.source,
                "line": d.line,
                "code": d.code,
                "kind": d.kind.value,
                "reason": d.reason,
            }
            for d in drops
        ],
    }


def _check(
    path: Path, pack_dirs: list[Path], corpus_id: str | None, bar: ProgressBar
) -> tuple[list[Drop], str]:
    if path.is_dir():
        bar.update(total=1)
        pack_load = load_pack(path)
        bar.advance()
        return list(pack_load.drops), f"{len(pack_load.pack.entries)} entries"
    if not path.is_file():
        raise CorpusFileError(f"{path}: no such file", hint="give a .jsonl corpus or a pack folder")
    if not pack_dirs:
        manifest_file = manifest_path_for(path)
        manifest = read_corpus_manifest(path, manifest_file)
        if manifest.pack_path is None:
            raise CorpusError(
                f"{path}: no pack to check it against",
                hint=f"pass --pack DIR or write {manifest_file.name} with a pack_path",
            )
        base = manifest_file.parent
        pack_dirs = [base / manifest.pack_path, *(base / p for p in manifest.extra_pack_paths)]
        corpus_id = corpus_id or manifest.corpus_id
    drops: list[Drop] = []
    loaded: list[Pack] = []
    bar.update(total=len(pack_dirs) + 1)  # each pack, then the corpus
    for folder in pack_dirs:
        pack_load = load_pack(folder)
        drops.extend(pack_load.drops)
        loaded.append(pack_load.pack)
        bar.advance()
    bound = loaded[0]
    packs = {pack.pack_id: pack for pack in reversed(loaded)}
    corpus_load = load_teaching_file(path, pack=bound, packs=packs, corpus_id=corpus_id)
    drops.extend(corpus_load.drops)
    bar.advance()
    return drops, f"{len(corpus_load.corpus.chains)} active chains"


def _print_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0
