"""What only the PostgreSQL store promises: schemas, migrations, asyncio, lock timeouts."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import anyio.to_thread
import pytest
from store_kit import (
    ACCOUNT,
    POSTGRES_DSN_VARIABLE,
    drop_schema,
    entry,
    fresh_schema_name,
    move,
    postgres_dsn,
)

from turnframe.clock import ManualClock
from turnframe.errors import ConfigError
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewCase,
    NewEvent,
    SchemaTooNew,
    StoreClosed,
    StoreTimeout,
    TurnSeal,
)
from turnframe.stores.inputs import BundleReply, NewUserTurn

asyncpg = pytest.importorskip("asyncpg")

from turnframe.stores.postgres import (  # noqa: E402  (after the importorskip)
    LATEST_VERSION,
    AsyncioRequired,
    PostgresStore,
)
from turnframe.stores.postgres.schema import MIGRATIONS  # noqa: E402

pytestmark = pytest.mark.anyio

needs_postgres = pytest.mark.skipif(
    postgres_dsn() is None, reason=f"set {POSTGRES_DSN_VARIABLE} to run"
)


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


async def _versions(dsn: str, schema: str) -> list[int]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(f"SELECT version FROM {schema}.schema_version ORDER BY version")
    finally:
        await conn.close()
    return [r[0] for r in rows]


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_opening_under_trio_fails_with_a_clear_error() -> None:
    with pytest.raises(AsyncioRequired) as caught:
        async with PostgresStore.open("postgresql://nowhere.invalid/db"):
            pass
    assert caught.value.code == "turnframe.store.asyncio_required"
    assert "asyncio only" in str(caught.value) and "SqliteStore" in str(caught.value)


async def test_a_schema_name_that_is_not_a_plain_identifier_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        async with PostgresStore.open("postgresql://nowhere.invalid/db", schema='x"; DROP'):
            pass
    assert "schema name" in str(caught.value)


@needs_postgres
async def test_opening_a_new_schema_applies_every_migration(dsn: str, schema: str) -> None:
    async with PostgresStore.open(dsn, schema=schema):
        pass
    assert await _versions(dsn, schema) == list(range(1, LATEST_VERSION + 1))


@needs_postgres
async def test_stores_opening_a_new_schema_together_migrate_it_once(dsn: str, schema: str) -> None:
    async def open_and_write(n: int) -> None:
        async with PostgresStore.open(dsn, schema=schema) as store:
            await store.create_session(account_id=ACCOUNT, workflow="w", session_id=f"s{n}")

    async with anyio.create_task_group() as tg:
        for n in range(4):
            tg.start_soon(open_and_write, n)
    assert await _versions(dsn, schema) == list(range(1, LATEST_VERSION + 1))


@needs_postgres
async def test_a_version_1_schema_gains_session_leases_without_rewriting_its_rows(
    dsn: str, schema: str
) -> None:
    conn = await asyncpg.connect(dsn)
    try:  # a schema written before session leases existed
        await conn.execute(f"CREATE SCHEMA {schema}")
        await conn.execute(f"SET search_path = {schema}")
        (v1,) = [statements for version, statements in MIGRATIONS if version == 1]
        for statement in v1:
            await conn.execute(statement)
        await conn.execute(
            "CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz)"
        )
        await conn.execute("INSERT INTO schema_version VALUES (1, now())")
        await conn.execute(
            "INSERT INTO sessions (account_id, id, workflow, created_at, thread_context, "
            "last_turn_id) VALUES ($1, 's1', 'w', now(), '{\"k\":1}', 't1')",
            ACCOUNT,
        )
        await conn.execute(
            "INSERT INTO turns (account_id, id, session_id, payload, phase, created_at, "
            "phase_changed_at) VALUES ($1, 't1', 's1', '{}', 'reduced', now(), now())",
            ACCOUNT,
        )
        filenode = await conn.fetchval("SELECT pg_relation_filenode('sessions')")
        clock = ManualClock()
        async with PostgresStore.open(dsn, schema=schema, clock=clock) as store:
            session = await store.get_session(ACCOUNT, "s1")
            assert session is not None
            assert (session.thread_context, session.last_turn_id) == ({"k": 1}, "t1")
            assert await store.list_claimable_sessions(now=clock.now()) == [session]
            lease = await store.acquire_session_lease(
                ACCOUNT,
                "s1",
                worker_id="w1",
                now=clock.now(),
                expires_at=clock.now() + timedelta(1),
            )
            assert lease is not None and not lease.taken_over
        assert await conn.fetchval("SELECT pg_relation_filenode('sessions')") == filenode
    finally:
        await conn.close()
    assert await _versions(dsn, schema) == list(range(1, LATEST_VERSION + 1))


@needs_postgres
async def test_opening_a_schema_from_a_newer_version_fails_with_a_clear_error(
    dsn: str, schema: str
) -> None:
    async with PostgresStore.open(dsn, schema=schema):
        pass
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(
            f"INSERT INTO {schema}.schema_version (version, applied_at) VALUES ($1, now())",
            LATEST_VERSION + 1,
        )
    finally:
        await conn.close()
    with pytest.raises(SchemaTooNew) as caught:
        async with PostgresStore.open(dsn, schema=schema):
            pass
    assert schema in str(caught.value) and "upgrade turnframe" in str(caught.value)
    assert dsn not in str(caught.value)


@needs_postgres
async def test_stores_in_two_schemas_of_one_database_never_see_each_other(
    dsn: str, schema: str
) -> None:
    other = fresh_schema_name()
    try:
        async with (
            PostgresStore.open(dsn, schema=schema) as mine,
            PostgresStore.open(dsn, schema=other) as theirs,
        ):
            await mine.create_session(account_id=ACCOUNT, workflow="w", session_id="s1")
            assert await theirs.get_session(ACCOUNT, "s1") is None
            assert await theirs.list_sessions(ACCOUNT) == []
    finally:
        await drop_schema(dsn, other)


@needs_postgres
async def test_a_bundle_waiting_past_the_lock_timeout_is_rolled_back_with_the_typed_error(
    dsn: str, schema: str
) -> None:
    """Event writers queue until the one before commits (so event numbers follow commit order);
    a wait past ``lock_timeout`` rolls the whole bundle back."""
    async with PostgresStore.open(dsn, schema=schema, clock=ManualClock(), lock_timeout=0.1) as s:
        session = await s.create_session(account_id=ACCOUNT, workflow="w")
        turn = await s.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={}
        )
        await s.advance_phase(ACCOUNT, turn.turn_id, TurnPhase.RECEIVED, TurnPhase.EXECUTING)
        bundle = CommitBundle(
            account_id=ACCOUNT,
            turn_id=turn.turn_id,
            new_cases=[NewCase(workflow="w", label="T", state={}, case_id="c1")],
            events=[NewEvent(case_id="c1", revision=1, type="opened", payload={})],
        )
        other_writer = await asyncpg.connect(dsn, server_settings={"search_path": schema})
        try:
            async with other_writer.transaction():
                await other_writer.execute("LOCK TABLE events IN EXCLUSIVE MODE")
                with pytest.raises(StoreTimeout) as caught:
                    await s.commit_bundle(bundle)
        finally:
            await other_writer.close()
        assert caught.value.code == "turnframe.store.timeout"
        assert await s.get_case(ACCOUNT, "c1") is None
        receipt = await s.commit_bundle(bundle)
        assert [e.type for e in receipt.events] == ["opened"]


@needs_postgres
async def test_a_call_that_finds_no_free_connection_in_time_fails_with_the_typed_error(
    dsn: str, schema: str
) -> None:
    inside, release = threading.Event(), threading.Event()

    def hold_the_only_connection() -> None:
        inside.set()
        release.wait(timeout=5)

    async with PostgresStore.open(
        dsn, schema=schema, max_connections=1, acquire_timeout=0.05
    ) as store:
        session = await store.create_session(account_id=ACCOUNT, workflow="w")
        turn = await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={}
        )
        bundle = CommitBundle(account_id=ACCOUNT, turn_id=turn.turn_id, replay_record={"r": 1})

        async def commit() -> None:
            await store.commit_bundle(bundle, inside_transaction=hold_the_only_connection)

        async with anyio.create_task_group() as tg:
            tg.start_soon(commit)
            await anyio.to_thread.run_sync(inside.wait, 5)
            try:
                with pytest.raises(StoreTimeout) as caught:
                    await store.get_session(ACCOUNT, session.session_id)
            finally:
                release.set()
        assert "no database connection came free" in str(caught.value)
        assert await store.get_replay_record(ACCOUNT, turn.turn_id) == {"r": 1}


@needs_postgres
async def test_a_closed_store_refuses_to_be_used(dsn: str, schema: str) -> None:
    async with PostgresStore.open(dsn, schema=schema) as store:
        pass
    with pytest.raises(StoreClosed):
        await store.get_session(ACCOUNT, "s1")


@needs_postgres
async def test_a_version_5_schema_gains_lease_epochs_and_the_lease_log_without_rewriting_sessions(
    dsn: str, schema: str
) -> None:
    conn = await asyncpg.connect(dsn)
    try:  # a schema written before workers existed
        await conn.execute(f"CREATE SCHEMA {schema}")
        await conn.execute(f"SET search_path = {schema}")
        await conn.execute(
            "CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz)"
        )
        for version, statements in MIGRATIONS:
            if version <= 5:
                for statement in statements:
                    await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version VALUES ($1, now())", version)
        await conn.execute(
            "INSERT INTO sessions (account_id, id, workflow, created_at, thread_context, "
            "last_turn_id, lease_worker, lease_acquired_at, lease_expires_at) VALUES "
            "($1, 's1', 'w', now(), '{\"k\":1}', 't1', 'old', now() - interval '1 hour', "
            "now() - interval '59 minutes')",
            ACCOUNT,
        )
        await conn.execute(
            "INSERT INTO turns (account_id, id, session_id, payload, phase, created_at, "
            "phase_changed_at) VALUES ($1, 't1', 's1', '{}', 'received', now(), now())",
            ACCOUNT,
        )
        filenode = await conn.fetchval("SELECT pg_relation_filenode('sessions')")
        clock = ManualClock(at=datetime.now(UTC))
        async with PostgresStore.open(dsn, schema=schema, clock=clock) as store:
            session = await store.get_session(ACCOUNT, "s1")
            assert session is not None and session.thread_context == {"k": 1}
            now = clock.now()
            (lease,) = await store.claim_sessions(
                worker_id="w1", now=now, expires_at=now + timedelta(1)
            )
            assert (lease.previous_worker, lease.epoch) == ("old", 1)
            assert [e.event.value for e in await store.list_lease_log()] == ["taken_over"]
        assert await conn.fetchval("SELECT pg_relation_filenode('sessions')") == filenode
    finally:
        await conn.close()
    assert await _versions(dsn, schema) == list(range(1, LATEST_VERSION + 1))


class _RoundTrips:
    """Counts the statements asyncpg sends (each one a round trip), BEGIN and COMMIT included."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[str] = []
        connection = asyncpg.connection.Connection
        for name in ("execute", "fetch", "fetchrow", "fetchval"):
            monkeypatch.setattr(connection, name, self._counted(getattr(connection, name)))

    def _counted(self, method: Any) -> Any:
        async def counted(conn: Any, query: str, *args: Any, **kwargs: Any) -> Any:
            self.sent.append(query.split(None, 1)[0].upper().rstrip(";"))
            return await method(conn, query, *args, **kwargs)

        return counted


