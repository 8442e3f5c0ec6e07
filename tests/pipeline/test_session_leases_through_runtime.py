"""Many workers on one database: a session is served by the worker holding its lease, and a
lease whose worker died is taken over and the session's unfinished turn finished once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pipeline_kit import ACCOUNT, running, scripted, set_field

from turnframe import SessionLeasedElsewhere
from turnframe._converter import converter
from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.messages import UserTurn
from turnframe.runtime import RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.testing.pipeline import seed_store

pytestmark = pytest.mark.anyio

TEXT = "Set Bob's note to aisle"
START = datetime(2026, 1, 7, 9, 30, tzinfo=UTC)


def _settings(worker: str) -> RuntimeSettings:
    return RuntimeSettings(
        pool_size=1, ask_timeout=10.0, session_lease_seconds=30.0, worker_id=worker
    )


async def test_a_dead_workers_session_is_refused_until_its_lease_expires_then_taken_over(
    tmp_path: Path,
) -> None:
    clock = ManualClock(at=START)
    async with SqliteStore.open(tmp_path / "shared.db") as store:
        await seed_store(store)
        session = await store.create_session(account_id=ACCOUNT, workflow="trip")
        turn = UserTurn(
            session_id=session.session_id,
            account_id=ACCOUNT,
            turn_id="turn-orphan",
            text=TEXT,
            clock=START,
        )
        # A worker took the session and died mid-turn: its lease and the turn stay behind.
        await store.record_user_turn(
            account_id=ACCOUNT,
            session_id=session.session_id,
            payload=converter.unstructure(turn),
            turn_id=turn.turn_id,
        )
        lease = await store.acquire_session_lease(
            ACCOUNT,
            session.session_id,
            worker_id="wrk-dead",
            now=START,
            expires_at=START + timedelta(seconds=30),
        )
        assert lease is not None

        provider = scripted([set_field(TEXT, "Bob", "note", "aisle", "note to aisle")])
        async with running(provider, store=store, clock=clock, settings=_settings("wrk-alive")) as (
            rt,
            _,
        ):
            with pytest.raises(SessionLeasedElsewhere):
                await rt.handle_turn(turn)
            assert (await store.get_turn(ACCOUNT, turn.turn_id)).phase is TurnPhase.RECEIVED  # type: ignore[union-attr]

            clock.advance(timedelta(seconds=31))  # the dead worker's lease runs out
            report = await rt.recover()
            assert report.resumed == ("turn-orphan",)
            record = await store.get_turn(ACCOUNT, turn.turn_id)
            assert record is not None and record.phase is TurnPhase.DELIVERED
            events = await store.list_events(ACCOUNT)
            assert [e.type for e in events] == ["field_set"]


async def test_a_worker_keeps_serving_the_sessions_it_holds(tmp_path: Path) -> None:
    clock = ManualClock(at=START)
    second = "Set Bob's note to window"
    provider = scripted(
        [set_field(TEXT, "Bob", "note", "aisle", "note to aisle")],
        [set_field(second, "Bob", "note", "window", "note to window")],
    )
    async with SqliteStore.open(tmp_path / "shared.db") as store:
        await seed_store(store)
        async with running(provider, store=store, clock=clock, settings=_settings("wrk-a")) as (
            rt,
            _,
        ):
            session = await rt.open_session(account_id=ACCOUNT)
            await rt.handle_turn(rt.new_turn(session, TEXT, at=START))
            clock.advance(timedelta(seconds=20))  # past half the lease: renewed on the next turn
            response = await rt.handle_turn(rt.new_turn(session, second, at=START))
            assert response.phase is TurnPhase.DELIVERED
            other = await store.acquire_session_lease(
                ACCOUNT,
                session.session_id,
                worker_id="wrk-b",
                now=clock.now(),
                expires_at=clock.now() + timedelta(seconds=30),
            )
            assert other is None  # still wrk-a's
        # leaving the runtime released its leases
        freed = await store.acquire_session_lease(
            ACCOUNT,
            session.session_id,
            worker_id="wrk-b",
            now=clock.now(),
            expires_at=clock.now() + timedelta(seconds=30),
        )
        assert freed is not None
