"""``turnframe corpus check``, and the ``--pack`` / ``--chains`` options ``chat`` shares with it.

Loads packs and teaching files as turnframe chat would, and prints every line that was skipped,
overridden or retired, one per line, as FILE:LINE: reason [code]. A PATH is a pack folder, a
teaching .jsonl file, or a folder searched for both; --pack and --chains add more. With nothing
named it checks the [corpora] of the config file, else the shipped corpora. Exit status: 0 when
every file loads, whatever its lines say (they are warnings); 2 when a file, pack or manifest
cannot be read at all; with --strict, 1 when a line is a defect (malformed, or not in its pack).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from turnframe.cli.progress import progress
from turnframe.config import load_config
from turnframe.corpora.errors import CorpusError, CorpusFileError, Drop, DropKind
from turnframe.corpora.loader import load_shipped
from turnframe.corpora.packs import PackLoad
from turnframe.corpora.sources import (
    PACK_FILES,
    ChainsSource,
    CorpusSources,
    discover,
    is_pack_folder,
    load_corpora,
)
from turnframe.corpora.teaching import CorpusLoad

EXIT_UNREADABLE = 2
EXIT_DEFECTS = 1


def add_corpus_sources(parser: argparse.ArgumentParser) -> None:
    """``--pack DIR`` / ``--chains FILE`` (repeatable) and ``--shipped``."""
    parser.add_argument(
        "--pack",
        dest="packs",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a pack folder (manifest.json + lexicon.jsonl); repeatable, first named wins a lemma",
    )
    parser.add_argument(
        "--chains",
        dest="chains",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a teaching file (.jsonl); repeatable, bound to the named pack that holds its lemmas",
    )
    parser.add_argument(
        "--shipped",
        action="store_const",
        const=True,
        default=None,
        help="keep the shipped corpora too (left out when --pack or --chains is given)",
    )


def sources_from_args(args: argparse.Namespace, configured: CorpusSources) -> CorpusSources:
    """The config file's ``[corpora]`` with the command line's on top."""
    return configured.overridden_by(
        packs=tuple(args.packs),
        chains=tuple(ChainsSource(path=path) for path in args.chains),
        shipped=args.shipped,
    )


def add_corpus_commands(subparsers: Any) -> None:
    """Add ``corpus`` and its subcommands to a parser's ``add_subparsers()`` object."""
    corpus = subparsers.add_parser("corpus", help="check reviewed packs and teaching corpora")
    corpus.set_defaults(handler=lambda _args: _print_help(corpus))
    commands = corpus.add_subparsers(dest="corpus_command", metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="list every line of packs and teaching files that is skipped, overridden or retired",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    check.add_argument(
        "paths",
        type=Path,
        nargs="*",
        metavar="PATH",
        help="a pack folder, a teaching .jsonl file, or a folder to search for both",
    )
    add_corpus_sources(check)
    check.add_argument(
        "--config", metavar="PATH", help="config file (default: ./turnframe.toml if present)"
    )
    check.add_argument("--json", action="store_true", help="one JSON object on stdout")
    check.add_argument("--strict", action="store_true", help="exit 1 when a line is a defect")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    try:
        sources = _named(args, load_config(args.config).corpora)
        total = len(sources.packs) + len(sources.chains)
        with progress("checking corpora", total=total) as bar:

            def advance(path: Path) -> None:
                bar.advance()
                bar.update(description=f"checking {path.name}")

            loaded = load_corpora(sources, on_file=advance)
    except CorpusError as exc:
        if args.json:
            error = {"code": exc.code, "message": str(exc)}
            print(json.dumps({"ok": False, "error": error}, ensure_ascii=False))
        print(f"turnframe: {exc.code}: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    packs, corpora = list(loaded.packs), list(loaded.corpora)
    if sources.includes_shipped:
        for pack_load, corpus_load in load_shipped():
            packs.insert(0, pack_load)
            corpora.insert(0, corpus_load)
    reports = [d for load in packs for d in load.drops] + [d for c in corpora for d in c.drops]
    if args.json:
        print(json.dumps(_as_json(packs, corpora, reports), ensure_ascii=False))
    else:
        for report in reports:
            print(report)
        print(_summary(packs, corpora, reports), file=sys.stderr)
    defects = any(d.is_defect for d in reports)
    return EXIT_DEFECTS if args.strict and defects else 0


def _named(args: argparse.Namespace, configured: CorpusSources) -> CorpusSources:
    """The sources the command line names (PATHs, then --pack / --chains), else the config's."""
    packs: list[Path] = []
    chains: list[ChainsSource] = []
    for path in args.paths:
        if path.is_file() and path.name in (*PACK_FILES, "manifest.json"):
            packs.append(path.parent)  # a pack's own file names its folder
        elif path.is_file():
            chains.append(ChainsSource(path=path))
        elif is_pack_folder(path):
            packs.append(path)
        elif path.is_dir():
            found_packs, found_chains = discover(path)
            packs.extend(found_packs)
            chains.extend(found_chains)
        else:
            raise CorpusFileError(
                f"{path}: no such file or folder",
                hint="give a pack folder, a teaching .jsonl file or a folder holding them",
            )
    packs.extend(args.packs)
    chains.extend(ChainsSource(path=path) for path in args.chains)
    return configured.overridden_by(packs=packs, chains=chains, shipped=args.shipped)


_KIND_COUNTS = {
    DropKind.UNSUPPORTED: "skipped",
    DropKind.OVERRIDDEN: "overridden",
    DropKind.RETIRED: "retired",
}


def _counts(reports: Sequence[Drop]) -> dict[str, int]:
    counts = {"defects": sum(1 for d in reports if d.is_defect)}
    for kind, name in _KIND_COUNTS.items():
        counts[name] = sum(1 for d in reports if d.kind is kind)
    return counts


def _summary(
    packs: Sequence[PackLoad], corpora: Sequence[CorpusLoad], reports: Sequence[Drop]
) -> str:
    entries = sum(len(p.pack.entries) for p in packs)
    chains = sum(len(c.corpus.chains) for c in corpora)
    counts = ", ".join(f"{n} {name}" for name, n in _counts(reports).items())
    return (
        f"{len(packs)} pack(s), {entries} entries; {len(corpora)} teaching file(s), "
        f"{chains} active chains; {counts}"
    )


def _as_json(
    packs: Sequence[PackLoad], corpora: Sequence[CorpusLoad], reports: Sequence[Drop]
) -> dict[str, Any]:
    return {
        "ok": True,
        "packs": [
            {
                "pack_id": p.pack.pack_id,
                "source": p.pack.source,
                "entries": len(p.pack.entries),
                "reported": len(p.drops),
            }
            for p in packs
        ],
        "corpora": [
            {
                "corpus_id": c.corpus.corpus_id,
                "pack_id": c.corpus.pack_id,
                "source": c.corpus.source,
                "active_chains": len(c.corpus.chains),
                "reported": len(c.drops),
            }
            for c in corpora
        ],
        "reports": [
            {
                "source": d.source,
                "line": d.line,
                "code": d.code,
                "kind": d.kind.value,
                "defect": d.is_defect,
                "reason": d.reason,
            }
            for d in reports
        ],
        "counts": _counts(reports),
    }


def _print_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


__all__ = ["add_corpus_commands", "add_corpus_sources", "run_check", "sources_from_args"]
