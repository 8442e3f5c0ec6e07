"""``Runtime.submit`` / ``wait`` and the worker that serves the inbox (ADR 0018)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from desk_kit import ACCOUNT, CLOCK, desk_runtime, seed

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.runtime import RuntimeSettings
from turnframe.runtime.inbox import ClientTurnIdReused, TurnNotDelivered
from turnframe.runtime.worker import Worker, WorkerSettings
from turnframe.stores import SqliteStore
from turnframe.stores.inbox import LeaseEvent

pytestmark = pytest.mark.anyio

DESK = "travel-desk"


def _worker_settings(name: str) -> RuntimeSettings:
    return RuntimeSettings(
        pool_size=2,
        ask_timeout=10.0,
        session_lease_seconds=30.0,
        worker_id=name,
        serve_orphans=False,
    )


async def test_a_submitted_turn_is_served_by_a_worker_and_waited_for(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "t.db", clock=ManualClock(at=CLOCK)) as store:
        async with desk_runtime(DESK, store=store) as (front, _):
            await seed(store, DESK)
            session = await front.open_session(account_id=ACCOUNT)
            first = await front.submit(
                session.session_id, "Set the note to aisle.", account=ACCOUNT
            )
            second = await front.submit(session.session_id, "Thanks!", account=ACCOUNT)
            waiting = await store.get_turn(ACCOUNT, first)
            assert waiting is not None and waiting.phase is TurnPhase.RECEIVED
            with pytest.raises(TurnNotDelivered):
                await front.wait(first, account=ACCOUNT, timeout=0.05)
        async with desk_runtime(DESK, store=store, settings=_worker_settings("w1")) as (rt, _):
            counters = await Worker(rt).run(once=True)
            response = await rt.wait(first, account=ACCOUNT, timeout=5)
        assert counters.delivered == 2 and counters.sessions == 1
        assert response.phase is TurnPhase.DELIVERED
        assert [e.name for e in response.events] == ["field_set"]
        turns = await store.list_session_turns(ACCOUNT, session.session_id)
        assert [(t.turn_id, t.phase) for t in turns] == [
            (first, TurnPhase.DELIVERED),
            (second, TurnPhase.DELIVERED),
        ]
        log = await store.list_lease_log(session_id=session.session_id)
        assert [(e.worker_id, e.event) for e in log] == [
            ("w1", LeaseEvent.ACQUIRED),
            ("w1", LeaseEvent.RELEASED),
        ]


async def test_the_same_client_turn_id_submitted_twice_is_one_turn(tmp_path: Path) -> None:
    async with desk_runtime(DESK) as (rt, store):
        session = await rt.open_session(account_id=ACCOUNT)
        one = await rt.submit(session.session_id, "Thanks!", account=ACCOUNT, client_turn_id="c1")
        two = await rt.submit(session.session_id, "Thanks!", account=ACCOUNT, client_turn_id="c1")
        assert one == two
        assert len(await store.list_session_turns(ACCOUNT, session.session_id)) == 1
        with pytest.raises(ClientTurnIdReused):
            await rt.submit(session.session_id, "Other", account=ACCOUNT, client_turn_id="c1")


async def test_a_draining_worker_hands_its_sessions_back_and_returns(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "t.db") as store:
        async with desk_runtime(DESK, store=store, settings=_worker_settings("w1")) as (rt, _):
            worker = Worker(rt, WorkerSettings(poll_max=0.05))
            async with anyio.create_task_group() as group:
                group.start_soon(worker.run)
                session = await rt.open_session(account_id=ACCOUNT)
                turn_id = await rt.submit(session.session_id, "Thanks!", account=ACCOUNT)
                response = await rt.wait(turn_id, account=ACCOUNT, timeout=10)
                worker.drain()
            assert response.phase is TurnPhase.DELIVERED
        stored = await store.get_session(ACCOUNT, session.session_id)
        assert stored is not None
        log = await store.list_lease_log(session_id=session.session_id)
        assert log[-1].event is LeaseEvent.RELEASED


async def test_a_drain_past_its_grace_cancels_a_stuck_turn_and_hands_its_session_back(
    tmp_path: Path,
) -> None:
    from turnframe.examples import sample
    from turnframe.providers.rules import RulesProvider

    asked = anyio.Event()

    class Stuck(RulesProvider):
        async def complete(self, request: Any) -> Any:
            asked.set()
            await anyio.sleep_forever()

    desk = sample(DESK)
    async with SqliteStore.open(tmp_path / "t.db") as store:
        settings = _worker_settings("w1")
        async with desk_runtime(
            DESK, store=store, settings=settings, provider=Stuck(workflows=[desk.workflow])
        ) as (rt, _):
            session = await rt.open_session(account_id=ACCOUNT)
            turn_id = await rt.submit(session.session_id, "Set the note to aisle.", account=ACCOUNT)
            worker = Worker(rt, WorkerSettings(grace_seconds=0.1))
            async with anyio.create_task_group() as group:
                group.start_soon(worker.run)
                await asked.wait()
                worker.drain()
        record = await store.get_turn(ACCOUNT, turn_id)
        assert record is not None and not record.phase.is_terminal  # it resumes elsewhere
        log = await store.list_lease_log(session_id=session.session_id)
        assert log[-1].event is LeaseEvent.RELEASED
