"""``turnframe chaos``: play a workflow's conversations under random fault schedules.

Each run plays one conversation (the sample desk's demo, or one of ``--corpus FILE``) while
providers, the store, actors and the outbox adapter fail where a seeded schedule says; then the
runtime restarts, recovers, and every invariant is checked on the records. Runs use the seeds
``--seed``, ``--seed + 1``, …: a failing run is printed with the seed that replays it alone.
Exit 1 on any violation. See docs/chaos.md.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from turnframe.cli.options import add_style

if TYPE_CHECKING:  # the chaos kit is imported when the command runs: --help stays fast
    from turnframe.testing.chaos import ChaosReport, ChaosTarget, RunResult, Sabotage

EXIT_VIOLATIONS = 1
SABOTAGE_KINDS = ("retry-after-seal", "duplicate-effect", "drop-receipt")


def add_chaos_command(commands: Any) -> None:
    parser = commands.add_parser(
        "chaos",
        help="play a workflow under random fault schedules and check every invariant",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    parser.add_argument(
        "--workflow",
        required=True,
        metavar="W",
        help="a sample desk (travel-desk, refund-desk) or package.module:TARGET (a ChaosTarget)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        metavar="FILE",
        help='conversations to play: JSON Lines with "turns", or a script (blank-line separated)',
    )
    parser.add_argument("--runs", type=_positive, default=100, metavar="N", help="default 100")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="first seed (default 0)")
    parser.add_argument(
        "--sabotage",
        choices=SABOTAGE_KINDS,
        help="swap in a deliberately broken component: the run must find violations",
    )
    parser.add_argument(
        "--jobs",
        type=_positive,
        default=min(4, os.cpu_count() or 1),
        metavar="J",
        help="worker processes (default: the CPUs, at most 4)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per failing run, then the summary as the last line",
    )
    add_style(parser)
    parser.set_defaults(handler=run_chaos)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def run_chaos(args: argparse.Namespace) -> int:
    from turnframe.testing.chaos import Sabotage

    target = _target(args.workflow, args.corpus)  # typed errors before anything runs
    sabotage = Sabotage(args.sabotage) if args.sabotage else None
    with _progress(args.runs, enabled=sys.stderr.isatty()) as advance:
        report = _play(args, target, sabotage, advance)
    replay = _replay_command(args, sabotage)
    if args.json:
        for result in report.failing:
            print(json.dumps(_failure_json(result, replay), ensure_ascii=False))
        print(json.dumps(report.summary()))
    elif _use_rich(args.style):
        _print_rich(report, replay)
    else:
        for line in _summary_lines(report, replay):
            print(line)
    sys.stdout.flush()
    return EXIT_VIOLATIONS if not report.ok else 0


def _target(spec: str, corpus: Path | None) -> ChaosTarget:
    from turnframe.testing.chaos import load_target, read_corpus

    target = load_target(spec)
    return target if corpus is None else target.with_conversations(read_corpus(corpus))


# -- playing ------------------------------------------------------------------------------


def _play(
    args: argparse.Namespace,
    target: ChaosTarget,
    sabotage: Sabotage | None,
    advance: Callable[[int], None],
) -> ChaosReport:
    from turnframe.testing.chaos import ChaosReport, chaos

    started = time.perf_counter()
    jobs = min(args.jobs, args.runs)
    if jobs == 1:
        on_run = _one(advance)
        return chaos(target, runs=args.runs, seed=args.seed, sabotage=sabotage, on_run=on_run)
    size = max(1, min(200, args.runs // (jobs * 6) or 1))
    chunks = [
        (start, min(size, args.seed + args.runs - start))
        for start in range(args.seed, args.seed + args.runs, size)
    ]
    corpus = str(args.corpus) if args.corpus else None
    parts: list[ChaosReport] = []
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [
            pool.submit(_play_chunk, args.workflow, corpus, start, count, sabotage)
            for start, count in chunks
        ]
        for future in as_completed(futures):
            part = future.result()
            parts.append(part)
            advance(part.runs)
    return ChaosReport.merge(parts, seconds=time.perf_counter() - started)


def _one(advance: Callable[[int], None]) -> Callable[[RunResult], None]:
    return lambda _: advance(1)


def _play_chunk(
    spec: str, corpus: str | None, start: int, count: int, sabotage: Sabotage | None
) -> ChaosReport:
    """One worker process's share of the runs (seeds ``start`` … ``start + count - 1``)."""
    from turnframe.testing.chaos import chaos

    target = _target(spec, Path(corpus) if corpus else None)
    return chaos(target, runs=count, seed=start, sabotage=sabotage)