@needs_postgres
async def test_a_live_turn_is_sealed_and_committed_with_its_reply_in_nine_round_trips(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seal: BEGIN, one statement recording the turn and admitting its command, COMMIT.
    The bundle: BEGIN, one statement for the turn check, journal move, case update, replay
    record and phase move, the savepoint with the event-order lock, the event, the reply,
    COMMIT."""
    async with PostgresStore.open(dsn, schema=schema, clock=ManualClock()) as s:
        session = await s.create_session(account_id=ACCOUNT, workflow="w")
        case = await s.create_case(
            account_id=ACCOUNT, case=NewCase(workflow="w", label="T", state={}, revision=1)
        )
        seal = TurnSeal(
            user_turn=NewUserTurn(session_id=session.session_id, payload={"text": "hi"}),
            plan={"plan": {"acts": []}},
            reduction={"r": 1},
            entries=(entry("k1", case_id=case.case_id, expected_revision=1),),
            phase=move(TurnPhase.RECEIVED, TurnPhase.EXECUTING),
        )
        bundle = CommitBundle(
            account_id=ACCOUNT,
            turn_id="t1",
            journal_outcomes=[
                JournalOutcome(
                    idempotency_key="k1",
                    expected=JournalStatus.PENDING,
                    status=JournalStatus.COMMITTED,
                )
            ],
            case_updates=[
                CaseUpdate(
                    case_id=case.case_id, expected_revision=1, new_revision=2, state={"a": 1}
                )
            ],
            events=[NewEvent(case_id=case.case_id, revision=2, type="set", payload={"a": 1})],
            replay_record={"plan_hash": "h"},
            phase=move(TurnPhase.EXECUTING, TurnPhase.COMMITTED),
            reply=lambda receipt: BundleReply(blocks=[{"said": len(receipt.events)}]),
        )
        trips = _RoundTrips(monkeypatch)
        await s.seal_turn(ACCOUNT, "t1", seal)
        assert trips.sent == ["BEGIN", "WITH", "COMMIT"]
        receipt = await s.commit_bundle(bundle)
        assert trips.sent[3:] == ["BEGIN", "WITH", "SAVEPOINT", "INSERT", "WITH", "COMMIT"]
        assert receipt.phase is TurnPhase.DELIVERED
