"""``turnframe recall``: the recall index and a search over it, outside any conversation.

- ``turnframe recall index [--store PATH] [--account ID] [--all] [--json]`` writes the index
  entry of every session whose entry is missing or stale (``--all``: of every session). On a
  terminal a progress bar shows it going.
- ``turnframe recall search "cue" [--store PATH] [--account ID] [--full-text] [--limit N]
  [--json]`` shows the ranked candidates for a cue, each grounded in its own record (excerpt,
  locator, resume command), without starting the recall protocol.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from typing import Any

from turnframe.cli.desk import default_store, open_store
from turnframe.cli.errors import UsageError
from turnframe.cli.interrupt import run_interruptible
from turnframe.cli.options import add_account, add_store, add_style
from turnframe.cli.progress import progress
from turnframe.cli.store_url import without_password
from turnframe.recall.cue import has_cue
from turnframe.recall.preview import SearchResult, search
from turnframe.recall.writer import IndexReport, index_account


def add_recall_commands(commands: Any) -> None:
    recall = commands.add_parser(
        "recall",
        help="the recall index of earlier conversations, and a search over it",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    sub = recall.add_subparsers(dest="recall_command", metavar="COMMAND")

    index = sub.add_parser("index", help="write the index entries of sessions that need one")
    add_store(index)
    add_account(index)
    index.add_argument("--all", action="store_true", help="rewrite every session's entry")
    index.add_argument("--json", action="store_true", help="print the counts as JSON")
    add_style(index)
    index.set_defaults(handler=run_index)

    find = sub.add_parser("search", help="ranked candidates for a cue, without the protocol")
    find.add_argument("cue", help='what you remember, e.g. "the hotel pool thing"')
    add_store(find)
    add_account(find)
    find.add_argument(
        "--full-text", action="store_true", help="search every turn and reply, not only openings"
    )
    find.add_argument("--limit", type=int, default=10, metavar="N", help="at most N (default 10)")
    find.add_argument("--json", action="store_true", help="print the candidates as JSON")
    add_style(find)
    find.set_defaults(handler=run_search)
    recall.set_defaults(handler=lambda args: _usage(recall))


def _usage(parser: argparse.ArgumentParser) -> int:
    raise UsageError("recall needs a command: index or search", hint=f"see `{parser.prog} --help`")


def run_index(args: argparse.Namespace) -> int:
    location = args.store or default_store()
    report: IndexReport = run_interruptible(_index, location, args.account, args.all)
    if args.json:
        print(json.dumps({"written": report.written, "skipped": report.skipped}, indent=2))
    else:
        print(f"indexed {report.written} session(s); {report.skipped} without turns")
    return 0


async def _index(location: str, account: str, everything: bool) -> IndexReport:
    async with open_store(location, must_exist=True) as store:
        # Indexing a large store takes a while: a bar at a terminal, nothing elsewhere.
        with progress("indexing sessions") as bar:

            def advance(done: int, total: int) -> None:
                bar.update(total=total, completed=done)

            return await index_account(store, account, everything=everything, progress=advance)


def run_search(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError(f"--limit {args.limit} is not a positive number", hint="e.g. --limit 5")
    if not has_cue(args.cue):
        raise UsageError(
            f"the cue {args.cue!r} gives nothing to look for",
            hint='say what you remember, e.g. turnframe recall search "the hotel pool"',
        )
    location = args.store or default_store()
    result: SearchResult = run_interruptible(
        _search, location, args.account, args.cue, args.full_text, args.limit
    )
    if args.json:
        print(json.dumps(search_json(result), ensure_ascii=False, indent=2))
    else:
        _print_search(result, args.style)
    return 0


async def _search(
    location: str, account: str, cue: str, full_text: bool, limit: int
) -> SearchResult:
    async with open_store(location, must_exist=True) as store:
        return await search(
            store,
            account,
            cue,
            full_text=full_text,
            limit=limit,
            store_location=without_password(location),
        )


def search_json(result: SearchResult) -> dict[str, Any]:
    return {
        "cue": result.cue,
        "track": result.track,
        "scope": result.scope.value,
        "sessions": result.sessions,
        "indexed": result.indexed,
        "dropped": list(result.dropped),
        "candidates": [
            {
                "session_id": c.session_id,
                "turn_id": c.turn_id,
                "excerpt": c.excerpt,
                "resume": c.resume,
                "locator": c.locator,
                "started_at": c.started_at.isoformat() if c.started_at else None,
                "score": c.score,
                "matched": list(c.matched),
                "evidence_mode": c.evidence_mode,
                "fork_of": c.fork_of,
            }
            for c in result.candidates
        ],
    }


def _print_search(result: SearchResult, style: str) -> None:
    rich = style == "rich" or (style == "auto" and sys.stdout.isatty())
    if rich and importlib.util.find_spec("rich") is not None:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"recall search: {result.cue}", title_justify="left")
        for column in ("#", "session", "excerpt", "resume", "matched"):
            table.add_column(column, overflow="fold")
        for n, c in enumerate(result.candidates, start=1):
            table.add_row(str(n), c.session_id, c.excerpt, c.resume or "-", ", ".join(c.matched))
        Console(highlight=False).print(table)
    else:
        if not result.candidates:
            print("no candidates")
        for n, c in enumerate(result.candidates, start=1):
            print(f"{n}. {c.session_id}  \u201c{c.excerpt}\u201d")
            print(f"   resume: {c.resume or '(cannot be resumed)'}")
    searched = "every turn and reply" if result.scope.value == "full_text" else "openings"
    print(f"searched {result.sessions} session(s) ({result.indexed} indexed; {searched})")
    if result.dropped:
        print(f"could not open: {', '.join(result.dropped)}")


__all__ = ["add_recall_commands", "run_index", "run_search", "search_json"]
