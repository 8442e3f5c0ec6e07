"""Store faults around a send: the effect is performed at most once per key and recoverable."""

from __future__ import annotations

import pytest
from outbox_kit import LEASE, CommitEffects, MakeDispatcher, reload

from turnframe.clock import ManualClock
from turnframe.outbox import Settlement
from turnframe.stores import OutboxStatus, SqliteStore
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore, InjectedCrash
from turnframe.testing.senders import RecordingSender

pytestmark = pytest.mark.anyio


async def test_a_crash_before_outbox_dispatch_sends_nothing_and_the_reaped_row_is_sent_once(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    faulty = FaultyStore(store, FaultPlan.crash(FaultPoint.BEFORE_OUTBOX_DISPATCH))
    sender = RecordingSender()
    dispatcher = make_dispatcher({"refunds": sender}, on=faulty)

    with pytest.raises(InjectedCrash):
        await dispatcher.dispatch_once()
    assert sender.sends == []
    assert (await reload(store, row)).status is OutboxStatus.CLAIMED

    clock.advance(LEASE)
    assert await dispatcher.reap() == 1
    await dispatcher.dispatch_once()

    assert sender.keys_sent == [row.idempotency_key]
    assert (await reload(store, row)).status is OutboxStatus.COMPLETED


async def test_a_crash_after_outbox_dispatch_is_recovered_and_the_receiver_applies_the_effect_once(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    faulty = FaultyStore(store, FaultPlan.crash(FaultPoint.AFTER_OUTBOX_DISPATCH))
    sender = RecordingSender()
    dispatcher = make_dispatcher({"refunds": sender}, on=faulty)

    with pytest.RaisesGroup(InjectedCrash):
        await dispatcher.dispatch_once()
    assert (await reload(store, row)).status is OutboxStatus.CLAIMED  # sent, not recorded

    clock.advance(LEASE)
    await dispatcher.reap()
    await dispatcher.dispatch_once()

    assert sender.keys_sent == [row.idempotency_key, row.idempotency_key]
    assert sender.applied_keys == [row.idempotency_key]  # the receiver dedupes by key
    assert sender.duplicates == 1
    assert (await reload(store, row)).status is OutboxStatus.COMPLETED


async def test_a_store_timeout_after_outbox_dispatch_is_recorded_without_sending_again(
    store: SqliteStore, commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    [row] = await commit_effects("refund-1")
    faulty = FaultyStore(store, FaultPlan.timeout(FaultPoint.AFTER_OUTBOX_DISPATCH))
    sender = RecordingSender()
    dispatcher = make_dispatcher({"refunds": sender}, on=faulty)

    [sent] = (await dispatcher.dispatch_once()).effects

    assert sent.settlement is Settlement.COMPLETED
    assert faulty.hit_count(FaultPoint.AFTER_OUTBOX_DISPATCH) == 2
    assert len(sender.sends) == 1
    assert (await reload(store, row)).status is OutboxStatus.COMPLETED


async def test_a_store_that_keeps_timing_out_leaves_the_sent_row_claimed_for_the_reaper(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    plan = FaultPlan.timeout(FaultPoint.AFTER_OUTBOX_DISPATCH, times=None)
    sender = RecordingSender()
    broken = make_dispatcher({"refunds": sender}, on=FaultyStore(store, plan))

    [sent] = (await broken.dispatch_once()).effects
    assert sent.settlement is Settlement.UNSETTLED
    clock.advance(LEASE)
    healthy = make_dispatcher({"refunds": sender})
    await healthy.reap()
    await healthy.dispatch_once()

    assert sender.applied_keys == [row.idempotency_key]
    assert (await reload(store, row)).status is OutboxStatus.COMPLETED
