"""The seal transaction: plan, reduction, cards, superseded cards and admission, all or nothing."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, MakeCase, MakeTurn, entry, move

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    AdmissionVerdict,
    BlockingCardOpen,
    InteractionStatus,
    NewInteraction,
    PhaseConflict,
    Store,
    TurnSeal,
)
from turnframe.stores.contention import CaseContended, CaseGuard, guarding

pytestmark = pytest.mark.anyio

P = TurnPhase


async def test_a_seal_stores_the_plan_reduction_cards_and_admission_and_moves_the_phase(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.RECEIVED)
    seal = TurnSeal(
        plan={"plan": {"acts": []}},
        reduction={"results": [1]},
        interactions=(NewInteraction(payload={"kind": "select_target"}),),
        entries=(entry("k1"),),
        phase=move(P.RECEIVED, P.EXECUTING),
    )
    receipt = await store.seal_turn(ACCOUNT, turn.turn_id, seal)
    assert [a.verdict for a in receipt.admissions] == [AdmissionVerdict.FRESH]
    assert [c.status for c in receipt.interactions] == [InteractionStatus.OPEN]
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.EXECUTING
    assert reread.plan == {"plan": {"acts": []}} and reread.reduction == {"results": [1]}
    stored = await store.get_journal_entry(ACCOUNT, "k1")
    assert stored is not None and stored.status is JournalStatus.PENDING


async def test_a_seal_with_nothing_to_admit_moves_an_interpreted_turn_to_reduced(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.INTERPRETED)
    seal = TurnSeal(reduction={"results": []}, phase=move(P.INTERPRETED, P.REDUCED))
    receipt = await store.seal_turn(ACCOUNT, turn.turn_id, seal)
    assert receipt.admissions == () and receipt.interactions == ()
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.REDUCED


async def test_a_seal_closes_the_cards_it_supersedes_and_opens_the_new_blocking_card(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    earlier = await make_turn(phase=P.INTERPRETED)
    blocking = NewInteraction(payload={"kind": "confirm"}, case_id=case.case_id, blocking=True)
    [old] = await store.save_reduction(ACCOUNT, earlier.turn_id, {"r": 1}, interactions=[blocking])
    turn = await make_turn(phase=P.INTERPRETED)
    seal = TurnSeal(
        reduction={"r": 2},
        interactions=(blocking,),
        expired=(old.interaction_id,),
        phase=move(P.INTERPRETED, P.REDUCED),
    )
    [new] = (await store.seal_turn(ACCOUNT, turn.turn_id, seal)).interactions
    closed = await store.get_interaction(ACCOUNT, old.interaction_id)
    assert closed is not None and closed.status is InteractionStatus.EXPIRED
    assert [c.interaction_id for c in await store.list_open_interactions(ACCOUNT)] == [
        new.interaction_id
    ]


async def test_a_seal_that_fails_stores_nothing_of_the_turn(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await make_turn(phase=P.RECEIVED)
    card = NewInteraction(payload={"kind": "confirm"}, case_id=case.case_id, blocking=True)
    seal = TurnSeal(
        plan={"plan": {"acts": []}},
        reduction={"r": 1},
        interactions=(card, card),  # a second open blocking card on one case is refused
        entries=(entry("k1", status=JournalStatus.AWAITING_CONFIRMATION),),
        phase=move(P.RECEIVED, P.EXECUTING),
    )
    with pytest.raises(BlockingCardOpen):
        await store.seal_turn(ACCOUNT, turn.turn_id, seal)
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.RECEIVED
    assert reread.plan is None and reread.reduction is None
    assert await store.get_journal_entry(ACCOUNT, "k1") is None
    assert await store.list_open_interactions(ACCOUNT) == []


async def test_a_turn_sealed_once_is_not_sealed_again(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn(phase=P.INTERPRETED)
    seal = TurnSeal(
        reduction={"r": 1},
        interactions=(NewInteraction(payload={"kind": "info"}),),
        entries=(entry("k1"),),
        phase=move(P.INTERPRETED, P.EXECUTING),
    )
    await store.seal_turn(ACCOUNT, turn.turn_id, seal)
    with pytest.raises(PhaseConflict):
        await store.seal_turn(ACCOUNT, turn.turn_id, seal)
    assert len(await store.list_open_interactions(ACCOUNT)) == 1
    assert [e.idempotency_key for e in await store.list_journal(ACCOUNT, turn.turn_id)] == ["k1"]


# -- the hot-case guard inside the seal transaction (ADR 0018) ----------------------------------


def _ready_seal(case_id: str, revision: int, key: str = "k1") -> TurnSeal:
    return TurnSeal(
        reduction={"r": 1},
        entries=(entry(key, case_id=case_id, expected_revision=revision),),
        phase=move(P.INTERPRETED, P.EXECUTING),
    )


async def test_a_guarded_seal_on_a_case_that_moved_writes_nothing(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case(revision=2)
    turn = await make_turn(phase=P.INTERPRETED)
    guard = CaseGuard(account_id=ACCOUNT, turn_id=turn.turn_id, expectations=((case.case_id, 1),))
    with guarding(guard), pytest.raises(CaseContended) as refused:
        await store.seal_turn(ACCOUNT, turn.turn_id, _ready_seal(case.case_id, 1))
    assert refused.value.busy is False
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.INTERPRETED and reread.reduction is None
    assert await store.get_journal_entry(ACCOUNT, "k1") is None
    # Reduced again on revision 2, the same turn seals.
    guard = CaseGuard(account_id=ACCOUNT, turn_id=turn.turn_id, expectations=((case.case_id, 2),))
    with guarding(guard):
        receipt = await store.seal_turn(ACCOUNT, turn.turn_id, _ready_seal(case.case_id, 2))
    assert [a.verdict for a in receipt.admissions] == [AdmissionVerdict.FRESH]


async def test_a_guarded_seal_on_a_case_another_turn_writes_is_refused_as_busy(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    first = await make_turn(phase=P.INTERPRETED)
    await store.seal_turn(ACCOUNT, first.turn_id, _ready_seal(case.case_id, 1, key="first"))
    second = await make_turn(phase=P.INTERPRETED)
    guard = CaseGuard(account_id=ACCOUNT, turn_id=second.turn_id, expectations=((case.case_id, 1),))
    with guarding(guard), pytest.raises(CaseContended) as refused:
        await store.seal_turn(ACCOUNT, second.turn_id, _ready_seal(case.case_id, 1, key="second"))
    assert refused.value.busy is True
    assert await store.get_journal_entry(ACCOUNT, "second") is None
    reread = await store.get_turn(ACCOUNT, second.turn_id)
    assert reread is not None and reread.phase is P.INTERPRETED
