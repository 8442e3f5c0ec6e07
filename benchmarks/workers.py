"""Turns served by 1, 2 and 4 ``turnframe worker`` processes on PostgreSQL, against the same
submitter writing the same turns to a raw table; and the memory an idle session costs.

What both sides do (the ratio's baseline is measured in the same run, on the same database):
the *same submitter* (one process, one task per session, each session's turns one after another,
``--sessions`` sessions of ``--per-session`` turns, one account and seeded trip per session)
sends every turn as one transaction. On the *raw* side each turn is one ``INSERT`` of the
turn's JSON into a plain table (asyncpg, nothing else: the most the submitter can push). On the
*workers* side each turn goes through ``Runtime.submit`` (the durable inbox, ``NOTIFY``) and K
worker processes serve it through the whole pipeline on the travel desk (the offline rule-based
interpreter; every turn sets the trip's note, so every turn commits one event); the time runs
from the first submit until the last turn is delivered. Workers start, and serve one warm-up
turn each, before the clock starts. The ratio is workers/raw.

Memory: a Runtime on the travel desk (SQLite in memory) with ``--idle`` (10k) live, idle session
actors (started from the store, as a first turn starts them), measured with tracemalloc as the
Python memory they hold, divided by their number. (A worker keeps none: it stops each session
it hands back.)

    TURNFRAME_TEST_POSTGRES_DSN=postgresql://... python benchmarks/workers.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import asyncpg

from turnframe.cli.store_url import open_store
from turnframe.cli.worker import desks_runtime
from turnframe.clock import SystemClock
from turnframe.examples import sample
from turnframe.runtime import Runtime
from turnframe.stores import SqliteStore

REPO = Path(__file__).resolve().parents[1]
DESK = "travel-desk"
LEVELS = tuple(int(n) for n in os.environ.get("TF_BENCH_LEVELS", "1,2,4").split(","))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


@contextlib.contextmanager
def workers(url: str, count: int, folder: Path) -> Iterator[None]:
    started = []
    for n in range(count):
        log = folder / f"worker-{n}.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "turnframe", "worker", "--store", url, "--workflow", DESK,
             "--concurrency", "16", "--worker-id", f"bench{n}"],
            env=_env(), stdout=subprocess.DEVNULL, stderr=log.open("wb"),
        )  # fmt: skip
        started.append((process, log))
    try:
        for _, log in started:  # each says so once its runtime has started
            while b'"started"' not in log.read_bytes():
                time.sleep(0.05)
        yield
    finally:
        for process, _ in started:
            process.send_signal(signal.SIGTERM)
        for process, _ in started:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()


async def _ended(conn: Any) -> int:
    return int(
        await conn.fetchval("SELECT count(*) FROM turns WHERE phase IN ('delivered', 'failed')")
    )


async def _until_ended(conn: Any, count: int) -> None:
    """Poll (every 10 ms) until ``count`` turns have ended: what a client without LISTEN does."""
    while True:
        if await _ended(conn) >= count:
            return
        await anyio.sleep(0.01)


async def workers_side(dsn: str, count: int, sessions: int, per_session: int) -> float:
    schema = f"tf_bench_{secrets.token_hex(5)}"
    url = f"{dsn}{'&' if '?' in dsn else '?'}schema={schema}"
    desk = sample(DESK)
    try:
        async with open_store(url, must_exist=False) as store:
            runtime = desks_runtime(
                store, [desk], clock=SystemClock(), lease_seconds=30.0, worker_id="bench-front"
            )
            async with runtime:
                ids = []
                for n in range(sessions + count):  # the last ``count`` are warm-up sessions
                    account = f"acct-{n}"
                    await desk.seed_account(store, account, now=runtime.clock.now())
                    session = await runtime.open_session(account_id=account, workflow=DESK)
                    ids.append((account, session.session_id))
                conn = await asyncpg.connect(dsn, server_settings={"search_path": schema})
                try:
                    with tempfile_folder() as folder, workers(url, count, folder):
                        for account, session_id in ids[sessions:]:
                            await runtime.submit(
                                session_id, "Set the note to warm.", account=account
                            )
                        await _until_ended(conn, count)
                        began = time.perf_counter()
                        async with anyio.create_task_group() as group:
                            for account, session_id in ids[:sessions]:
                                group.start_soon(
                                    _submit_all, runtime, account, session_id, per_session
                                )
                        total = count + sessions * per_session
                        await _until_ended(conn, total)
                        elapsed = time.perf_counter() - began
                finally:
                    await conn.close()
    finally:
        conn = await asyncpg.connect(dsn)
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await conn.close()
    return sessions * per_session / elapsed


async def _submit_all(runtime: Runtime, account: str, session_id: str, turns: int) -> None:
    for n in range(turns):
        await runtime.submit(session_id, f"Set the note to seat {n}.", account=account)


async def raw_side(dsn: str, sessions: int, per_session: int) -> float:
    schema = f"tf_bench_{secrets.token_hex(5)}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(f"CREATE SCHEMA {schema}")
    await admin.execute(
        f"CREATE TABLE {schema}.raw_turns (id text PRIMARY KEY, session_id text NOT NULL, "
        "payload json NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"
    )
    pool = await asyncpg.create_pool(dsn, min_size=10, max_size=10)
    desk_turn = {"text": "Set the note to seat 0.", "locale": "en", "account_id": "a"}

    async def submit_all(session: int) -> None:
        for n in range(per_session):
            payload = json.dumps({**desk_turn, "session_id": f"s{session}", "n": n})
            async with pool.acquire() as conn, conn.transaction():
                await conn.execute(
                    f"INSERT INTO {schema}.raw_turns (id, session_id, payload) VALUES ($1, $2, $3)",
                    f"t{session}-{n}",
                    f"s{session}",
                    payload,
                )

    try:
        began = time.perf_counter()
        async with anyio.create_task_group() as group:
            for session in range(sessions):
                group.start_soon(submit_all, session)
        elapsed = time.perf_counter() - began
    finally:
        await pool.close()
        await admin.execute(f"DROP SCHEMA {schema} CASCADE")
        await admin.close()
    return sessions * per_session / elapsed


async def idle_session_bytes(idle: int) -> float:
    """Python memory held per live idle session actor (tracemalloc), at ``idle`` sessions."""
    desk = sample(DESK)
    async with SqliteStore.open(":memory:") as store:
        runtime = desks_runtime(
            store, [desk], clock=SystemClock(), lease_seconds=600.0, worker_id="mem"
        )
        async with runtime:
            sessions = [
                await store.create_session(account_id=f"a{n}", workflow=DESK) for n in range(idle)
            ]
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            for session in sessions:  # what a first turn does before it is recorded
                await runtime._session_ref(session.account_id, session.session_id)
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
    return (after - before) / idle


@contextlib.contextmanager
def tempfile_folder() -> Iterator[Path]:
    keep = os.environ.get("TF_BENCH_KEEP")
    if keep:
        yield Path(keep)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tf-bench-workers-") as folder:
        yield Path(folder)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    dsn = args.dsn or os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")
    result: dict[str, Any] = {"sessions": args.sessions, "per_session": args.per_session}
    if dsn:
        raw = await raw_side(dsn, args.sessions, args.per_session)
        result["raw_turns_per_s"] = round(raw, 1)
        for count in LEVELS:
            rate = await workers_side(dsn, count, args.sessions, args.per_session)
            result[f"workers_{count}_turns_per_s"] = round(rate, 1)
            result[f"workers_{count}_over_raw"] = round(rate / raw, 3)
            if not args.json:
                print(
                    f"{count} worker(s): {rate:8.1f} turns/s   {rate / raw:.3f}x raw ({raw:.0f}/s)"
                )
    else:
        result["postgres"] = "skipped: set TURNFRAME_TEST_POSTGRES_DSN or pass --dsn"
    per_idle = await idle_session_bytes(args.idle)
    result["idle_sessions"] = args.idle
    result["kb_per_idle_session"] = round(per_idle / 1024, 1)
    if not args.json:
        print(f"memory per idle session at {args.idle}: {per_idle / 1024:.1f} KB")
    return result


def cli() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--quick", action="store_true", help="fewer turns and idle sessions")
    parser.add_argument("--dsn", help="PostgreSQL URL (default: $TURNFRAME_TEST_POSTGRES_DSN)")
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--per-session", type=int, default=10)
    parser.add_argument("--idle", type=int, default=10_000)
    args = parser.parse_args()
    if args.quick:
        args.sessions, args.per_session, args.idle = 16, 5, 2_000
    result = anyio.run(main, args, backend="asyncio")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    cli()
