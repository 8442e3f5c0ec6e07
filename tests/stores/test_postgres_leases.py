"""Workers on many machines share one database: outbox claims never lease the same row twice,
and session leases never give one session to two workers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import anyio
import pytest
from store_kit import (
    ACCOUNT,
    OTHER,
    POSTGRES_DSN_VARIABLE,
    drop_schema,
    fresh_schema_name,
    postgres_dsn,
)

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.stores import (
    CommitBundle,
    NewOutboxEffect,
    OutboxRecord,
    OutboxStatus,
    SessionRecord,
    Store,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.postgres,
    pytest.mark.skipif(postgres_dsn() is None, reason=f"set {POSTGRES_DSN_VARIABLE} to run"),
]

LEASE = timedelta(seconds=30)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # asyncpg runs on asyncio only


@pytest.fixture
def dsn() -> str:
    found = postgres_dsn()
    assert found is not None
    return found


@pytest.fixture
async def schema(dsn: str) -> AsyncIterator[str]:
    name = fresh_schema_name()
    try:
        yield name
    finally:
        await drop_schema(dsn, name)


async def _commit_effects(store: Store, account: str, count: int) -> list[OutboxRecord]:
    session = await store.create_session(account_id=account, workflow="tickets")
    turn = await store.record_user_turn(
        account_id=account, session_id=session.session_id, payload={"text": "send"}
    )
    await store.advance_phase(account, turn.turn_id, TurnPhase.RECEIVED, TurnPhase.EXECUTING)
    receipt = await store.commit_bundle(
        CommitBundle(
            account_id=account,
            turn_id=turn.turn_id,
            outbox=[
                NewOutboxEffect(idempotency_key=f"{account}-{n}", payload={"n": n})
                for n in range(count)
            ],
        )
    )
    return list(receipt.outbox)


async def test_two_stores_racing_to_claim_outbox_rows_get_disjoint_rows(
    dsn: str, schema: str
) -> None:
    from turnframe.stores.postgres import PostgresStore

    clock = ManualClock()
    now = clock.now()
    claims: dict[str, list[OutboxRecord]] = {}

    async def drain(store: Store, token: str) -> None:
        mine = claims.setdefault(token, [])
        while taken := await store.claim_outbox(
            account_id=None, claim_token=token, now=now, lease_expires_at=now + LEASE, limit=3
        ):
            mine.extend(taken)

    async with (
        PostgresStore.open(dsn, schema=schema, clock=clock) as first,
        PostgresStore.open(dsn, schema=schema, clock=clock) as second,
    ):
        effects = await _commit_effects(first, ACCOUNT, 40) + await _commit_effects(
            second, OTHER, 40
        )
        async with anyio.create_task_group() as tg:
            for n, store in enumerate([first, second, first, second]):
                tg.start_soon(drain, store, f"worker-{n}")
        left = await first.list_outbox(None, status=OutboxStatus.PENDING)

    claimed = [(r.account_id, r.effect_id) for rows in claims.values() for r in rows]
    assert len(claimed) == len(set(claimed)), "a row was leased to two workers"
    assert set(claimed) == {(e.account_id, e.effect_id) for e in effects}
    assert left == []
    for token, rows in claims.items():
        assert all(r.claim_token == token and r.attempts == 1 for r in rows)


async def test_a_claim_skips_rows_another_workers_claim_holds_instead_of_waiting(
    dsn: str, schema: str
) -> None:
    import asyncpg

    from turnframe.stores.postgres import PostgresStore

    clock = ManualClock()
    now = clock.now()
    async with PostgresStore.open(dsn, schema=schema, clock=clock) as store:
        effects = await _commit_effects(store, ACCOUNT, 4)
        held = {e.effect_id for e in effects[:2]}
        other_worker = await asyncpg.connect(dsn, server_settings={"search_path": schema})
        try:
            async with other_worker.transaction():
                await other_worker.execute(
                    "SELECT 1 FROM outbox WHERE id = ANY($1::text[]) FOR UPDATE", list(held)
                )
                with anyio.fail_after(5):
                    taken = await store.claim_outbox(
                        account_id=None, claim_token="w2", now=now, lease_expires_at=now + LEASE
                    )
        finally:
            await other_worker.close()
    assert [r.effect_id for r in taken] == [e.effect_id for e in effects[2:]]


async def _sessions_with_turns(store: Store, account: str, count: int) -> list[SessionRecord]:
    sessions = []
    for _ in range(count):
        session = await store.create_session(account_id=account, workflow="tickets")
        await store.record_user_turn(
            account_id=account, session_id=session.session_id, payload={"text": "hi"}
        )
        sessions.append(session)
    return sessions


async def test_a_claimable_scan_skips_sessions_another_worker_holds_locked_instead_of_waiting(
    dsn: str, schema: str
) -> None:
    import asyncpg

    from turnframe.stores.postgres import PostgresStore

    clock = ManualClock()
    async with PostgresStore.open(dsn, schema=schema, clock=clock) as store:
        sessions = await _sessions_with_turns(store, ACCOUNT, 4)
        held = [s.session_id for s in sessions[:2]]
        other_worker = await asyncpg.connect(dsn, server_settings={"search_path": schema})
        try:
            async with other_worker.transaction():  # as a concurrent acquire does
                await other_worker.execute(
                    "SELECT 1 FROM sessions WHERE id = ANY($1::text[]) FOR UPDATE", held
                )
                with anyio.fail_after(5):
                    listed = await store.list_claimable_sessions(now=clock.now())
        finally:
            await other_worker.close()
        assert [s.session_id for s in listed] == [s.session_id for s in sessions[2:]]
        after = await store.list_claimable_sessions(now=clock.now())
    assert [s.session_id for s in after] == [s.session_id for s in sessions]


async def test_workers_on_two_stores_scanning_and_acquiring_lease_each_session_once(
    dsn: str, schema: str
) -> None:
    from turnframe.stores.postgres import PostgresStore

    clock = ManualClock()
    now = clock.now()
    leased: dict[str, list[tuple[str, str]]] = {}

    async def serve(store: Store, worker: str) -> None:
        mine = leased.setdefault(worker, [])
        while listed := await store.list_claimable_sessions(now=now, limit=3):
            for session in listed:
                lease = await store.acquire_session_lease(
                    session.account_id,
                    session.session_id,
                    worker_id=worker,
                    now=now,
                    expires_at=now + LEASE,
                )
                if lease is not None:
                    mine.append((lease.account_id, lease.session_id))

    async with (
        PostgresStore.open(dsn, schema=schema, clock=clock) as first,
        PostgresStore.open(dsn, schema=schema, clock=clock) as second,
    ):
        sessions = await _sessions_with_turns(first, ACCOUNT, 20)
        sessions += await _sessions_with_turns(second, OTHER, 20)
        async with anyio.create_task_group() as tg:
            for n, store in enumerate([first, second, first, second]):
                tg.start_soon(serve, store, f"worker-{n}")
        left = await first.list_claimable_sessions(now=now)

    taken = [key for keys in leased.values() for key in keys]
    assert len(taken) == len(set(taken)), "a session was leased to two workers"
    assert set(taken) == {(s.account_id, s.session_id) for s in sessions}
    assert left == []
