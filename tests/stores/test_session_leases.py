"""Session leases: several workers share one database, each live session served by one at a time."""

from __future__ import annotations

from datetime import datetime, timedelta

import anyio
import pytest
from store_kit import ACCOUNT, OTHER, StoreFactory

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.stores import NotFound, SessionLease, SessionRecord, Store

pytestmark = pytest.mark.anyio

#: An account that holds nothing: every id is unknown there.
EMPTY = "acct-empty"
LEASE = timedelta(seconds=30)
S = timedelta(seconds=1)


async def _session(store: Store, account: str = ACCOUNT, **kwargs: str) -> SessionRecord:
    return await store.create_session(account_id=account, workflow="tickets", **kwargs)


async def _turn(
    store: Store, session: SessionRecord, phase: TurnPhase = TurnPhase.RECEIVED
) -> None:
    turn = await store.record_user_turn(
        account_id=session.account_id, session_id=session.session_id, payload={"text": "hi"}
    )
    if phase is not TurnPhase.RECEIVED:
        await store.advance_phase(session.account_id, turn.turn_id, TurnPhase.RECEIVED, phase)


async def _acquire(
    store: Store,
    session: SessionRecord,
    worker: str,
    now: datetime,
    lease: timedelta = LEASE,
) -> SessionLease | None:
    return await store.acquire_session_lease(
        session.account_id, session.session_id, worker_id=worker, now=now, expires_at=now + lease
    )


async def test_a_free_session_is_leased_to_the_worker_that_asks(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    lease = await _acquire(store, session, "w1", t0)
    assert lease == SessionLease(
        account_id=ACCOUNT,
        session_id=session.session_id,
        worker_id="w1",
        acquired_at=t0,
        expires_at=t0 + LEASE,
        taken_over=False,
        previous_worker=None,
        epoch=1,
    )
    assert await store.get_session(ACCOUNT, session.session_id) == session


async def test_a_second_worker_is_refused_while_the_lease_is_live(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)
    assert await _acquire(store, session, "w2", t0) is None
    almost = t0 + LEASE - timedelta(microseconds=1)
    assert await _acquire(store, session, "w2", almost, lease=LEASE * 10) is None
    renewed = await _acquire(store, session, "w1", t0 + S)
    assert renewed is not None and renewed.acquired_at == t0, "the refusals changed the lease"


async def test_the_holder_renews_its_lease_and_keeps_when_its_hold_began(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)
    renewed = await _acquire(store, session, "w1", t0 + 20 * S)
    assert renewed is not None
    assert (renewed.worker_id, renewed.acquired_at, renewed.expires_at) == (
        "w1",
        t0,
        t0 + 20 * S + LEASE,
    )
    assert not renewed.taken_over and renewed.previous_worker is None
    # The expiry really moved: past the first lease's end, the session is still w1's.
    assert await _acquire(store, session, "w2", t0 + 40 * S) is None


async def test_a_lapsed_lease_nobody_took_is_renewed_by_its_holder(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)
    later = t0 + LEASE + 5 * S
    renewed = await _acquire(store, session, "w1", later)
    assert renewed is not None
    assert (renewed.acquired_at, renewed.expires_at, renewed.taken_over) == (
        t0,
        later + LEASE,
        False,
    )


async def test_an_expired_lease_is_taken_over_and_names_the_previous_worker(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)
    expired_at = t0 + LEASE  # a lease has expired at its expiry instant
    taken = await _acquire(store, session, "w2", expired_at)
    assert taken == SessionLease(
        account_id=ACCOUNT,
        session_id=session.session_id,
        worker_id="w2",
        acquired_at=expired_at,
        expires_at=expired_at + LEASE,
        taken_over=True,
        previous_worker="w1",
        epoch=2,
    )
    # The old holder lost it: it cannot renew, nor release the new holder's lease.
    assert await _acquire(store, session, "w1", expired_at + S) is None
    assert not await store.release_session_lease(ACCOUNT, session.session_id, worker_id="w1")
    again = await _acquire(store, session, "w2", expired_at + S)
    assert again is not None and not again.taken_over and again.acquired_at == expired_at


async def test_release_by_the_holder_frees_the_session(store: Store, clock: ManualClock) -> None:
    session = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)
    assert await store.release_session_lease(ACCOUNT, session.session_id, worker_id="w1")
    fresh = await _acquire(store, session, "w2", t0 + S)
    assert fresh is not None
    assert (fresh.worker_id, fresh.acquired_at, fresh.taken_over, fresh.previous_worker) == (
        "w2",
        t0 + S,
        False,
        None,
    )
    assert not await store.release_session_lease(ACCOUNT, session.session_id, worker_id="w1")


