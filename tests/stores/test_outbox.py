"""The outbox: leased claims, settled once, unknown outcomes reconciled, expired leases reaped."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from store_kit import ACCOUNT, OTHER, MakeTurn

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.stores import (
    CommitBundle,
    LeaseLost,
    NewOutboxEffect,
    OutboxRecord,
    OutboxResult,
    OutboxStatus,
    StatusConflict,
    Store,
)

pytestmark = pytest.mark.anyio

LEASE = timedelta(seconds=30)


async def _commit_effect(
    store: Store,
    make_turn: MakeTurn,
    key: str = "send-1",
    account: str = ACCOUNT,
    available_at: datetime | None = None,
) -> OutboxRecord:
    turn = await make_turn(account, phase=TurnPhase.EXECUTING)
    receipt = await store.commit_bundle(
        CommitBundle(
            account_id=account,
            turn_id=turn.turn_id,
            outbox=[
                NewOutboxEffect(
                    idempotency_key=key, payload={"mail": key}, available_at=available_at
                )
            ],
        )
    )
    return receipt.outbox[0]


async def _claim(store: Store, clock: ManualClock, token: str = "w1") -> list[OutboxRecord]:
    now = clock.now()
    return await store.claim_outbox(
        account_id=None, claim_token=token, now=now, lease_expires_at=now + LEASE
    )


async def test_a_committed_effect_is_pending_until_claimed(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    effect = await _commit_effect(store, make_turn)
    assert (effect.status, effect.attempts) == (OutboxStatus.PENDING, 0)
    [claimed] = await _claim(store, clock)
    assert claimed.effect_id == effect.effect_id
    assert (claimed.status, claimed.claim_token, claimed.attempts) == (
        OutboxStatus.CLAIMED,
        "w1",
        1,
    )
    assert claimed.lease_expires_at == clock.now() + LEASE


async def test_a_claimed_effect_is_not_claimed_again(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    assert len(await _claim(store, clock, "w1")) == 1
    assert await _claim(store, clock, "w2") == []


async def test_an_effect_not_yet_available_is_not_claimed(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn, available_at=clock.now() + timedelta(minutes=5))
    assert await _claim(store, clock) == []
    clock.advance(timedelta(minutes=5))
    assert len(await _claim(store, clock)) == 1


async def test_claims_can_be_scoped_to_one_account(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn, "mine", ACCOUNT)
    await _commit_effect(store, make_turn, "theirs", OTHER)
    now = clock.now()
    claimed = await store.claim_outbox(
        account_id=OTHER, claim_token="w", now=now, lease_expires_at=now + LEASE
    )
    assert [(c.account_id, c.idempotency_key) for c in claimed] == [(OTHER, "theirs")]


async def test_a_completed_send_records_its_outcome(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    [claimed] = await _claim(store, clock)
    done = await store.settle_outbox(
        ACCOUNT,
        claimed.effect_id,
        claim_token="w1",
        result=OutboxResult.COMPLETED,
        outcome={"message_id": "m-1"},
    )
    assert (done.status, done.outcome, done.claim_token) == (
        OutboxStatus.COMPLETED,
        {"message_id": "m-1"},
        None,
    )


async def test_a_retryable_send_goes_back_to_pending_at_the_retry_time(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    [claimed] = await _claim(store, clock)
    retry_at = clock.now() + timedelta(seconds=10)
    again = await store.settle_outbox(
        ACCOUNT,
        claimed.effect_id,
        claim_token="w1",
        result=OutboxResult.RETRYABLE,
        retry_at=retry_at,
    )
    assert (again.status, again.available_at) == (OutboxStatus.PENDING, retry_at)
    assert await _claim(store, clock) == []
    clock.advance(timedelta(seconds=10))
    [reclaimed] = await _claim(store, clock)
    assert reclaimed.attempts == 2


async def test_an_unknown_outcome_waits_for_reconciliation_and_is_never_reclaimed(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    [claimed] = await _claim(store, clock)
    await store.settle_outbox(
        ACCOUNT, claimed.effect_id, claim_token="w1", result=OutboxResult.OUTCOME_UNKNOWN
    )
    clock.advance(timedelta(hours=1))
    assert await _claim(store, clock) == []
    assert await store.release_expired_claims(now=clock.now()) == 0
    unknown = await store.list_outbox(None, status=OutboxStatus.OUTCOME_UNKNOWN)
    assert [u.effect_id for u in unknown] == [claimed.effect_id]


async def test_reconciliation_settles_an_unknown_outcome(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    [claimed] = await _claim(store, clock)
    await store.settle_outbox(
        ACCOUNT, claimed.effect_id, claim_token="w1", result=OutboxResult.OUTCOME_UNKNOWN
    )
    settled = await store.reconcile_outbox(
        ACCOUNT, claimed.effect_id, result=OutboxResult.COMPLETED, outcome={"found": True}
    )
    assert (settled.status, settled.outcome) == (OutboxStatus.COMPLETED, {"found": True})
    with pytest.raises(StatusConflict):
        await store.reconcile_outbox(ACCOUNT, claimed.effect_id, result=OutboxResult.COMPLETED)


async def test_settling_under_another_claim_token_is_refused(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    [claimed] = await _claim(store, clock, "w1")
    with pytest.raises(LeaseLost):
        await store.settle_outbox(
            ACCOUNT, claimed.effect_id, claim_token="w2", result=OutboxResult.COMPLETED
        )
    stored = await store.get_outbox(ACCOUNT, claimed.effect_id)
    assert stored is not None and stored.status is OutboxStatus.CLAIMED


async def test_the_reaper_releases_only_expired_claims(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn, "early")
    [early] = await _claim(store, clock, "w1")
    clock.advance(timedelta(seconds=20))
    await _commit_effect(store, make_turn, "late")
    [late] = await _claim(store, clock, "w2")
    clock.advance(timedelta(seconds=10))
    assert await store.release_expired_claims(now=clock.now()) == 1
    released = await store.get_outbox(ACCOUNT, early.effect_id)
    kept = await store.get_outbox(ACCOUNT, late.effect_id)
    assert released is not None and released.status is OutboxStatus.PENDING
    assert released.claim_token is None
    assert kept is not None and kept.status is OutboxStatus.CLAIMED


async def test_a_reaped_claim_cannot_be_settled_by_its_old_token(
    store: Store, make_turn: MakeTurn, clock: ManualClock
) -> None:
    await _commit_effect(store, make_turn)
    [claimed] = await _claim(store, clock, "w1")
    clock.advance(LEASE)
    await store.release_expired_claims(now=clock.now())
    with pytest.raises(LeaseLost):
        await store.settle_outbox(
            ACCOUNT, claimed.effect_id, claim_token="w1", result=OutboxResult.COMPLETED
        )
    [reclaimed] = await _claim(store, clock, "w2")
    assert (reclaimed.idempotency_key, reclaimed.attempts) == ("send-1", 2)
