"""Worker processes on one store, a submitter, and what the store says afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import anyio
import attrs

from turnframe.cli.store_url import open_store
from turnframe.cli.worker import desks_runtime
from turnframe.clock import SystemClock
from turnframe.examples import sample
from turnframe.lifecycle import TurnPhase
from turnframe.runtime import Runtime
from turnframe.stores import Store
from turnframe.stores.inbox import LeaseEvent, LeaseLogEntry

REPO = Path(__file__).resolve().parents[2]
DESK = "travel-desk"
POSTGRES_DSN_VARIABLE = "TURNFRAME_TEST_POSTGRES_DSN"


def postgres_dsn() -> str | None:
    return os.environ.get(POSTGRES_DSN_VARIABLE) or None


def fresh_schema_name() -> str:
    return f"tf_test_{secrets.token_hex(6)}"


async def drop_schema(dsn: str, schema: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TURNFRAME_STORE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


@attrs.define
class WorkerProcess:
    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def lines(self) -> list[dict[str, Any]]:
        found = []
        for line in self.log.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError):
                found.append(json.loads(line))
        return found


def start_worker(store: str, folder: Path, name: str, *extra: str) -> WorkerProcess:
    log = folder / f"{name}.log"
    process = subprocess.Popen(
        [
            sys.executable, "-m", "turnframe", "worker", "--store", store, "--workflow", DESK,
            "--worker-id", name, *extra,
        ],
        cwd=folder,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
    )  # fmt: skip
    return WorkerProcess(name=name, process=process, log=log)


def stop(worker: WorkerProcess, *, timeout: float = 60) -> int:
    worker.process.send_signal(signal.SIGTERM)
    try:
        return worker.process.wait(timeout=timeout)
    finally:
        worker.process.kill()


@contextlib.contextmanager
def killed_at_the_end(*workers: WorkerProcess) -> Iterator[None]:
    try:
        yield
    finally:
        for worker in workers:
            if worker.process.poll() is None:
                worker.process.kill()
                worker.process.wait()


@contextlib.asynccontextmanager
async def submitter(store_url: str) -> AsyncIterator[tuple[Runtime, Store]]:
    """A front end's runtime: it only submits (it leases nothing and serves nothing)."""
    async with open_store(store_url, must_exist=False) as store:
        runtime = desks_runtime(
            store, [sample(DESK)], clock=SystemClock(), lease_seconds=30.0, worker_id="front"
        )
        async with runtime:
            yield runtime, store


async def wait_until(predicate: Any, *, within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await anyio.sleep(0.1)


async def count_ended(store: Store, accounts: list[str], sessions: dict[str, str]) -> int:
    ended = 0
    for account in accounts:
        for turn in await store.list_session_turns(account, sessions[account]):
            ended += turn.phase.is_terminal
    return ended


def overlapping_holds(log: list[LeaseLogEntry]) -> list[str]:
    """Where a session's lease log shows two holders at once: each epoch's hold runs from its
    grant to its release, or else to the last expiry it was renewed to; the next epoch must
    start at or after that end."""
    problems = []
    by_session: dict[tuple[str, str], list[LeaseLogEntry]] = defaultdict(list)
    for entry in log:
        by_session[(entry.account_id, entry.session_id)].append(entry)
    for (_, session_id), entries in by_session.items():
        holds: dict[int, dict[str, Any]] = {}
        for entry in entries:
            hold = holds.setdefault(
                entry.epoch, {"worker": entry.worker_id, "start": None, "end": None}
            )
            if hold["worker"] != entry.worker_id:
                problems.append(f"{session_id}: epoch {entry.epoch} has two workers")
            if entry.event in (LeaseEvent.ACQUIRED, LeaseEvent.TAKEN_OVER):
                hold["start"] = entry.at
            if entry.event is LeaseEvent.RELEASED:
                hold["end"], hold["released"] = entry.at, True
            elif not hold.get("released") and entry.expires_at is not None:
                hold["end"] = max(filter(None, (hold["end"], entry.expires_at)))
        epochs = sorted(holds)
        if epochs != list(range(epochs[0], epochs[0] + len(epochs))):
            problems.append(f"{session_id}: epochs {epochs} are not consecutive")
        for before, after in pairwise(epochs):
            end: datetime = holds[before]["end"]
            start: datetime = holds[after]["start"]
            if start is None or start < end:
                problems.append(
                    f"{session_id}: epoch {after} ({holds[after]['worker']}) began at {start}, "
                    f"before epoch {before} ({holds[before]['worker']}) ended at {end}"
                )
    return problems


async def check_exactly_once_in_order(
    store: Store, accounts: list[str], sessions: dict[str, str], submitted: dict[str, list[str]]
) -> None:
    """Every turn delivered, one event each, and each case's events in submission order."""
    for account in accounts:
        turns = await store.list_session_turns(account, sessions[account])
        assert [t.turn_id for t in turns] == submitted[account]
        assert all(t.phase is TurnPhase.DELIVERED for t in turns), [
            (t.turn_id, t.phase) for t in turns if t.phase is not TurnPhase.DELIVERED
        ]
        events = await store.list_events(account)
        ours = [e for e in events if e.type == "field_set"]
        assert [e.turn_id for e in ours] == submitted[account], account  # once each, in order
        assert len({e.event_id for e in events}) == len(events)
