"""The acceptance test of #15: two worker processes and a submitter on one store, one worker
killed with -9 mid-run and restarted. 200 turns over 20 sessions of the travel desk: each
delivered exactly once, no event twice, each session's turns in submission order, and the
lease log shows one worker per session at a time. On PostgreSQL and on one SQLite file.

These run a few dozen seconds each (worker processes, real leases of two seconds)."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from worker_kit import (
    DESK,
    check_exactly_once_in_order,
    count_ended,
    drop_schema,
    fresh_schema_name,
    killed_at_the_end,
    overlapping_holds,
    postgres_dsn,
    start_worker,
    stop,
    submitter,
    wait_until,
)

from turnframe.examples import sample
from turnframe.stores.inbox import LeaseEvent

pytestmark = [pytest.mark.anyio, pytest.mark.workers]

SESSIONS = 20
TURNS_PER_SESSION = 10
WORKER_OPTIONS = ("--concurrency", "4", "--lease-seconds", "2", "--grace", "10")


@pytest.fixture(params=["sqlite", "postgres"])
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "shared.db")
        return
    dsn = postgres_dsn()
    if dsn is None:
        pytest.skip("set TURNFRAME_TEST_POSTGRES_DSN to run on PostgreSQL")
    schema = fresh_schema_name()
    separator = "&" if "?" in dsn else "?"
    try:
        yield f"{dsn}{separator}schema={schema}"
    finally:
        await drop_schema(dsn, schema)


async def test_two_workers_one_killed_and_restarted_deliver_every_turn_once_in_order(
    store_url: str, tmp_path: Path
) -> None:
    desk = sample(DESK)
    accounts = [f"acct-{n:02d}" for n in range(SESSIONS)]  # one session (and trip) each
    sessions: dict[str, str] = {}
    submitted: dict[str, list[str]] = {a: [] for a in accounts}
    async with submitter(store_url) as (front, store):
        for account in accounts:
            await desk.seed_account(store, account, now=front.clock.now())
            session = await front.open_session(account_id=account, workflow=DESK)
            sessions[account] = session.session_id
        first = start_worker(store_url, tmp_path, "alpha", *WORKER_OPTIONS)
        second = start_worker(store_url, tmp_path, "beta", *WORKER_OPTIONS)
        restarted = None
        with killed_at_the_end(first, second):
            for n in range(TURNS_PER_SESSION):
                for account in accounts:
                    turn_id = await front.submit(
                        sessions[account], f"Set the note to seat {n}.", account=account
                    )
                    submitted[account].append(turn_id)

            async def ended(at_least: int) -> bool:
                return await count_ended(store, accounts, sessions) >= at_least

            async def first_holds_pending_turns() -> bool:
                held = {}
                for entry in await store.list_lease_log():
                    held[(entry.account_id, entry.session_id)] = entry
                for (account, session_id), entry in held.items():
                    mine = entry.worker_id.startswith("alpha-")
                    held_now = mine and entry.event is not LeaseEvent.RELEASED
                    if held_now and await store.list_pending_turns(account, session_id):
                        return True
                return False

            total = SESSIONS * TURNS_PER_SESSION
            await wait_until(first_holds_pending_turns, within=180, what="alpha serving sessions")
            first.process.send_signal(signal.SIGKILL)  # mid-run: it holds sessions with turns
            first.process.wait()
            restarted = start_worker(store_url, tmp_path, "alpha-again", *WORKER_OPTIONS)
            with killed_at_the_end(restarted):
                await wait_until(lambda: ended(total), within=300, what="every turn delivered")
                assert stop(second) == 0
                assert stop(restarted) == 0

        await check_exactly_once_in_order(store, accounts, sessions, submitted)
        log = await store.list_lease_log()
        assert overlapping_holds(log) == []
        killed = [e for e in log if e.worker_id.startswith("alpha-") and "again" not in e.worker_id]
        assert killed, "the killed worker served sessions before it died"
        assert any(e.event is LeaseEvent.TAKEN_OVER for e in log), "its sessions were taken over"
    served = [
        line
        for worker in (first, second, restarted)
        if worker is not None
        for line in worker.lines()
        if line.get("event") == "turn"
    ]
    assert all("text" not in line for line in served)  # no user text in the logs unless asked