@contextlib.contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on the terminal's stderr (nothing without rich or a terminal)."""
    if not enabled or importlib.util.find_spec("rich") is None:
        yield lambda _: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("chaos runs", total=total)
        yield lambda n: progress.advance(task, n)


# -- reporting ----------------------------------------------------------------------------


def _replay_command(args: argparse.Namespace, sabotage: Sabotage | None) -> str:
    parts = ["turnframe chaos", f"--workflow {args.workflow}"]
    if args.corpus:
        parts.append(f"--corpus {args.corpus}")
    if sabotage is not None:
        parts.append(f"--sabotage {sabotage.value}")
    return " ".join([*parts, "--runs 1 --seed {seed}"])


def _failure_json(result: RunResult, replay: str) -> dict[str, Any]:
    return {
        "seed": result.seed,
        "reproduce": replay.format(seed=result.seed),
        "conversation": result.conversation,
        "schedule": result.schedule.describe(),
        "violations": [{"invariant": v.invariant, "detail": v.detail} for v in result.violations],
    }


def _summary_lines(report: ChaosReport, replay: str) -> list[str]:
    from turnframe.testing.chaos import INVARIANTS

    verdict = "OK" if report.ok else f"{report.violations} VIOLATION(S)"
    lines = [
        f"turnframe chaos — {report.workflow}: {report.runs} run(s) from seed {report.seed}"
        + (f", sabotage {report.sabotage.value}" if report.sabotage else "")
        + f" in {report.seconds:.1f}s: {verdict}",
        "",
        f"{'invariant':<28} violations",
    ]
    lines += [f"{name:<28} {report.violations_by_invariant.get(name, 0)}" for name in INVARIANTS]
    lines += ["", f"{'fault':<28} fired"]
    lines += [f"{kind:<28} {count}" for kind, count in sorted(report.faults.items())]
    for result in report.failing[:20]:
        lines += ["", f"seed {result.seed}: {replay.format(seed=result.seed)}"]
        lines += [f"  fault: {fault}" for fault in result.schedule.describe()]
        lines += [f"  VIOLATION {v.invariant}: {v.detail}" for v in result.violations]
    if len(report.failing) > 20:
        lines.append(f"… and {len(report.failing) - 20} more failing run(s): use --json")
    return lines


def _use_rich(style: str) -> bool:
    has_rich = importlib.util.find_spec("rich") is not None
    return has_rich and (style == "rich" or (style == "auto" and sys.stdout.isatty()))


def _print_rich(report: ChaosReport, replay: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from turnframe.testing.chaos import INVARIANTS

    console = Console()
    verdict = "[green]OK[/]" if report.ok else f"[red]{report.violations} violation(s)[/]"
    console.print(
        f"turnframe chaos — {report.workflow}: {report.runs} run(s) from seed {report.seed}"
        + (f", sabotage {report.sabotage.value}" if report.sabotage else "")
        + f" in {report.seconds:.1f}s: {verdict}"
    )
    invariants = Table("invariant", "violations")
    for name in INVARIANTS:
        count = report.violations_by_invariant.get(name, 0)
        invariants.add_row(name, f"[red]{count}[/]" if count else "0")
    faults = Table("fault", "fired")
    for kind, count in sorted(report.faults.items()):
        faults.add_row(kind, str(count))
    console.print(invariants, faults)
    for result in report.failing[:20]:
        console.print(f"\n[bold]seed {result.seed}[/]: {replay.format(seed=result.seed)}")
        for fault in result.schedule.describe():
            console.print(f"  fault: {fault}", highlight=False)
        for v in result.violations:
            console.print(f"  [red]VIOLATION {v.invariant}[/]: {v.detail}", highlight=False)
    if len(report.failing) > 20:
        console.print(f"… and {len(report.failing) - 20} more failing run(s): use --json")


__all__ = ["add_chaos_command", "run_chaos"]
