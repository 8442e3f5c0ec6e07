"""How sends are classified and settled, how effects are encoded, and what a dispatcher refuses."""

from __future__ import annotations

from datetime import timedelta

import pytest
from outbox_kit import (
    ACCOUNT,
    OTHER,
    CommitEffects,
    MakeDispatcher,
    commit_outbox_rows,
    commit_turn_with_effects,
    outcome_of,
    reload,
)

from turnframe.clock import ManualClock
from turnframe.errors import ConfigError
from turnframe.outbox import (
    OutboundEffect,
    OutboxDispatcher,
    RetryPolicy,
    SendResult,
    Settlement,
    effect_idempotency_key,
    encode_effect,
)
from turnframe.stores import NewOutboxEffect, OutboxStatus, SqliteStore
from turnframe.testing.senders import Crash, RecordingSender
from turnframe.workflow import ExternalEffect

pytestmark = pytest.mark.anyio


async def test_a_sender_that_raises_is_an_unknown_outcome_and_is_not_sent_again(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    sender = RecordingSender([Crash("connection reset")])
    dispatcher = make_dispatcher({"refunds": sender})

    [sent] = (await dispatcher.dispatch_once()).effects
    clock.advance(timedelta(hours=1))
    await dispatcher.dispatch_once()

    assert (sent.settlement, sent.reason) == (
        Settlement.OUTCOME_UNKNOWN,
        "turnframe.outbox.sender_crashed",
    )
    assert outcome_of(await reload(store, row))["detail"] == {
        "error": "RuntimeError",
        "message": "connection reset",
    }
    assert len(sender.sends) == 1


async def test_a_row_whose_channel_has_no_sender_waits_without_being_given_up(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1", channel="ledger")
    dispatcher = make_dispatcher(
        {"refunds": RecordingSender()},
        no_sender_delay=timedelta(minutes=5),
        retry=RetryPolicy(max_attempts=1),
    )

    [waiting] = (await dispatcher.dispatch_once()).effects

    assert (waiting.settlement, waiting.reason) == (
        Settlement.RETRY_SCHEDULED,
        "turnframe.outbox.no_sender",
    )
    assert waiting.retry_at == clock.now() + timedelta(minutes=5)
    assert (await reload(store, row)).status is OutboxStatus.PENDING


async def test_a_retryable_effect_that_used_up_its_attempts_is_settled_as_permanently_failed(
    store: SqliteStore,
    clock: ManualClock,
    commit_effects: CommitEffects,
    make_dispatcher: MakeDispatcher,
) -> None:
    [row] = await commit_effects("refund-1")
    busy = SendResult.retryable(reason="bank.busy")
    sender = RecordingSender(then=busy)
    dispatcher = make_dispatcher({"refunds": sender}, retry=RetryPolicy(max_attempts=2))

    await dispatcher.dispatch_once()
    clock.advance(timedelta(hours=1))
    [last] = (await dispatcher.dispatch_once()).effects

    assert (last.settlement, last.reason) == (
        Settlement.PERMANENT_FAILED,
        "turnframe.outbox.retries_exhausted",
    )
    assert len(sender.sends) == 2
    assert (await reload(store, row)).status is OutboxStatus.PERMANENT_FAILED


async def test_a_remote_retry_after_longer_than_the_backoff_is_honoured(
    clock: ManualClock, commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    await commit_effects("refund-1")
    later = SendResult.retryable(retry_after=timedelta(minutes=30))
    dispatcher = make_dispatcher({"refunds": RecordingSender([later])})

    [sent] = (await dispatcher.dispatch_once()).effects

    assert sent.retry_at == clock.now() + timedelta(minutes=30)


def test_backoff_doubles_from_its_initial_delay_up_to_its_cap() -> None:
    policy = RetryPolicy(initial=timedelta(seconds=1), maximum=timedelta(seconds=10))

    delays = [policy.delay(n).total_seconds() for n in range(1, 7)]

    assert delays == [1, 2, 4, 8, 10, 10]
    assert policy.delay(10_000) == timedelta(seconds=10)


async def test_a_malformed_row_is_settled_as_permanently_failed_without_a_send(
    store: SqliteStore, make_dispatcher: MakeDispatcher
) -> None:
    raw = NewOutboxEffect(idempotency_key="raw", payload={"mail": "hi"})
    [row] = await commit_outbox_rows(store, [raw], account=ACCOUNT)
    sender = RecordingSender()

    [sent] = (await make_dispatcher({"refunds": sender}).dispatch_once()).effects

    assert (sent.settlement, sent.reason) == (
        Settlement.PERMANENT_FAILED,
        "turnframe.outbox.malformed_effect",
    )
    assert sender.sends == []
    assert (await reload(store, row)).status is OutboxStatus.PERMANENT_FAILED


async def test_dispatch_scoped_to_one_account_leaves_other_accounts_rows_alone(
    store: SqliteStore, make_dispatcher: MakeDispatcher
) -> None:
    [mine] = await commit_turn_with_effects(store, ("a",), channel="refunds", account=ACCOUNT)
    [theirs] = await commit_turn_with_effects(store, ("b",), channel="refunds", account=OTHER)
    sender = RecordingSender()

    await make_dispatcher({"refunds": sender}).dispatch_once(account_id=OTHER)

    assert sender.keys_sent == [theirs.idempotency_key]
    assert (await reload(store, mine)).status is OutboxStatus.PENDING


def test_an_effect_is_written_with_its_channel_and_read_back_as_the_send_request() -> None:
    effect = ExternalEffect(channel="refunds", payload={"order": "o-1", "amount_cents": 500})

    assert encode_effect(effect) == {
        "channel": "refunds",
        "payload": {"order": "o-1", "amount_cents": 500},
    }


async def test_the_send_request_carries_the_rows_key_channel_payload_and_attempt(
    commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    [row] = await commit_effects("refund-1")
    sender = RecordingSender()

    await make_dispatcher({"refunds": sender}).dispatch_once()

    [sent] = sender.sends
    assert sent.effect == OutboundEffect(
        account_id=ACCOUNT,
        effect_id=row.effect_id,
        idempotency_key=effect_idempotency_key("refund-1"),
        channel="refunds",
        payload={"order": "refund-1", "amount_cents": 1250},
        attempt=1,
        turn_id=row.turn_id,
        command_id="refund-1",
    )


def test_the_effect_key_is_derived_from_the_command_key_alone() -> None:
    assert effect_idempotency_key("cmd-1") == effect_idempotency_key("cmd-1")
    assert effect_idempotency_key("cmd-1") != effect_idempotency_key("cmd-2")
    assert effect_idempotency_key("cmd-1") != "cmd-1"


async def test_a_lease_that_does_not_outlast_a_send_is_refused(
    store: SqliteStore, clock: ManualClock
) -> None:
    with pytest.raises(ConfigError, match="lease"):
        OutboxDispatcher(store, {}, clock, lease=timedelta(seconds=10), send_timeout=10.0)


def test_a_retry_after_on_a_result_that_is_not_retryable_is_refused() -> None:
    with pytest.raises(ValueError, match="retry_after"):
        SendResult(result=SendResult.completed().result, retry_after=timedelta(seconds=1))


async def test_a_sender_answering_an_outcome_that_is_not_json_is_an_unknown_outcome(
    store: SqliteStore, commit_effects: CommitEffects, make_dispatcher: MakeDispatcher
) -> None:
    [row] = await commit_effects("refund-1")

    class SloppySender:
        async def send(self, effect: OutboundEffect) -> SendResult:
            return SendResult.completed({"at": object()})

    [sent] = (await make_dispatcher({"refunds": SloppySender()}).dispatch_once()).effects

    assert (sent.settlement, sent.reason) == (
        Settlement.OUTCOME_UNKNOWN,
        "turnframe.outbox.sender_crashed",
    )
    assert (await reload(store, row)).status is OutboxStatus.OUTCOME_UNKNOWN