async def test_release_by_another_worker_changes_nothing(store: Store, clock: ManualClock) -> None:
    session = await _session(store)
    unleased = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)
    assert not await store.release_session_lease(ACCOUNT, session.session_id, worker_id="w2")
    assert await _acquire(store, session, "w2", t0 + S) is None
    kept = await _acquire(store, session, "w1", t0 + S)
    assert kept is not None and kept.acquired_at == t0
    assert not await store.release_session_lease(ACCOUNT, unleased.session_id, worker_id="w1")


async def test_another_accounts_session_answers_like_an_unknown_one(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    await _acquire(store, session, "w1", t0)

    async def answers(account: str) -> list[tuple[type[BaseException], str]]:
        found = []
        for attempt in (
            store.acquire_session_lease(
                account, session.session_id, worker_id="w2", now=t0, expires_at=t0 + LEASE
            ),
            store.release_session_lease(account, session.session_id, worker_id="w1"),
        ):
            with pytest.raises(NotFound) as caught:
                await attempt
            found.append((type(caught.value), str(caught.value)))
        return found

    assert await answers(OTHER) == await answers(EMPTY)
    # Nothing changed: w1 still holds it, and the release from OTHER did not free it.
    assert await _acquire(store, session, "w2", t0 + S) is None


async def test_another_account_leases_its_own_session_of_the_same_id_independently(
    store: Store, clock: ManualClock
) -> None:
    mine = await _session(store, session_id="ses-shared")
    theirs = await _session(store, OTHER, session_id="ses-shared")
    t0 = clock.now()
    assert await _acquire(store, mine, "w1", t0) is not None
    their_lease = await _acquire(store, theirs, "w2", t0)
    assert their_lease is not None and their_lease.account_id == OTHER
    assert await store.release_session_lease(OTHER, "ses-shared", worker_id="w2")
    assert await _acquire(store, mine, "w2", t0 + S) is None


async def test_claimable_sessions_have_unfinished_turns_and_no_live_lease_oldest_turn_first(
    store: Store, clock: ManualClock
) -> None:
    t0 = clock.now()
    later_again = await _session(store)
    await _turn(store, later_again, TurnPhase.DELIVERED)  # its oldest turn is finished
    a, b, c, d = [await _session(store) for _ in range(4)]
    e = await _session(store, OTHER)
    await _turn(store, await _session(store), TurnPhase.DELIVERED)
    await _turn(store, await _session(store), TurnPhase.FAILED)
    await _session(store)  # no turns at all
    for session in (c, a, e, b, d):  # turn order, not session order, decides
        await _turn(store, session)
    await _turn(store, a, TurnPhase.COMPOSED)  # a second unfinished turn changes nothing
    await _turn(store, later_again)

    await _acquire(store, b, "w1", t0)  # live until t0 + 30s
    await _acquire(store, d, "w1", t0, lease=5 * S)  # expired by t0 + 10s
    await _acquire(store, c, "w1", t0)
    await store.release_session_lease(ACCOUNT, c.session_id, worker_id="w1")

    def ids(sessions: list[SessionRecord]) -> list[tuple[str, str]]:
        return [(s.account_id, s.session_id) for s in sessions]

    listed = await store.list_claimable_sessions(now=t0 + 10 * S)
    assert ids(listed) == ids([c, a, e, d, later_again])
    assert listed[0] == await store.get_session(ACCOUNT, c.session_id)
    assert ids(await store.list_claimable_sessions(now=t0 + 10 * S, limit=2)) == ids([c, a])
    assert await store.list_claimable_sessions(now=t0 + 10 * S, limit=0) == []
    # b's lease expires at t0 + 30s: from then on b is claimable again, in its turn's place.
    at_expiry = await store.list_claimable_sessions(now=t0 + LEASE)
    assert ids(at_expiry) == ids([c, a, e, b, d, later_again])


async def test_a_session_leaves_the_claimable_list_once_its_turns_finish(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    turn = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={}
    )
    assert [s.session_id for s in await store.list_claimable_sessions(now=clock.now())] == [
        session.session_id
    ]
    await store.advance_phase(ACCOUNT, turn.turn_id, TurnPhase.RECEIVED, TurnPhase.DELIVERED)
    assert await store.list_claimable_sessions(now=clock.now()) == []


async def test_a_lease_needs_a_worker_aware_instants_and_an_expiry_after_now(
    store: Store, clock: ManualClock
) -> None:
    session = await _session(store)
    t0 = clock.now()
    naive = t0.replace(tzinfo=None)
    bad = [
        {"worker_id": "", "now": t0, "expires_at": t0 + LEASE},
        {"worker_id": "w1", "now": naive, "expires_at": t0 + LEASE},
        {"worker_id": "w1", "now": t0, "expires_at": naive + LEASE},
        {"worker_id": "w1", "now": t0, "expires_at": t0},
        {"worker_id": "w1", "now": t0, "expires_at": t0 - S},
    ]
    for terms in bad:
        with pytest.raises(ValueError):
            await store.acquire_session_lease(ACCOUNT, session.session_id, **terms)
    with pytest.raises(ValueError):
        await store.release_session_lease(ACCOUNT, session.session_id, worker_id="")
    with pytest.raises(ValueError):
        await store.list_claimable_sessions(now=naive)
    with pytest.raises(ValueError):
        await store.list_claimable_sessions(now=t0, limit=-1)
    fresh = await _acquire(store, session, "w1", t0)
    assert fresh is not None and not fresh.taken_over, "a refused request leased something"


async def test_leases_come_back_in_utc_whatever_zone_they_were_given_in(
    store: Store, clock: ManualClock
) -> None:
    from datetime import timezone

    session = await _session(store)
    zone = timezone(timedelta(hours=2))
    t0 = clock.now()
    lease = await _acquire(store, session, "w1", t0.astimezone(zone))
    renewed = await _acquire(store, session, "w1", (t0 + S).astimezone(zone))
    assert lease is not None and renewed is not None
    assert lease.acquired_at == renewed.acquired_at == t0
    assert lease.acquired_at.utcoffset() == renewed.expires_at.utcoffset() == timedelta(0)


async def test_two_workers_racing_to_acquire_one_session_get_exactly_one_lease(
    store: Store, store_factory: StoreFactory, clock: ManualClock
) -> None:
    sessions = [await _session(store) for _ in range(5)]
    now = clock.now()
    won: dict[str, list[str]] = {s.session_id: [] for s in sessions}
    refused: dict[str, list[str]] = {s.session_id: [] for s in sessions}

    async def race(on: Store, worker: str, session: SessionRecord) -> None:
        lease = await _acquire(on, session, worker, now)
        (won if lease is not None else refused)[session.session_id].append(worker)

    async def run(second: Store) -> None:
        async with anyio.create_task_group() as tg:
            for session in sessions:
                for n in range(6):  # workers on two stores (two pools, where persistent)
                    tg.start_soon(race, store if n % 2 else second, f"w{n}", session)

    if store_factory.persistent:
        async with store_factory.open(clock=clock) as second:
            await run(second)
    else:  # ":memory:" is one database per open: race on the one store
        await run(store)

    for session in sessions:
        sid = session.session_id
        assert len(won[sid]) == 1, f"{sid} was leased to {won[sid]}"
        assert len(refused[sid]) == 5
        [winner] = won[sid]
        for loser in refused[sid]:
            assert await _acquire(store, session, loser, now + S) is None
        assert await _acquire(store, session, winner, now + S) is not None


async def test_a_lease_outlives_the_store_that_granted_it(
    store_factory: StoreFactory, clock: ManualClock
) -> None:
    if not store_factory.persistent:
        pytest.skip("a ':memory:' store does not outlive its connection")
    t0 = clock.now()
    async with store_factory.open(clock=clock) as first:
        session = await _session(first)
        await _turn(first, session)
        await _acquire(first, session, "w1", t0)
    async with store_factory.open(clock=clock) as second:
        assert await _acquire(second, session, "w2", t0 + S) is None
        assert await second.list_claimable_sessions(now=t0 + S) == []
        taken = await _acquire(second, session, "w2", t0 + LEASE)
        assert taken is not None and taken.previous_worker == "w1"
