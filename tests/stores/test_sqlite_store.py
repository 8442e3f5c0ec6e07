"""What only the SQLite store promises: migrations, pragmas, drivers, locks, the unique index."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_kit import ACCOUNT, entry

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.stores import NewInteraction, SchemaTooNew, SqliteStore, StoreClosed, StoreTimeout
from turnframe.stores.sqlite import LATEST_VERSION, schema
from turnframe.stores.sqlite.driver import AiosqliteDriver, LoopFirstDriver, ThreadDriver

pytestmark = pytest.mark.anyio


def _pragma(path: Path, name: str) -> object:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]


async def test_opening_a_new_file_applies_every_migration(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    async with SqliteStore.open(path):
        pass
    with sqlite3.connect(path) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_version")]
    assert versions == list(range(1, LATEST_VERSION + 1))


async def test_opening_an_up_to_date_file_again_applies_nothing_new(tmp_path: Path) -> None:
    path = tmp_path / "twice.db"
    async with SqliteStore.open(path):
        pass
    async with SqliteStore.open(path):
        pass
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == LATEST_VERSION


async def test_opening_a_file_from_a_newer_version_fails_with_a_clear_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "future.db"
    async with SqliteStore.open(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (LATEST_VERSION + 1,))
    with pytest.raises(SchemaTooNew) as caught:
        async with SqliteStore.open(path):
            pass
    assert caught.value.code == "turnframe.store.schema_too_new"
    assert str(path) in str(caught.value) and "upgrade turnframe" in str(caught.value)


async def test_a_version_1_file_gains_session_leases_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    with closing(sqlite3.connect(path)) as conn, conn:  # written before session leases existed
        (v1,) = [statements for version, statements in schema.MIGRATIONS if version == 1]
        for statement in v1:
            conn.execute(statement)
        conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
        conn.execute("INSERT INTO schema_version VALUES (1, '2025-12-01T00:00:00.000000+00:00')")
        conn.execute(
            "INSERT INTO sessions VALUES (?, 's1', 'w', '2025-12-01T00:00:00.000000+00:00', "
            "'{\"k\":1}', 't1')",
            (ACCOUNT,),
        )
        conn.execute(
            "INSERT INTO turns VALUES (?, 't1', 's1', '{}', 'reduced', NULL, NULL, "
            "'2025-12-01T00:00:00.000000+00:00', '2025-12-01T00:00:00.000000+00:00')",
            (ACCOUNT,),
        )
    clock = ManualClock()
    async with SqliteStore.open(path, clock=clock) as store:
        session = await store.get_session(ACCOUNT, "s1")
        assert session is not None
        assert (session.thread_context, session.last_turn_id) == ({"k": 1}, "t1")
        assert await store.list_claimable_sessions(now=clock.now()) == [session]
        lease = await store.acquire_session_lease(
            ACCOUNT, "s1", worker_id="w1", now=clock.now(), expires_at=clock.now() + timedelta(1)
        )
        assert lease is not None and not lease.taken_over
        assert await store.list_claimable_sessions(now=clock.now()) == []
    with closing(sqlite3.connect(path)) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_version")]
    assert versions == list(range(1, LATEST_VERSION + 1))


async def test_a_file_store_runs_in_wal_mode_with_normal_sync_and_foreign_keys(
    tmp_path: Path,
) -> None:
    path = tmp_path / "pragmas.db"
    async with SqliteStore.open(path) as store:
        settings = await store._driver.run(
            lambda c: tuple(
                c.execute(f"PRAGMA {p}").fetchone()[0]
                for p in ("journal_mode", "synchronous", "foreign_keys")
            )
        )
    assert settings == ("wal", 1, 1)
    assert _pragma(path, "journal_mode") == "wal"


async def test_the_driver_follows_the_running_backend(anyio_backend: str) -> None:
    async with SqliteStore.open() as store:
        expected = AiosqliteDriver if anyio_backend == "asyncio" else ThreadDriver
        assert isinstance(store._driver, LoopFirstDriver)  # the loop's turn first (ADR 0026)
        assert isinstance(store._driver.thread, expected)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_thread_driver_also_serves_asyncio(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "t.db", driver="thread") as store:
        assert isinstance(store._driver, ThreadDriver)
        session = await store.create_session(account_id=ACCOUNT, workflow="w")
        assert await store.get_session(ACCOUNT, session.session_id) == session


async def test_a_memory_store_holds_a_whole_turn(anyio_backend: str) -> None:
    async with SqliteStore.open(":memory:", clock=ManualClock()) as store:
        session = await store.create_session(account_id=ACCOUNT, workflow="w")
        turn = await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={}
        )
        await store.advance_phase(ACCOUNT, turn.turn_id, TurnPhase.RECEIVED, TurnPhase.REDUCED)
        [answer] = await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
        assert answer.entry.turn_id == turn.turn_id


async def test_the_database_itself_refuses_a_second_open_blocking_card(tmp_path: Path) -> None:
    path = tmp_path / "cards.db"
    async with SqliteStore.open(path) as store:
        session = await store.create_session(account_id=ACCOUNT, workflow="w")
        turn = await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={}
        )
        [card] = await store.save_reduction(
            ACCOUNT,
            turn.turn_id,
            {},
            interactions=[NewInteraction(payload={}, case_id="c1", blocking=True)],
        )
    with sqlite3.connect(path) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO interactions (account_id, id, turn_id, case_id, blocking, status, "
            "payload, created_at) VALUES (?, 'other', ?, 'c1', 1, 'open', '{}', 'now')",
            (ACCOUNT, turn.turn_id),
        )
    assert card.blocking


async def test_a_database_locked_by_another_process_times_out_with_the_typed_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "locked.db"
    async with SqliteStore.open(path, busy_timeout=0.05) as store:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreTimeout) as caught:
                await store.create_session(account_id=ACCOUNT, workflow="w", session_id="s1")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert caught.value.code == "turnframe.store.timeout"
        assert await store.get_session(ACCOUNT, "s1") is None
        await store.create_session(account_id=ACCOUNT, workflow="w", session_id="s1")


async def test_a_closed_store_refuses_to_be_used() -> None:
    async with SqliteStore.open() as store:
        pass
    with pytest.raises(StoreClosed):
        await store.get_session(ACCOUNT, "s1")


async def test_a_version_5_file_gains_lease_epochs_and_the_lease_log_and_keeps_its_rows(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v5.db"
    with closing(sqlite3.connect(path)) as conn, conn:  # written before workers existed
        conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
        for version, statements in schema.MIGRATIONS:
            if version <= 5:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version VALUES (?, '2026-11-01T00:00:00.000000+00:00')",
                    (version,),
                )
        conn.execute(
            "INSERT INTO sessions (account_id, id, workflow, created_at, thread_context, "
            "last_turn_id, lease_worker, lease_acquired_at, lease_expires_at) VALUES "
            "(?, 's1', 'w', '2026-11-01T00:00:00.000000+00:00', '{\"k\":1}', 't1', 'old', "
            "'2026-11-01T00:00:00.000000+00:00', '2026-11-01T00:00:30.000000+00:00')",
            (ACCOUNT,),
        )
        conn.execute(
            "INSERT INTO turns (account_id, id, session_id, payload, phase, created_at, "
            "phase_changed_at) VALUES (?, 't1', 's1', '{}', 'received', "
            "'2026-11-01T00:00:00.000000+00:00', '2026-11-01T00:00:00.000000+00:00')",
            (ACCOUNT,),
        )
    clock = ManualClock(at=datetime(2026, 12, 1, tzinfo=UTC))
    async with SqliteStore.open(path, clock=clock) as store:
        session = await store.get_session(ACCOUNT, "s1")
        assert session is not None and session.thread_context == {"k": 1}
        now = clock.now()
        (lease,) = await store.claim_sessions(
            worker_id="w1", now=now, expires_at=now + timedelta(1)
        )
        assert (lease.previous_worker, lease.epoch) == ("old", 1)
        assert [e.event.value for e in await store.list_lease_log()] == ["taken_over"]
    with closing(sqlite3.connect(path)) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_version")]
    assert versions == list(range(1, LATEST_VERSION + 1))
