"""Dispatching committed effects: each send classified and settled, re-sent with the same key."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest
from outbox_kit import ACCOUNT, LEASE, CommitEffects, MakeDispatcher, outcome_of, reload

from turnframe.clock import ManualClock
from turnframe.outbox import Reconciliation, SendResult, Settlement
from turnframe.stores import OutboxStatus, SqliteStore
from turnframe.testing.scripted import ManualDeadline
from turnframe.testing.senders import Hang, RecordingSender, ScriptedReconciler

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_a_completed_send_marks_the_row_completed_once(
    store: SqliteStore, commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    [row] = await commit_effects("refund-1")
    sender = RecordingSender(then=SendResult.completed({"refund_id": "r-9"}))
    dispatcher = make_dispatcher({"refunds": sender})

    report = await dispatcher.dispatch_once()
    again = await dispatcher.dispatch_once()

    assert [e.settlement for e in report.effects] == [Settlement.COMPLETED]
    assert again.claimed == 0
    assert sender.keys_sent == [row.idempotency_key]
    done = await reload(store, row)
    assert (done.status, done.attempts) == (OutboxStatus.COMPLETED, 1)
    assert done.outcome == {"result": "completed", "reason": None, "detail": {"refund_id": "r-9"}}


async def test_a_retryable_failure_is_sent_again_later_with_the_same_idempotency_key(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    sender = RecordingSender([SendResult.retryable(reason="bank.busy")])
    dispatcher = make_dispatcher({"refunds": sender})

    [first] = (await dispatcher.dispatch_once()).effects
    assert first.settlement is Settlement.RETRY_SCHEDULED
    assert (await dispatcher.dispatch_once()).claimed == 0  # not before its retry time
    assert first.retry_at is not None
    clock.at = first.retry_at
    [second] = (await dispatcher.dispatch_once()).effects

    assert second.settlement is Settlement.COMPLETED
    assert sender.keys_sent == [row.idempotency_key, row.idempotency_key]
    assert (await reload(store, row)).attempts == 2


async def test_a_permanent_failure_is_not_sent_again(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    sender = RecordingSender([SendResult.permanent(reason="bank.account_closed")])
    dispatcher = make_dispatcher({"refunds": sender})

    await dispatcher.dispatch_once()
    clock.advance(timedelta(days=1))
    await dispatcher.reap()
    await dispatcher.dispatch_once()

    assert len(sender.sends) == 1
    assert (await reload(store, row)).status is OutboxStatus.PERMANENT_FAILED


async def test_a_send_that_times_out_becomes_outcome_unknown_and_is_never_sent_again(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    [row] = await commit_effects("refund-1")
    sender = RecordingSender([Hang()])
    dispatcher = make_dispatcher({"refunds": sender}, send_timeout=5.0)
    deadline.expire()  # the send's deadline passes while the remote side stays silent

    [sent] = (await dispatcher.dispatch_once()).effects
    clock.advance(LEASE * 10)
    await dispatcher.reap()
    later = await dispatcher.dispatch_once()

    assert sent.settlement is Settlement.OUTCOME_UNKNOWN
    assert later.claimed == 0
    assert len(sender.sends) == 1
    unknown = await reload(store, row)
    assert unknown.status is OutboxStatus.OUTCOME_UNKNOWN
    assert outcome_of(unknown)["reason"] == "turnframe.outbox.send_timed_out"
    assert deadline.requested == [5.0]


async def test_an_expired_claim_is_released_by_the_reaper_and_sent_again_with_the_same_key(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    now = clock.now()
    # a dispatcher that claimed the row and died before sending or settling it
    await store.claim_outbox(
        account_id=None, claim_token="dead", now=now, lease_expires_at=now + LEASE
    )
    sender = RecordingSender()
    dispatcher = make_dispatcher({"refunds": sender})

    assert await dispatcher.reap() == 0  # the lease still runs
    clock.advance(LEASE)
    assert await dispatcher.reap() == 1
    await dispatcher.dispatch_once()

    assert sender.keys_sent == [row.idempotency_key]
    assert sender.applied_keys == [row.idempotency_key]
    done = await reload(store, row)
    assert (done.status, done.attempts) == (OutboxStatus.COMPLETED, 2)


async def test_two_dispatchers_racing_claim_disjoint_rows(
    store: SqliteStore, commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    rows = await commit_effects(*(f"refund-{n}" for n in range(8)))
    senders = [RecordingSender(), RecordingSender()]
    dispatchers = [make_dispatcher({"refunds": s}, batch_size=2) for s in senders]

    async def drain(index: int) -> None:
        while (await dispatchers[index].dispatch_once()).claimed:
            await anyio.lowlevel.checkpoint()

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(drain, 0)
            tg.start_soon(drain, 1)

    first, second = (set(s.keys_sent) for s in senders)
    assert first.isdisjoint(second)
    assert sorted(first | second) == sorted(r.idempotency_key for r in rows)
    assert sum(len(s.sends) for s in senders) == len(rows)
    completed = await store.list_outbox(ACCOUNT, status=OutboxStatus.COMPLETED)
    assert len(completed) == len(rows)


async def test_an_expired_claim_of_a_sender_without_idempotency_keys_is_reconciled_not_resent(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    now = clock.now()
    # a dispatcher that claimed the row and died: it may have sent it or not
    await store.claim_outbox(
        account_id=None, claim_token="dead", now=now, lease_expires_at=now + LEASE
    )
    sender = RecordingSender(idempotency_keys=False)  # its receiver does not dedupe
    dispatcher = make_dispatcher({"refunds": sender})
    clock.advance(LEASE)
    assert await dispatcher.reap() == 1
    await dispatcher.dispatch_once()
    assert sender.sends == []  # never re-sent blind
    unknown = await reload(store, row)
    assert unknown.status is OutboxStatus.OUTCOME_UNKNOWN
    assert outcome_of(unknown)["reason"] == "turnframe.outbox.claim_expired"

    report = await dispatcher.reconcile(
        ScriptedReconciler({row.idempotency_key: Reconciliation.completed()})
    )
    assert [e.effect_id for e in report.effects] == [row.effect_id]
    done = await reload(store, row)
    assert done.status is OutboxStatus.COMPLETED
    assert sender.sends == []
