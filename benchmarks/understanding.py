"""How often the offline interpreter reaches the right effects on the phrasing corpus.

Every corpus line (tests/phrasings/FORMAT.md) runs as a new conversation through the real
Runtime with the rules interpreter, on the sample desk's seed data, at the corpus clock. The
figures are the share of lines that reach the right effects, overall and per category, and the
count of wrong commits (a committed event the line does not expect: it must be 0). This is an
accuracy measure, not a timing, so there is no baseline run.

    python benchmarks/understanding.py [--quick] [--json] [--part PART] [--show-misses]

By default it reads the tuned part: the first corpus (``tests/phrasings/*.jsonl``), the
engineers' own lines (``own/``) and the second, blind corpus's development set (``second/``).
``--part holdout`` (or ``--holdout``), ``--part holdout-second``, ``--part holdout-third``,
``--part holdout-fourth`` … ``--part holdout-eighth`` read the
held-out sets: run them at the end, and never tune to them.
``--part first|second|third|fourth|fifth|sixth|seventh|eighth`` read one development set; the
third to eighth corpora (``third/`` … ``eighth/``, blind like the second) are in no tuned part.
``--quick`` plays every fourth line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from turnframe.testing.phrasings import Graded, desk_player, load_corpus, summarize

ROOT = Path(__file__).resolve().parent.parent / "tests" / "phrasings"
DESKS = ("refund-desk", "travel-desk")


#: Which folders each part reads. The tuned part is the first corpus, the engineers' own lines
#: and the second (blind) corpus's development set; each held-out set is evaluated only at the
#: end and never tuned to.
PARTS = {
    "tuned": ("", "own", "second"),
    "first": ("",),
    "second": ("second",),
    "holdout": ("holdout",),
    "holdout-second": ("holdout/second",),
    "third": ("third",),
    "holdout-third": ("holdout/third",),
    "fourth": ("fourth",),
    "holdout-fourth": ("holdout/fourth",),
    "fifth": ("fifth",),
    "holdout-fifth": ("holdout/fifth",),
    "sixth": ("sixth",),
    "holdout-sixth": ("holdout/sixth",),
    "seventh": ("seventh",),
    "holdout-seventh": ("holdout/seventh",),
    "eighth": ("eighth",),
    "holdout-eighth": ("holdout/eighth",),
}


def corpus_files(part: str) -> list[tuple[str, Path]]:
    """The files of one part of the corpus (see :data:`PARTS`)."""
    folders = [ROOT / sub if sub else ROOT for sub in PARTS[part]]
    return [
        (desk, folder / f"{desk}.jsonl")
        for folder in folders
        for desk in DESKS
        if (folder / f"{desk}.jsonl").exists()
    ]


async def play_desk(desk_name: str, path: Path, *, every: int, progress: Any) -> list[Graded]:
    graded: list[Graded] = []
    async with desk_player(desk_name) as play:
        for phrasing in load_corpus(path)[::every]:
            graded.append(await play(phrasing))
            progress()
    return graded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every fourth line")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--holdout", action="store_true", help="the first held-out set (once!)")
    parser.add_argument(
        "--part", choices=sorted(PARTS), default=None, help="which part to read (default: tuned)"
    )
    parser.add_argument("--show-misses", action="store_true", help="list each line not right")
    args = parser.parse_args(argv)
    part = args.part or ("holdout" if args.holdout else "tuned")
    files = corpus_files(part)
    if not files:
        print(f"no corpus files under {ROOT}", file=sys.stderr)
        return 1
    every = 4 if args.quick else 1
    graded: list[Graded] = []
    by_desk: dict[str, Any] = {}
    with _progress(sum(len(load_corpus(p)[::every]) for _, p in files), args.json) as step:
        for desk, path in files:
            found = anyio.run(lambda d=desk, p=path: play_desk(d, p, every=every, progress=step))
            folder = path.parent.relative_to(ROOT).as_posix()
            name = desk if folder in (".", "holdout") else f"{desk} ({folder})"
            by_desk[name] = summarize(found).as_json()
            graded.extend(found)
    summary = summarize(graded).as_json()
    summary["by_desk"] = by_desk
    summary["part"] = part
    if args.show_misses:
        for g in graded:
            if not g.right:
                wrong = " WRONG COMMIT" if g.wrong_commits else ""
                print(f"{g.phrasing.id}{wrong}: {g.phrasing.turns} -> {g.why}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            f"{summary['part']}: {summary['right']}/{summary['total']} right "
            f"({summary['right_share']:.1%}), wrong commits: {summary['wrong_commits']}"
        )
        for category, figures in summary["by_category"].items():
            print(
                f"  {category:14} {figures['right']:4}/{figures['total']:<4} "
                f"{figures['right_share']:.1%}"
            )
    return 0


@contextlib.contextmanager
def _progress(total: int, quiet: bool) -> Any:
    """A rich progress bar at a terminal (the run takes a while); nothing otherwise."""
    if quiet or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("phrasings", total=total)
        yield lambda: bar.advance(task)


if __name__ == "__main__":
    raise SystemExit(main())
