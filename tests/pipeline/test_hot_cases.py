"""Hot cases (ADR 0018): twenty turns writing one case at once. Before the seal nothing has
executed, so a turn whose case moved claims it, reduces its same plan again on the case as it is
now, and seals; every turn commits, or says truthfully that nothing was changed. Never twice."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from desk_kit import ACCOUNT, CLOCK, desk_runtime, seed

from turnframe.lifecycle import TurnPhase
from turnframe.response import TurnResponse
from turnframe.runtime import RuntimeSettings
from turnframe.stores import SqliteStore, Store

pytestmark = pytest.mark.anyio

WRITERS = 20
DESK = "travel-desk"
CONFLICT = "the case changed in the meantime, so nothing was changed"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the PostgreSQL store needs it; SQLite runs on both (other tests)


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "sqlite":
        async with SqliteStore.open(tmp_path / "hot.db") as opened:
            yield opened
        return
    dsn = os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")
    if not dsn:
        pytest.skip("set TURNFRAME_TEST_POSTGRES_DSN to run on PostgreSQL")
    import secrets

    import asyncpg

    from turnframe.stores.postgres import PostgresStore

    schema = f"tf_test_{secrets.token_hex(6)}"
    try:
        async with PostgresStore.open(dsn, schema=schema) as opened:
            yield opened
    finally:
        conn = await asyncpg.connect(dsn)
        with contextlib.suppress(Exception):
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await conn.close()


async def _twenty_writers(store: Store, attempts: int) -> list[TurnResponse]:
    await seed(store, DESK)
    settings = RuntimeSettings(pool_size=4, ask_timeout=60.0, hot_case_attempts=attempts)
    async with desk_runtime(DESK, store=store, settings=settings) as (rt, _):
        sessions = [await rt.open_session(account_id=ACCOUNT) for _ in range(WRITERS)]
        responses: dict[int, TurnResponse] = {}

        async def write(n: int) -> None:
            turn = rt.new_turn(sessions[n], f"Set the note to seat {n}.", at=CLOCK)
            responses[n] = await rt.handle_turn(turn)

        async with anyio.create_task_group() as group:
            for n in range(WRITERS):
                group.start_soon(write, n)
    return [responses[n] for n in range(WRITERS)]


async def _check_truthful_and_never_twice(store: Store, responses: list[TurnResponse]) -> int:
    committed = 0
    for response in responses:
        assert response.phase is TurnPhase.DELIVERED
        events = await store.list_events(ACCOUNT, turn_id=response.turn_id)
        assert len(events) <= 1
        if events:
            committed += 1
        else:
            assert any(CONFLICT in block.text for block in response.blocks)
    notes = [e for e in await store.list_events(ACCOUNT) if e.type == "field_set"]
    assert len(notes) == committed
    revisions = [e.revision for e in notes]
    assert revisions == list(range(revisions[0], revisions[0] + committed))  # one after another
    return committed


async def test_twenty_concurrent_writers_of_one_case_all_commit_each_once(store: Store) -> None:
    responses = await _twenty_writers(store, attempts=3)
    assert await _check_truthful_and_never_twice(store, responses) == WRITERS


async def test_without_re_reduction_the_losers_are_told_nothing_was_changed(store: Store) -> None:
    responses = await _twenty_writers(store, attempts=0)
    committed = await _check_truthful_and_never_twice(store, responses)
    assert committed >= 1  # the first one to seal always commits
