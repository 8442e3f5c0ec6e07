"""FaultyStore makes any store fail at the named boundaries of a turn, and records them."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest
from store_kit import ACCOUNT, MakeCase, MakeTurn, entry, move

from turnframe.clock import ManualClock
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseRecord,
    CaseUpdate,
    CommitBundle,
    InteractionStatus,
    JournalOutcome,
    NewEvent,
    NewInteraction,
    NewOutboxEffect,
    OutboxResult,
    OutboxStatus,
    Store,
    StoreTimeout,
    TurnRecord,
    TurnSeal,
)
from turnframe.stores.inputs import BundleReply, NewUserTurn
from turnframe.stores.records import BundleReceipt
from turnframe.testing.faults import (
    Fault,
    FaultHit,
    FaultMode,
    FaultPlan,
    FaultPoint,
    FaultyStore,
    InjectedCrash,
)

pytestmark = pytest.mark.anyio

P = TurnPhase
J = JournalStatus
FP = FaultPoint


async def _sealed_turn(store: Store, make_turn: MakeTurn) -> TurnRecord:
    turn = await make_turn(phase=P.REDUCED)
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    return turn


def _bundle(turn: TurnRecord, case: CaseRecord) -> CommitBundle:
    return CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        journal_outcomes=[
            JournalOutcome(idempotency_key="k1", expected=J.PENDING, status=J.COMMITTED)
        ],
        case_updates=[
            CaseUpdate(case_id=case.case_id, expected_revision=1, new_revision=2, state={})
        ],
        events=[NewEvent(case_id=case.case_id, revision=2, type="changed", payload={})],
        outbox=[NewOutboxEffect(idempotency_key="o1", payload={})],
        replay_record={"r": 1},
        phase=move(P.EXECUTING, P.COMMITTED),
    )


async def test_an_empty_plan_fails_nothing_and_records_every_point_reached(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, clock: ManualClock
) -> None:
    faulty = FaultyStore(store)
    case = await make_case()
    turn = await make_turn(phase=P.INTERPRETED)
    await faulty.save_reduction(
        ACCOUNT, turn.turn_id, {"r": 1}, phase=move(P.INTERPRETED, P.REDUCED)
    )
    await faulty.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    await faulty.commit_bundle(_bundle(turn, case))
    [effect] = await faulty.claim_outbox(
        account_id=None, claim_token="w", now=clock.now(), lease_expires_at=clock.now()
    )
    await faulty.settle_outbox(
        ACCOUNT, effect.effect_id, claim_token="w", result=OutboxResult.COMPLETED
    )
    await faulty.advance_phase(ACCOUNT, turn.turn_id, P.COMMITTED, P.COMPOSED)
    await faulty.save_assistant_turn(ACCOUNT, turn.turn_id, [{"t": 1}])
    assert [h.point for h in faulty.hits] == [
        FP.BEFORE_INTERACTION_PERSISTENCE,
        FP.AFTER_INTERACTION_PERSISTENCE,
        FP.BEFORE_JOURNAL_INSERT,
        FP.AFTER_JOURNAL_INSERT_BEFORE_COMMIT,
        FP.INSIDE_COMMIT_BUNDLE,
        FP.BEFORE_OUTBOX_DISPATCH,
        FP.AFTER_OUTBOX_DISPATCH,
        FP.BEFORE_RESPONSE_PERSISTENCE,
    ]
    assert faulty.fired == []


async def test_a_crash_after_interaction_persistence_leaves_the_cards_stored(
    store: Store, make_turn: MakeTurn
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.AFTER_INTERACTION_PERSISTENCE))
    turn = await make_turn(phase=P.INTERPRETED)
    with pytest.raises(InjectedCrash):
        await faulty.save_reduction(
            ACCOUNT,
            turn.turn_id,
            {"r": 1},
            interactions=[NewInteraction(payload={"k": "confirm"})],
            phase=move(P.INTERPRETED, P.REDUCED),
        )
    [card] = await store.list_open_interactions(ACCOUNT)
    assert card.status is InteractionStatus.OPEN
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.REDUCED


async def test_a_crash_before_interaction_persistence_stores_no_card(
    store: Store, make_turn: MakeTurn
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_INTERACTION_PERSISTENCE))
    turn = await make_turn(phase=P.INTERPRETED)
    with pytest.raises(InjectedCrash):
        await faulty.save_reduction(
            ACCOUNT, turn.turn_id, {"r": 1}, interactions=[NewInteraction(payload={})]
        )
    assert await store.list_open_interactions(ACCOUNT) == []


async def test_a_crash_before_journal_insert_admits_nothing(
    store: Store, make_turn: MakeTurn
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_JOURNAL_INSERT))
    turn = await make_turn(phase=P.REDUCED)
    with pytest.raises(InjectedCrash):
        await faulty.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    assert await store.get_journal_entry(ACCOUNT, "k1") is None
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and not reread.phase.is_sealed


async def test_a_timeout_after_journal_insert_leaves_the_turn_sealed(
    store: Store, make_turn: MakeTurn
) -> None:
    faulty = FaultyStore(store, FaultPlan.timeout(FP.AFTER_JOURNAL_INSERT_BEFORE_COMMIT))
    turn = await make_turn(phase=P.REDUCED)
    with pytest.raises(StoreTimeout):
        await faulty.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    stored = await store.get_journal_entry(ACCOUNT, "k1")
    assert stored is not None and stored.status is J.PENDING
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.EXECUTING


@pytest.mark.parametrize("mode", [FaultMode.CRASH, FaultMode.TIMEOUT])
async def test_a_fault_inside_the_commit_bundle_leaves_nothing_partial_and_the_retry_commits(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, mode: FaultMode
) -> None:
    plan = FaultPlan(faults=[Fault(point=FP.INSIDE_COMMIT_BUNDLE, mode=mode)])
    faulty = FaultyStore(store, plan)
    case = await make_case()
    turn = await _sealed_turn(store, make_turn)
    expected_error = InjectedCrash if mode is FaultMode.CRASH else StoreTimeout
    with pytest.raises(expected_error):
        await faulty.commit_bundle(_bundle(turn, case))
    assert await store.get_case(ACCOUNT, case.case_id) == case
    assert await store.list_events(ACCOUNT) == []
    assert await store.list_outbox(ACCOUNT) == []
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) is None
    journal = await store.get_journal_entry(ACCOUNT, "k1")
    assert journal is not None and journal.status is J.PENDING
    receipt = await faulty.commit_bundle(_bundle(turn, case))
    assert receipt.phase is P.COMMITTED
    assert faulty.hits == [
        FaultHit(point=FP.INSIDE_COMMIT_BUNDLE, hit=1, fired=mode),
        FaultHit(point=FP.INSIDE_COMMIT_BUNDLE, hit=2, fired=None),
    ]


async def test_the_callers_hook_still_runs_inside_a_faulty_stores_commit_bundle(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    faulty = FaultyStore(store)
    case = await make_case()
    turn = await _sealed_turn(store, make_turn)
    calls: list[str] = []
    await faulty.commit_bundle(_bundle(turn, case), inside_transaction=lambda: calls.append("x"))
    assert calls == ["x"]


async def _committed_effect(store: Store, make_turn: MakeTurn, make_case: MakeCase) -> None:
    case = await make_case()
    turn = await _sealed_turn(store, make_turn)
    await store.commit_bundle(_bundle(turn, case))


async def test_a_crash_before_outbox_dispatch_leaves_the_row_leased_until_the_reaper_runs(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, clock: ManualClock
) -> None:
    await _committed_effect(store, make_turn, make_case)
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_OUTBOX_DISPATCH))
    lease = clock.now() + timedelta(seconds=30)
    with pytest.raises(InjectedCrash):
        await faulty.claim_outbox(
            account_id=None, claim_token="w1", now=clock.now(), lease_expires_at=lease
        )
    [row] = await store.list_outbox(ACCOUNT)
    assert row.status is OutboxStatus.CLAIMED
    clock.advance(timedelta(seconds=30))
    assert await store.release_expired_claims(now=clock.now()) == 1
    [again] = await faulty.claim_outbox(
        account_id=None, claim_token="w2", now=clock.now(), lease_expires_at=clock.now()
    )
    assert again.idempotency_key == "o1"


async def test_a_claim_that_finds_nothing_does_not_reach_the_dispatch_point(
    store: Store, clock: ManualClock
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_OUTBOX_DISPATCH))
    claimed = await faulty.claim_outbox(
        account_id=None, claim_token="w", now=clock.now(), lease_expires_at=clock.now()
    )
    assert claimed == [] and faulty.hits == []


async def test_a_crash_after_outbox_dispatch_leaves_the_send_unrecorded(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, clock: ManualClock
) -> None:
    await _committed_effect(store, make_turn, make_case)
    faulty = FaultyStore(store, FaultPlan.crash(FP.AFTER_OUTBOX_DISPATCH))
    [row] = await faulty.claim_outbox(
        account_id=None, claim_token="w1", now=clock.now(), lease_expires_at=clock.now()
    )
    with pytest.raises(InjectedCrash):
        await faulty.settle_outbox(
            ACCOUNT, row.effect_id, claim_token="w1", result=OutboxResult.COMPLETED
        )
    stored = await store.get_outbox(ACCOUNT, row.effect_id)
    assert stored is not None and stored.status is OutboxStatus.CLAIMED and stored.outcome is None


async def test_a_crash_before_response_persistence_stores_no_response(
    store: Store, make_turn: MakeTurn
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_RESPONSE_PERSISTENCE))
    turn = await make_turn(phase=P.COMPOSED)
    with pytest.raises(InjectedCrash):
        await faulty.save_assistant_turn(
            ACCOUNT, turn.turn_id, [{"t": 1}], phase=move(P.COMPOSED, P.DELIVERED)
        )
    assert await store.get_assistant_turn(ACCOUNT, turn.turn_id) is None
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.COMPOSED


async def test_a_fault_fires_on_its_chosen_occurrence_only(
    store: Store, make_turn: MakeTurn
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_JOURNAL_INSERT, occurrence=2))
    turn = await make_turn()
    await faulty.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    with pytest.raises(InjectedCrash) as caught:
        await faulty.admit(ACCOUNT, turn.turn_id, [entry("k2")])
    await faulty.admit(ACCOUNT, turn.turn_id, [entry("k3")])
    assert (caught.value.point, caught.value.hit) == (FP.BEFORE_JOURNAL_INSERT, 2)
    assert [h.hit for h in faulty.fired] == [2]
    assert faulty.hit_count(FP.BEFORE_JOURNAL_INSERT) == 3
    assert await store.get_journal_entry(ACCOUNT, "k2") is None


async def test_a_fault_without_a_limit_fires_on_every_hit_from_its_occurrence(
    store: Store, make_turn: MakeTurn
) -> None:
    plan = FaultPlan.timeout(FP.BEFORE_RESPONSE_PERSISTENCE, occurrence=1, times=None)
    faulty = FaultyStore(store, plan)
    turn = await make_turn()
    for _ in range(3):
        with pytest.raises(StoreTimeout):
            await faulty.save_assistant_turn(ACCOUNT, turn.turn_id, [])
    assert [h.fired for h in faulty.hits] == [FaultMode.TIMEOUT] * 3


async def test_an_expired_claim_goes_back_to_pending_only_for_the_channels_that_may_resend(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, clock: ManualClock
) -> None:
    case = await make_case()
    turn = await _sealed_turn(store, make_turn)
    effects = [
        NewOutboxEffect(idempotency_key=key, payload={"channel": channel, "payload": {}})
        for key, channel in (("o-keyed", "keyed"), ("o-blind", "blind"))
    ]
    await store.commit_bundle(attrs.evolve(_bundle(turn, case), outbox=effects))
    lease = clock.now() + timedelta(seconds=30)
    await store.claim_outbox(
        account_id=None, claim_token="w1", now=clock.now(), lease_expires_at=lease
    )
    clock.advance(timedelta(seconds=30))
    assert await store.release_expired_claims(now=clock.now(), resend_channels={"keyed"}) == 2
    rows = {r.idempotency_key: r for r in await store.list_outbox(ACCOUNT)}
    assert rows["o-keyed"].status is OutboxStatus.PENDING
    assert rows["o-blind"].status is OutboxStatus.OUTCOME_UNKNOWN
    assert rows["o-blind"].outcome == {"reason": "turnframe.outbox.claim_expired"}


def _reply(receipt: BundleReceipt) -> BundleReply:
    return BundleReply(blocks=[{"events": [e.seq for e in receipt.events]}])


async def test_a_crash_before_response_persistence_in_a_bundle_with_a_reply_commits_the_bundle_alone(  # noqa: E501
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_RESPONSE_PERSISTENCE))
    case = await make_case()
    turn = await _sealed_turn(store, make_turn)
    with pytest.raises(InjectedCrash):
        await faulty.commit_bundle(attrs.evolve(_bundle(turn, case), reply=_reply))
    assert [h.point for h in faulty.hits] == [
        FP.INSIDE_COMMIT_BUNDLE,
        FP.BEFORE_RESPONSE_PERSISTENCE,
    ]
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.COMMITTED
    assert [e.type for e in await store.list_events(ACCOUNT)] == ["changed"]
    assert await store.get_assistant_turn(ACCOUNT, turn.turn_id) is None


async def test_a_bundle_that_stores_its_reply_reaches_response_persistence_once(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    faulty = FaultyStore(store)
    case = await make_case()
    turn = await _sealed_turn(store, make_turn)
    receipt = await faulty.commit_bundle(attrs.evolve(_bundle(turn, case), reply=_reply))
    assert receipt.phase is P.DELIVERED
    assert [h.point for h in faulty.hits] == [
        FP.INSIDE_COMMIT_BUNDLE,
        FP.BEFORE_RESPONSE_PERSISTENCE,
    ]


async def test_a_crash_as_a_turn_arrives_stores_nothing_of_it(store: Store) -> None:
    faulty = FaultyStore(store, FaultPlan.crash(FP.BEFORE_TURN_RECORDED))
    with pytest.raises(InjectedCrash):
        await faulty.get_turn_start(ACCOUNT, "turn-live")
    assert [h.point for h in faulty.hits] == [FP.BEFORE_TURN_RECORDED]
    assert await store.get_turn(ACCOUNT, "turn-live") is None


async def test_a_seal_that_records_a_live_turn_reaches_the_seal_points_only(store: Store) -> None:
    faulty = FaultyStore(store)
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    seal = TurnSeal(
        user_turn=NewUserTurn(session_id=session.session_id, payload={"text": "hi"}),
        plan={"plan": {}},
        reduction={"r": 1},
        entries=(entry("k1"),),
        phase=move(P.RECEIVED, P.EXECUTING),
    )
    await faulty.seal_turn(ACCOUNT, "turn-live", seal)
    assert [h.point for h in faulty.hits] == [
        FP.BEFORE_INTERACTION_PERSISTENCE,
        FP.BEFORE_JOURNAL_INSERT,
        FP.AFTER_INTERACTION_PERSISTENCE,
        FP.AFTER_JOURNAL_INSERT_BEFORE_COMMIT,
    ]
