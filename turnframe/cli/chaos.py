"""``turnframe chaos``: play a workflow's conversations under random fault schedules.

Each run plays one conversation (the sample desk's demo, or one of ``--corpus FILE``) while
providers, the store, actors and the outbox adapter fail where a seeded schedule says; then the
runtime restarts, recovers, and every invariant is checked on the records. Runs use the seeds
``--seed``, ``--seed + 1``, …: a failing run is printed with the seed that replays it alone.
Exit 1 on any violation. ``--transport http`` brings the provider faults over real HTTP, from
a fake provider server on 127.0.0.1 to the official SDK adapters. See docs/chaos.md.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from turnframe.cli.interrupt import run_interruptible
from turnframe.cli.options import add_style
from turnframe.cli.progress import ProgressBar, progress

if TYPE_CHECKING:  # the chaos kit is imported when the command runs: --help stays fast
    from turnframe.testing.chaos import ChaosReport, ChaosTarget, RunResult, Sabotage

EXIT_VIOLATIONS = 1
SABOTAGE_KINDS = ("retry-after-seal", "duplicate-effect", "drop-receipt")
TRANSPORTS = ("in-process", "http")


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
        "--transport",
        choices=TRANSPORTS,
        default="in-process",
        help="how provider faults arrive: raised in process (default, fastest), or over real "
        "HTTP from a fake provider server on 127.0.0.1 to the official openai and anthropic SDKs",
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
    if args.transport == "http":
        _check_http_extras()
    jobs = min(args.jobs, args.runs)
    # Worker processes are forked before anything else starts a thread (the bar's timer, the
    # event loop's workers): a fork copies only the thread that calls it.
    with _workers(jobs) as pool, progress("chaos runs", total=args.runs) as bar:
        report = run_interruptible(_play, args, target, sabotage, pool, bar)
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


def _check_http_extras() -> None:
    from turnframe.errors import ConfigError

    missing = [
        name
        for name in ("hypercorn", "starlette", "openai", "anthropic")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise ConfigError(
            f"--transport http needs {', '.join(missing)}, not installed here",
            hint="pip install 'turnframe[fake-provider,openai,anthropic]'",
        )


# -- playing ------------------------------------------------------------------------------


@contextlib.contextmanager
def _workers(jobs: int) -> Iterator[Pool | None]:
    """``jobs`` worker processes (none for one job: the runs play in this process). They are
    terminated on the way out, so Ctrl-C leaves no process playing on."""
    if jobs == 1:
        yield None
        return
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    pool = context.Pool(processes=jobs, initializer=_ignore_sigint)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


def _ignore_sigint() -> None:
    # Ctrl-C at a terminal reaches every process of the group: the command answers it and
    # ends its workers, which must not each print a traceback first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


async def _play(
    args: argparse.Namespace,
    target: ChaosTarget,
    sabotage: Sabotage | None,
    pool: Pool | None,
    bar: ProgressBar,
) -> ChaosReport:
    from turnframe.testing.chaos import ChaosReport, Transport, chaos_async

    started = time.perf_counter()
    transport = Transport(args.transport)
    if pool is None:
        return await chaos_async(
            target,
            runs=args.runs,
            seed=args.seed,
            sabotage=sabotage,
            on_run=_one(bar),
            transport=transport,
        )
    size = max(1, min(200, args.runs // (min(args.jobs, args.runs) * 6) or 1))
    corpus = str(args.corpus) if args.corpus else None
    chunks = [
        (
            args.workflow,
            corpus,
            start,
            min(size, args.seed + args.runs - start),
            sabotage,
            args.transport,
        )
        for start in range(args.seed, args.seed + args.runs, size)
    ]
    parts: list[ChaosReport] = []
    played = pool.imap_unordered(_play_chunk, chunks)
    while len(parts) < len(chunks):
        # Waited for in a thread the event loop can abandon: Ctrl-C ends the wait at once.
        part = await anyio.to_thread.run_sync(played.next, abandon_on_cancel=True)
        parts.append(part)
        bar.advance(part.runs)
    return ChaosReport.merge(parts, seconds=time.perf_counter() - started)


def _one(bar: ProgressBar) -> Callable[[RunResult], None]:
    return lambda _: bar.advance()


def _play_chunk(
    chunk: tuple[str, str | None, int, int, Sabotage | None, str],
) -> ChaosReport:
    """One worker process's share of the runs (seeds ``start`` … ``start + count - 1``)."""
    from turnframe.testing.chaos import Transport, chaos

    spec, corpus, start, count, sabotage, transport = chunk
    target = _target(spec, Path(corpus) if corpus else None)
    return chaos(
        target, runs=count, seed=start, sabotage=sabotage, transport=Transport(transport)
    )


# -- reporting ----------------------------------------------------------------------------


def _replay_command(args: argparse.Namespace, sabotage: Sabotage | None) -> str:
    parts = ["turnframe chaos", f"--workflow {args.workflow}"]
    if args.corpus:
        parts.append(f"--corpus {args.corpus}")
    if sabotage is not None:
        parts.append(f"--sabotage {sabotage.value}")
    if args.transport != "in-process":
        parts.append(f"--transport {args.transport}")
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
        + f" in {report.seconds:.1f}s ({report.runs / max(report.seconds, 1e-9):.1f} runs/s)"
        + f": {verdict}",
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
