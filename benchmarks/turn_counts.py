"""Scheduler work and Python calls per pipeline turn: counts, not timings (they hold when busy).

Runs the framework side of ``benchmarks/pipeline.py`` (the same Runtime, store, provider and turns)
on asyncio and counts, over the timed turns only and divided by their number: anyio cancel scopes
entered, asyncio Events made (an ``anyio.Event`` makes two on asyncio: its ``__new__`` builds a
ready event and Python then runs ``__init__`` again), actor asks, event-loop iterations, tasks
created, and, in a second pass under cProfile, Python function calls (and those in tenacity,
cattrs and the strict checks). CPU time per turn is printed for orientation only.

    python benchmarks/turn_counts.py [--sessions N] [--turns T] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import anyio._backends._asyncio as anyio_asyncio

sys.path.insert(0, str(Path(__file__).parent))
import pipeline  # the benchmark next to this one

from turnframe.actors.ref import ActorRef

COUNTED = ("cancel_scopes", "asyncio_events", "asks", "loop_iterations", "tasks")


def _install_counters(counts: Counter[str]) -> None:
    enter = anyio_asyncio.CancelScope.__enter__

    def counted_enter(self: Any) -> Any:
        counts["cancel_scopes"] += 1
        return enter(self)

    anyio_asyncio.CancelScope.__enter__ = counted_enter  # type: ignore[method-assign]
    event_init = asyncio.Event.__init__

    def counted_event(self: Any, *args: Any, **kwargs: Any) -> None:
        counts["asyncio_events"] += 1
        event_init(self, *args, **kwargs)

    asyncio.Event.__init__ = counted_event  # type: ignore[method-assign]
    ask = ActorRef.ask

    def counted_ask(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["asks"] += 1
        return ask(self, *args, **kwargs)

    ActorRef.ask = counted_ask  # type: ignore[method-assign]
    loop: Any = asyncio.get_running_loop()
    run_once, create_task = loop._run_once, loop.create_task

    def counted_run_once() -> None:
        counts["loop_iterations"] += 1
        run_once()

    def counted_create_task(*args: Any, **kwargs: Any) -> Any:
        counts["tasks"] += 1
        return create_task(*args, **kwargs)

    loop._run_once, loop.create_task = counted_run_once, counted_create_task


async def _timed(sessions: int, turns: int, profile: cProfile.Profile | None) -> dict[str, Any]:
    """Run the framework side once; hand back what the timed turns did."""
    counts: Counter[str] = Counter()
    seen: dict[str, Any] = {}
    run_sessions = pipeline._run_sessions

    async def observed(n_sessions: int, n_turns: int, turn: Any) -> Any:
        before = counts.copy()
        if profile is not None:
            profile.enable()
        result = await run_sessions(n_sessions, n_turns, turn)
        if profile is not None:
            profile.disable()
        seen["turns"] = max(1, n_turns // n_sessions) * n_sessions
        seen["cpu_ms_per_turn"] = result[2]
        seen["counts"] = {key: counts[key] - before[key] for key in COUNTED}
        return result

    if profile is None:
        _install_counters(counts)
    pipeline._run_sessions = observed
    try:
        with tempfile.TemporaryDirectory() as tmp:
            await pipeline.bench_framework(pipeline.Target(Path(tmp), None), sessions, turns)
    finally:
        pipeline._run_sessions = run_sessions
    return seen


def _calls(profile: cProfile.Profile) -> dict[str, int]:
    stats: Any = pstats.Stats(profile)
    calls = {"all": stats.total_calls, "tenacity": 0, "cattrs": 0, "strict": 0}
    for (filename, _, _), (_, ncalls, *_) in stats.stats.items():
        for part, key in (("tenacity", "tenacity"), ("cattrs", "cattrs"), ("_strict", "strict")):
            if part in filename:
                calls[key] += ncalls
    return calls


async def measure(sessions: int, turns: int) -> dict[str, Any]:
    profile = cProfile.Profile()
    profiled = await _timed(sessions, turns, profile)  # first: the counters add calls of their own
    counted = await _timed(sessions, turns, None)
    per = counted["turns"]
    result: dict[str, Any] = {"sessions": sessions, "turns": per}
    result.update({key: round(value / per, 2) for key, value in counted["counts"].items()})
    calls = _calls(profile)
    per_profiled = profiled["turns"]
    result.update({f"calls_{key}": round(value / per_profiled) for key, value in calls.items()})
    result["cpu_ms_per_turn"] = round(counted["cpu_ms_per_turn"], 2)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1, help="concurrent sessions")
    parser.add_argument("--turns", type=int, default=100, help="timed turns in all")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = anyio.run(measure, args.sessions, args.turns)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>24}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
