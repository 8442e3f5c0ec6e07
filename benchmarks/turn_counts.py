"""Scheduler work and Python calls per pipeline turn: counts, not timings (they hold when busy).

Runs the framework side of ``benchmarks/pipeline.py`` (the same Runtime, store, provider and turns)
on asyncio and counts, over the timed turns only and divided by their number: anyio cancel scopes
entered, asyncio Events made (an ``anyio.Event`` makes two on asyncio: its ``__new__`` builds a
ready event and Python then runs ``__init__`` again), actor asks, event-loop iterations, tasks
created, and, in a second pass under cProfile, Python function calls on the event loop's thread
(and those in tenacity, cattrs, the strict checks, the event loop and anyio, JSON, the hashing
helper and telemetry) and on the SQLite connection's thread (``calls_store_thread``: the
transaction bodies sent there; since ADR 0026 a turn's own run on the loop's thread and are
counted with it), and the SQL statements per turn (on either thread); in a
third pass, with the WAL's automatic checkpoints off, the WAL frames (pages) a turn appends
(``wal_pages_per_turn``: what its COMMITs write). CPU
time per turn (all threads, and the event loop's thread alone) is printed for orientation: on
shared cores it drifts with the load, the counts do not.

    python benchmarks/turn_counts.py [--sessions N] [--turns T] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import glob
import json
import os
import pstats
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import anyio._backends._asyncio as anyio_asyncio

sys.path.insert(0, str(Path(__file__).parent))
import pipeline  # the benchmark next to this one

from turnframe.actors.ref import ActorRef
from turnframe.stores.sqlite import driver as sqlite_driver
from turnframe.stores.sqlite import schema as sqlite_schema

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


class _StoreThread:
    """Profiles the transaction bodies on the SQLite connection's thread, or (no profile) counts
    their SQL statements (those a trigger runs are counted with the statement that fired it)."""

    def __init__(self, profile: cProfile.Profile | None) -> None:
        self.profile = profile
        self.statements = 0
        self.on = False

    def _trace(self, statement: str) -> None:
        if not statement.startswith("--"):  # "-- TRIGGER …": part of the statement before
            self.statements += 1

    def wrap(self, body: Any) -> Any:
        def observed(conn: sqlite3.Connection) -> Any:
            if not self.on:
                return body(conn)
            if self.profile is None:
                conn.set_trace_callback(self._trace)
            else:
                self.profile.enable()
            try:
                return body(conn)
            finally:
                if self.profile is None:
                    conn.set_trace_callback(None)
                else:
                    self.profile.disable()

        return observed


async def _timed(
    sessions: int,
    turns: int,
    profile: cProfile.Profile | None,
    thread_profile: cProfile.Profile | None = None,
) -> dict[str, Any]:
    """Run the framework side once; hand back what the timed turns did."""
    counts: Counter[str] = Counter()
    seen: dict[str, Any] = {}
    run_sessions = pipeline._run_sessions
    store_thread = _StoreThread(thread_profile)
    driver_run = sqlite_driver.AiosqliteDriver.run
    loop_first = getattr(sqlite_driver, "LoopFirstDriver", None)  # ADR 0026 (older code: none)
    driver_here = None if loop_first is None else loop_first.here

    async def run(self: Any, body: Any) -> Any:
        return await driver_run(self, store_thread.wrap(body))

    def here(self: Any, body: Any, **options: Any) -> Any:
        # On the loop's thread: its calls are in the loop's profile already; count statements.
        counted = body if thread_profile is not None else store_thread.wrap(body)
        return driver_here(self, counted, **options)  # type: ignore[misc]

    async def observed(n_sessions: int, n_turns: int, turn: Any) -> Any:
        before = counts.copy()
        store_thread.on = True
        main_cpu = time.thread_time()
        if profile is not None:
            profile.enable()
        result = await run_sessions(n_sessions, n_turns, turn)
        if profile is not None:
            profile.disable()
        main_cpu = time.thread_time() - main_cpu
        store_thread.on = False
        seen["turns"] = done = max(1, n_turns // n_sessions) * n_sessions
        seen["cpu_ms_per_turn"] = result[2]
        seen["cpu_ms_per_turn_loop_thread"] = 1000 * main_cpu / done
        seen["sql_statements"] = store_thread.statements
        seen["counts"] = {key: counts[key] - before[key] for key in COUNTED}
        return result

    if profile is None:
        _install_counters(counts)
    pipeline._run_sessions = observed
    sqlite_driver.AiosqliteDriver.run = run  # type: ignore[method-assign]
    if loop_first is not None:
        loop_first.here = here
    try:
        with tempfile.TemporaryDirectory() as tmp:
            await pipeline.bench_framework(pipeline.Target(Path(tmp), None), sessions, turns)
    finally:
        pipeline._run_sessions = run_sessions
        sqlite_driver.AiosqliteDriver.run = driver_run  # type: ignore[method-assign]
        if loop_first is not None:
            loop_first.here = driver_here
    return seen


#: Groups of calls on the event loop's thread, by a part of the file's path.
GROUPS = (
    ("tenacity", ("tenacity",)),
    ("cattrs", ("cattrs",)),
    ("strict", ("_strict",)),
    ("event_loop", ("asyncio", "anyio", "sniffio", "selectors")),
    ("json", ("/json/",)),
    ("hashing", ("_hashing", "rfc8785")),
    ("telemetry", ("turnframe/telemetry", "opentelemetry")),
)


def _calls(profile: cProfile.Profile) -> dict[str, int]:
    stats: Any = pstats.Stats(profile)
    calls = {"all": stats.total_calls} | {key: 0 for key, _ in GROUPS}
    for (filename, _, _), (_, ncalls, *_) in stats.stats.items():
        for key, parts in GROUPS:
            if any(part in filename for part in parts):
                calls[key] += ncalls
    return calls


async def _wal_pages(sessions: int, turns: int) -> float:
    """WAL frames appended per timed turn, with automatic checkpoints off (so none is lost)."""
    configure = sqlite_schema.configure
    run_sessions = pipeline._run_sessions
    seen: dict[str, float] = {}
    every = getattr(sqlite_driver, "CHECKPOINT_EVERY", None)  # the loop-first driver's own

    def no_checkpoints(conn: sqlite3.Connection, *, busy_timeout_ms: int) -> None:
        configure(conn, busy_timeout_ms=busy_timeout_ms)
        conn.execute("PRAGMA wal_autocheckpoint = 0")

    with tempfile.TemporaryDirectory() as tmp:

        def wal_bytes() -> int:
            return sum(os.path.getsize(f) for f in glob.glob(f"{tmp}/framework-*.db-wal"))

        async def observed(n_sessions: int, n_turns: int, turn: Any) -> Any:
            before = wal_bytes()
            result = await run_sessions(n_sessions, n_turns, turn)
            done = max(1, n_turns // n_sessions) * n_sessions
            seen["pages"] = (wal_bytes() - before) / (4096 + 24) / done  # page + frame header
            return result

        sqlite_schema.configure = no_checkpoints  # type: ignore[assignment]
        pipeline._run_sessions = observed
        if every is not None:
            sqlite_driver.CHECKPOINT_EVERY = 10**9  # type: ignore[attr-defined]
        try:
            await pipeline.bench_framework(pipeline.Target(Path(tmp), None), sessions, turns)
        finally:
            sqlite_schema.configure = configure  # type: ignore[assignment]
            pipeline._run_sessions = run_sessions
            if every is not None:
                sqlite_driver.CHECKPOINT_EVERY = every  # type: ignore[attr-defined]
    return seen["pages"]


async def measure(sessions: int, turns: int) -> dict[str, Any]:
    profile, thread_profile = cProfile.Profile(), cProfile.Profile()
    # First: the counters add calls of their own.
    profiled = await _timed(sessions, turns, profile, thread_profile)
    counted = await _timed(sessions, turns, None)
    per = counted["turns"]
    result: dict[str, Any] = {"sessions": sessions, "turns": per}
    result.update({key: round(value / per, 2) for key, value in counted["counts"].items()})
    calls = _calls(profile)
    per_profiled = profiled["turns"]
    result.update({f"calls_{key}": round(value / per_profiled) for key, value in calls.items()})
    thread_calls: Any = pstats.Stats(thread_profile).total_calls
    result["calls_store_thread"] = round(thread_calls / per_profiled)
    result["sql_statements_per_turn"] = round(counted["sql_statements"] / per, 2)
    result["wal_pages_per_turn"] = round(await _wal_pages(sessions, turns), 2)
    result["cpu_ms_per_turn"] = round(counted["cpu_ms_per_turn"], 2)
    result["cpu_ms_per_turn_loop_thread"] = round(counted["cpu_ms_per_turn_loop_thread"], 2)
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
