"""A hot case across processes (ADR 0018): twenty sessions of one account, each submitting a
change to the same trip at once, served by two worker processes. Every turn commits exactly
once (a turn whose case moved before its seal claims it and reduces its same plan again)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from worker_kit import (
    DESK,
    count_ended,
    drop_schema,
    fresh_schema_name,
    killed_at_the_end,
    postgres_dsn,
    start_worker,
    stop,
    submitter,
    wait_until,
)

from turnframe.examples import sample
from turnframe.lifecycle import TurnPhase

pytestmark = [pytest.mark.anyio, pytest.mark.workers]

WRITERS = 20
ACCOUNT = "hot"


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


async def test_twenty_sessions_writing_one_case_through_two_workers_all_commit_once(
    store_url: str, tmp_path: Path
) -> None:
    options = ("--concurrency", "10", "--lease-seconds", "10")
    async with submitter(store_url) as (front, store):
        await sample(DESK).seed_account(store, ACCOUNT, now=front.clock.now())
        sessions = {}
        for n in range(WRITERS):
            session = await front.open_session(account_id=ACCOUNT, workflow=DESK)
            sessions[f"{ACCOUNT}/{n}"] = session.session_id
        turns = []
        for n, session_id in enumerate(sessions.values()):
            turns.append(
                await front.submit(session_id, f"Set the note to seat {n}.", account=ACCOUNT)
            )
        workers = [start_worker(store_url, tmp_path, name, *options) for name in ("one", "two")]
        with killed_at_the_end(*workers):

            async def all_ended() -> bool:
                ended = 0
                for session_id in sessions.values():
                    ended += await count_ended(store, [ACCOUNT], {ACCOUNT: session_id})
                return ended == WRITERS

            await wait_until(all_ended, within=180, what="every turn delivered")
            assert [stop(w) for w in workers] == [0, 0]
        for turn_id in turns:
            record = await store.get_turn(ACCOUNT, turn_id)
            assert record is not None and record.phase is TurnPhase.DELIVERED
            assert len(await store.list_events(ACCOUNT, turn_id=turn_id)) == 1
        notes = [e for e in await store.list_events(ACCOUNT) if e.type == "field_set"]
        assert len(notes) == WRITERS
        assert [e.revision for e in notes] == list(
            range(notes[0].revision, notes[0].revision + WRITERS)
        )
    served = [line for w in workers for line in w.lines() if line.get("event") == "turn"]
    delivered = [line["turn_id"] for line in served if line["phase"] == "delivered"]
    assert sorted(delivered) == sorted(turns)  # each delivered once (a try may stop midway)
