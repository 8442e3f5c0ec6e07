"""The turn inbox, worker claims, the lease log and the lease fence (ADR 0018), on every store."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest
from store_kit import ACCOUNT, OTHER, entry

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.stores import Store
from turnframe.stores.fencing import FencedStore, SessionLeaseLost
from turnframe.stores.inbox import LeaseEvent
from turnframe.stores.inputs import PhaseMove, TurnSeal
from turnframe.stores.records import SessionRecord

pytestmark = pytest.mark.anyio

LEASE = timedelta(seconds=30)


async def _session(
    store: Store, account: str = ACCOUNT, workflow: str = "tickets"
) -> SessionRecord:
    return await store.create_session(account_id=account, workflow=workflow)


async def _submit(store: Store, session: SessionRecord, text: str, key: str | None = None) -> str:
    record = await store.submit_turn(
        account_id=session.account_id,
        session_id=session.session_id,
        payload={"text": text},
        idempotency_key=key,
    )
    return record.turn_id


async def test_a_submitted_turn_waits_in_the_inbox_in_phase_received(store: Store) -> None:
    session = await _session(store)
    turn_id = await _submit(store, session, "hello")
    record = await store.get_turn(ACCOUNT, turn_id)
    assert record is not None and record.phase is TurnPhase.RECEIVED
    pending = await store.list_pending_turns(ACCOUNT, session.session_id)
    assert [t.turn_id for t in pending] == [turn_id]


async def test_submitting_the_same_client_turn_id_twice_is_one_turn(store: Store) -> None:
    session = await _session(store)
    first = await _submit(store, session, "hello", key="client-1")
    again = await _submit(store, session, "hello", key="client-1")
    assert first == again
    assert len(await store.list_session_turns(ACCOUNT, session.session_id)) == 1


async def test_a_sessions_pending_turns_come_in_submission_order_without_ended_ones(
    store: Store,
) -> None:
    session = await _session(store)
    ids = [await _submit(store, session, f"turn {i}") for i in range(5)]
    await store.advance_phase(ACCOUNT, ids[0], TurnPhase.RECEIVED, TurnPhase.FAILED)
    pending = await store.list_pending_turns(ACCOUNT, session.session_id)
    assert [t.turn_id for t in pending] == ids[1:]


async def test_a_claim_leases_sessions_with_pending_turns_oldest_first_under_a_new_epoch(
    store: Store, clock: ManualClock
) -> None:
    idle = await _session(store)
    second, first = await _session(store), await _session(store, OTHER)
    await _submit(store, first, "a")
    await _submit(store, second, "b")
    now = clock.now()
    claimed = await store.claim_sessions(worker_id="w1", now=now, expires_at=now + LEASE)
    assert [(c.session_id, c.epoch, c.taken_over) for c in claimed] == [
        (first.session_id, 1, False),
        (second.session_id, 1, False),
    ]
    assert idle.session_id not in {c.session_id for c in claimed}
    log = await store.list_lease_log()
    assert [(e.session_id, e.worker_id, e.event, e.epoch) for e in log] == [
        (first.session_id, "w1", LeaseEvent.ACQUIRED, 1),
        (second.session_id, "w1", LeaseEvent.ACQUIRED, 1),
    ]


async def test_a_session_is_claimed_by_one_worker_until_its_lease_expires(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    await _submit(store, session, "a")
    now = clock.now()
    assert len(await store.claim_sessions(worker_id="w1", now=now, expires_at=now + LEASE)) == 1
    assert await store.claim_sessions(worker_id="w2", now=now, expires_at=now + LEASE) == []
    # w1 never claims what it holds again, even lapsed; w2 takes it over once it expired.
    later = now + LEASE
    assert await store.claim_sessions(worker_id="w1", now=later, expires_at=later + LEASE) == []
    (taken,) = await store.claim_sessions(worker_id="w2", now=later, expires_at=later + LEASE)
    assert (taken.taken_over, taken.previous_worker, taken.epoch) == (True, "w1", 2)
    events = [(e.event, e.worker_id, e.epoch) for e in await store.list_lease_log()]
    assert events[-1] == (LeaseEvent.TAKEN_OVER, "w2", 2)


async def test_a_claim_can_be_limited_to_some_workflows(store: Store, clock: ManualClock) -> None:
    tickets, refunds = await _session(store), await _session(store, workflow="refunds")
    await _submit(store, tickets, "a")
    await _submit(store, refunds, "b")
    now = clock.now()
    claimed = await store.claim_sessions(
        worker_id="w1", now=now, expires_at=now + LEASE, workflows=["refunds"]
    )
    assert [c.session_id for c in claimed] == [refunds.session_id]


async def test_concurrent_claims_never_lease_one_session_twice(
    store: Store, clock: ManualClock
) -> None:
    sessions = [await _session(store) for _ in range(12)]
    for session in sessions:
        await _submit(store, session, "hi")
    now = clock.now()
    won: dict[str, list[str]] = {}

    async def claim(worker: str) -> None:
        for _ in range(4):
            for lease in await store.claim_sessions(
                worker_id=worker, now=now, expires_at=now + LEASE, limit=2
            ):
                won.setdefault(lease.session_id, []).append(worker)

    async with anyio.create_task_group() as group:
        for worker in ("w1", "w2", "w3"):
            group.start_soon(claim, worker)
    assert sorted(won) == sorted(s.session_id for s in sessions)
    assert all(len(workers) == 1 for workers in won.values())


async def test_renewals_and_releases_are_logged_with_their_epoch(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    now = clock.now()
    sid = session.session_id
    await store.acquire_session_lease(ACCOUNT, sid, worker_id="w1", now=now, expires_at=now + LEASE)
    await store.acquire_session_lease(
        ACCOUNT, sid, worker_id="w1", now=now, expires_at=now + 2 * LEASE
    )
    await store.release_session_lease(ACCOUNT, sid, worker_id="w1")
    log = await store.list_lease_log(account_id=ACCOUNT, session_id=sid)
    assert [(e.event, e.epoch) for e in log] == [
        (LeaseEvent.ACQUIRED, 1),
        (LeaseEvent.RENEWED, 1),
        (LeaseEvent.RELEASED, 1),
    ]
    assert log[1].expires_at == now + 2 * LEASE


async def test_a_worker_that_lost_the_lease_can_write_nothing_for_the_session(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    turn_id = await _submit(store, session, "hi")
    now = clock.now()
    (lease,) = await store.claim_sessions(worker_id="w1", now=now, expires_at=now + LEASE)
    stale = FencedStore(store, lambda a, s: ("w1", lease.epoch))
    later = now + LEASE
    await store.claim_sessions(worker_id="w2", now=later, expires_at=later + LEASE)
    with pytest.raises(SessionLeaseLost):
        await stale.save_thread_context(ACCOUNT, session.session_id, {"thread": "stale"})
    with pytest.raises(SessionLeaseLost):
        await stale.advance_phase(ACCOUNT, turn_id, TurnPhase.RECEIVED, TurnPhase.FAILED)
    record = await store.get_turn(ACCOUNT, turn_id)
    assert record is not None and record.phase is TurnPhase.RECEIVED
    stored = await store.get_session(ACCOUNT, session.session_id)
    assert stored is not None and stored.thread_context != {"thread": "stale"}


async def test_the_lease_holder_writes_through_the_fence(store: Store, clock: ManualClock) -> None:
    session = await _session(store)
    turn_id = await _submit(store, session, "hi")
    now = clock.now()
    (lease,) = await store.claim_sessions(worker_id="w1", now=now, expires_at=now + LEASE)
    holder = FencedStore(store, lambda a, s: ("w1", lease.epoch))
    await holder.save_thread_context(ACCOUNT, session.session_id, {"thread": "mine"})
    moved = await holder.advance_phase(ACCOUNT, turn_id, TurnPhase.RECEIVED, TurnPhase.FAILED)
    assert moved.phase is TurnPhase.FAILED
    # An older epoch of the same worker is refused too (it re-claimed the session since).
    older = FencedStore(store, lambda a, s: ("w1", lease.epoch - 1))
    with pytest.raises(SessionLeaseLost):
        await older.save_thread_context(ACCOUNT, session.session_id, {"thread": "old"})


async def test_a_worker_that_lost_the_lease_cannot_seal_a_turn_of_the_session(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    turn_id = await _submit(store, session, "hi")
    now = clock.now()
    (lease,) = await store.claim_sessions(worker_id="w1", now=now, expires_at=now + LEASE)
    stale = FencedStore(store, lambda a, s: ("w1", lease.epoch))
    later = now + LEASE
    (taken,) = await store.claim_sessions(worker_id="w2", now=later, expires_at=later + LEASE)
    seal = TurnSeal(
        plan={"plan": {"acts": []}},
        reduction={"results": []},
        entries=(entry("k-stale"),),
        phase=PhaseMove(expected=TurnPhase.RECEIVED, new=TurnPhase.EXECUTING),
    )
    with pytest.raises(SessionLeaseLost):
        await stale.seal_turn(ACCOUNT, turn_id, seal)
    record = await store.get_turn(ACCOUNT, turn_id)
    assert record is not None and record.phase is TurnPhase.RECEIVED
    assert record.plan is None and record.reduction is None
    assert await store.get_journal_entry(ACCOUNT, "k-stale") is None
    # The worker holding the lease now seals it.
    holder = FencedStore(store, lambda a, s: ("w2", taken.epoch))
    receipt = await holder.seal_turn(ACCOUNT, turn_id, seal)
    assert [a.entry.idempotency_key for a in receipt.admissions] == ["k-stale"]
