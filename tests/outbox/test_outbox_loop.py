"""The dispatcher loop the runtime drives: woken by notify, polling otherwise, cancellable."""

from __future__ import annotations

from functools import partial

import anyio
import pytest
from outbox_kit import LEASE, CommitEffects, MakeDispatcher, outcome_of, reload

from turnframe.clock import ManualClock
from turnframe.outbox import DispatcherAlreadyRunning, DispatchReport, Reconciliation, Settlement
from turnframe.stores import OutboxStatus, SqliteStore
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.scripted import ManualDeadline
from turnframe.testing.senders import Hang, RecordingSender, ScriptedReconciler

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Settled:
    """An ``on_report`` observer: wait until some row reached a settlement."""

    def __init__(self) -> None:
        self.reports: list[DispatchReport] = []
        self._events: dict[Settlement, anyio.Event] = {}

    def __call__(self, report: DispatchReport) -> None:
        self.reports.append(report)
        for effect in report.effects:
            self._event(effect.settlement).set()

    def _event(self, settlement: Settlement) -> anyio.Event:
        return self._events.setdefault(settlement, anyio.Event())

    async def wait_for(self, settlement: Settlement) -> None:
        with anyio.fail_after(5):
            await self._event(settlement).wait()


async def test_the_loop_sends_a_row_committed_after_it_started_when_notified(
    store: SqliteStore, commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    sender, settled = RecordingSender(), Settled()
    dispatcher = make_dispatcher({"refunds": sender}, on_report=settled)
    async with anyio.create_task_group() as tg:
        await tg.start(dispatcher.run)
        [row] = await commit_effects("refund-1")
        dispatcher.notify()
        await settled.wait_for(Settlement.COMPLETED)
        tg.cancel_scope.cancel()

    assert sender.keys_sent == [row.idempotency_key]
    assert (await reload(store, row)).status is OutboxStatus.COMPLETED


async def test_the_loop_polls_for_rows_when_nobody_notifies_it(
    commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    poll, settled = ManualDeadline(), Settled()
    dispatcher = make_dispatcher({"refunds": RecordingSender()}, sleep=poll, on_report=settled)
    async with anyio.create_task_group() as tg:
        await tg.start(dispatcher.run)
        await commit_effects("refund-1")
        poll.expire()
        await settled.wait_for(Settlement.COMPLETED)
        tg.cancel_scope.cancel()

    assert 1.0 in poll.requested


async def test_the_loop_stops_cleanly_on_cancellation_and_a_send_in_flight_becomes_unknown(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    sender = RecordingSender([Hang()])
    dispatcher = make_dispatcher({"refunds": sender})
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            await tg.start(dispatcher.run)
            [row] = await commit_effects("refund-1")
            dispatcher.notify()
            await sender.wait_for_sends(1)
            tg.cancel_scope.cancel()

    stopped = await reload(store, row)
    assert stopped.status is OutboxStatus.OUTCOME_UNKNOWN
    assert outcome_of(stopped)["reason"] == "turnframe.outbox.cancelled_in_flight"
    clock.advance(LEASE)
    successor = make_dispatcher({"refunds": sender})
    await successor.reap()
    await successor.dispatch_once()
    assert len(sender.sends) == 1


async def test_a_dispatcher_runs_one_loop_at_a_time(make_dispatcher: MakeDispatcher) -> None:
    dispatcher = make_dispatcher({"refunds": RecordingSender()})
    async with anyio.create_task_group() as tg:
        await tg.start(dispatcher.run)
        with pytest.raises(DispatcherAlreadyRunning):
            await dispatcher.run()
        tg.cancel_scope.cancel()


async def test_the_loop_reconciles_unknown_rows_when_given_a_reconciler(
    store: SqliteStore,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    [row] = await commit_effects("refund-1")
    dispatcher = make_dispatcher({"refunds": RecordingSender([Hang()])})
    deadline.expire()
    await dispatcher.dispatch_once()
    reconciler = ScriptedReconciler({row.idempotency_key: Reconciliation.completed()})

    async with anyio.create_task_group() as tg:
        await tg.start(partial(dispatcher.run, reconciler=reconciler))
        tg.cancel_scope.cancel()

    assert (await reload(store, row)).status is OutboxStatus.COMPLETED


async def test_a_store_timeout_in_a_pass_does_not_stop_the_loop(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    faulty = FaultyStore(store, FaultPlan.timeout(FaultPoint.BEFORE_OUTBOX_DISPATCH))
    sender, settled = RecordingSender(), Settled()
    dispatcher = make_dispatcher({"refunds": sender}, on=faulty, on_report=settled)
    async with anyio.create_task_group() as tg:
        await tg.start(dispatcher.run)  # its first pass claimed the row, then timed out
        assert (await reload(store, row)).status is OutboxStatus.CLAIMED
        clock.advance(LEASE)
        dispatcher.notify()
        await settled.wait_for(Settlement.COMPLETED)
        tg.cancel_scope.cancel()

    assert sender.keys_sent == [row.idempotency_key]
