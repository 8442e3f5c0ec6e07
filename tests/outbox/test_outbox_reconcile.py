"""Reconciliation: an unknown outcome is settled by asking the remote side, never by a re-send."""

from __future__ import annotations

import anyio
import pytest
from outbox_kit import CommitEffects, MakeDispatcher, reload

from turnframe.outbox import (
    OutboundEffect,
    OutboxDispatcher,
    ReconcileVerdict,
    Reconciliation,
    SendResult,
)
from turnframe.stores import OutboxRecord, OutboxStatus, SqliteStore
from turnframe.testing.scripted import ManualDeadline
from turnframe.testing.senders import Hang, RecordingSender, ScriptedReconciler

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def _unknown_row(
    commit_effects: CommitEffects, dispatcher: OutboxDispatcher, deadline: ManualDeadline
) -> OutboxRecord:
    [row] = await commit_effects("refund-1")
    deadline.expire()
    [sent] = (await dispatcher.dispatch_once()).effects
    assert sent.settlement.value == "outcome_unknown"
    return row


async def test_reconciliation_settles_an_unknown_row_as_completed(
    store: SqliteStore,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    sender = RecordingSender([Hang(applies=True)])
    dispatcher = make_dispatcher({"refunds": sender})
    row = await _unknown_row(commit_effects, dispatcher, deadline)
    reconciler = ScriptedReconciler({row.idempotency_key: Reconciliation.completed({"id": "r-1"})})

    report = await dispatcher.reconcile(reconciler)
    await dispatcher.dispatch_once()

    assert [e.verdict for e in report.effects] == [ReconcileVerdict.COMPLETED]
    assert reconciler.asked == [row.idempotency_key]
    settled = await reload(store, row)
    assert settled.status is OutboxStatus.COMPLETED
    assert settled.outcome == {"reconciled": "completed", "detail": {"id": "r-1"}}
    assert len(sender.sends) == 1
    assert sender.applied_keys == [row.idempotency_key]


async def test_a_row_that_certainly_did_not_happen_is_sent_again_with_the_same_key(
    store: SqliteStore,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    sender = RecordingSender([Hang()])
    dispatcher = make_dispatcher({"refunds": sender})
    row = await _unknown_row(commit_effects, dispatcher, deadline)
    reconciler = ScriptedReconciler({row.idempotency_key: Reconciliation.not_happened()})

    await dispatcher.reconcile(reconciler)
    assert (await reload(store, row)).status is OutboxStatus.PENDING
    await dispatcher.dispatch_once()

    assert sender.keys_sent == [row.idempotency_key, row.idempotency_key]
    assert sender.applied_keys == [row.idempotency_key]
    assert (await reload(store, row)).status is OutboxStatus.COMPLETED


async def test_a_row_the_remote_side_refused_is_settled_as_permanently_failed(
    store: SqliteStore,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    dispatcher = make_dispatcher({"refunds": RecordingSender([Hang()])})
    row = await _unknown_row(commit_effects, dispatcher, deadline)

    await dispatcher.reconcile(
        ScriptedReconciler({row.idempotency_key: Reconciliation.failed({"code": "closed"})})
    )

    assert (await reload(store, row)).status is OutboxStatus.PERMANENT_FAILED


async def test_a_row_still_unknown_to_the_remote_side_stays_unknown_and_unsent(
    store: SqliteStore,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    sender = RecordingSender([Hang()])
    dispatcher = make_dispatcher({"refunds": sender})
    row = await _unknown_row(commit_effects, dispatcher, deadline)

    report = await dispatcher.reconcile(ScriptedReconciler())
    await dispatcher.dispatch_once()

    assert [e.verdict for e in report.effects] == [ReconcileVerdict.STILL_UNKNOWN]
    assert (await reload(store, row)).status is OutboxStatus.OUTCOME_UNKNOWN
    assert len(sender.sends) == 1


async def test_a_reconciler_that_does_not_answer_in_time_leaves_the_row_unknown(
    store: SqliteStore,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
    deadline: ManualDeadline,
) -> None:
    dispatcher = make_dispatcher({"refunds": RecordingSender([Hang()])}, reconcile_timeout=3.0)
    row = await _unknown_row(commit_effects, dispatcher, deadline)

    class SilentReconciler:
        async def check(self, effect: OutboundEffect) -> Reconciliation:
            await anyio.Event().wait()  # never answers
            raise AssertionError("unreachable")

    deadline.expire()
    report = await dispatcher.reconcile(SilentReconciler())

    assert [e.verdict for e in report.effects] == [ReconcileVerdict.STILL_UNKNOWN]
    assert (await reload(store, row)).status is OutboxStatus.OUTCOME_UNKNOWN
    assert deadline.requested[-1] == 3.0


async def test_reconciliation_only_asks_about_unknown_rows(
    commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    await commit_effects("refund-1")
    dispatcher = make_dispatcher({"refunds": RecordingSender([SendResult.completed()])})
    await dispatcher.dispatch_once()
    reconciler = ScriptedReconciler()

    report = await dispatcher.reconcile(reconciler)

    assert (report.effects, reconciler.asked) == ((), [])
