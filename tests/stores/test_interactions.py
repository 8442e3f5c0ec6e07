"""Cards: persisted with the reduction, closed once, at most one open blocking card per case."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, MakeCase, MakeTurn, move

from turnframe.lifecycle import TurnPhase
from turnframe.stores import (
    BlockingCardOpen,
    CardResolution,
    InteractionStatus,
    NewInteraction,
    StatusConflict,
    Store,
)

pytestmark = pytest.mark.anyio

P = TurnPhase


async def test_cards_persisted_with_the_reduction_are_open(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    turn = await make_turn(phase=P.INTERPRETED)
    case = await make_case()
    cards = await store.save_reduction(
        ACCOUNT,
        turn.turn_id,
        {"results": []},
        interactions=[
            NewInteraction(payload={"kind": "confirm"}, case_id=case.case_id, blocking=True),
            NewInteraction(payload={"kind": "select_target"}),
        ],
        phase=move(P.INTERPRETED, P.REDUCED),
    )
    assert [c.status for c in cards] == [InteractionStatus.OPEN, InteractionStatus.OPEN]
    assert await store.get_interaction(ACCOUNT, cards[0].interaction_id) == cards[0]
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.REDUCED


async def test_a_second_blocking_card_on_one_case_is_refused(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    first = await make_turn(phase=P.INTERPRETED)
    second = await make_turn(phase=P.INTERPRETED)
    card = NewInteraction(payload={"kind": "confirm"}, case_id=case.case_id, blocking=True)
    await store.save_reduction(ACCOUNT, first.turn_id, {"r": 1}, interactions=[card])
    with pytest.raises(BlockingCardOpen):
        await store.save_reduction(ACCOUNT, second.turn_id, {"r": 2}, interactions=[card])


async def test_a_refused_card_rolls_back_the_whole_reduction(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await make_turn(phase=P.INTERPRETED)
    card = NewInteraction(payload={"kind": "confirm"}, case_id=case.case_id, blocking=True)
    with pytest.raises(BlockingCardOpen):
        await store.save_reduction(
            ACCOUNT,
            turn.turn_id,
            {"r": 1},
            interactions=[NewInteraction(payload={"kind": "info"}), card, card],
            phase=move(P.INTERPRETED, P.REDUCED),
        )
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.reduction is None and reread.phase is P.INTERPRETED
    assert await store.list_open_interactions(ACCOUNT) == []


async def test_non_blocking_cards_may_share_a_case(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await make_turn()
    cards = [NewInteraction(payload={"n": n}, case_id=case.case_id) for n in range(2)]
    saved = await store.save_reduction(ACCOUNT, turn.turn_id, {"r": 1}, interactions=cards)
    assert len(saved) == 2


async def test_a_blocking_card_may_open_again_once_the_previous_one_is_resolved(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    card = NewInteraction(payload={"kind": "confirm"}, case_id=case.case_id, blocking=True)
    first = await make_turn()
    [opened] = await store.save_reduction(ACCOUNT, first.turn_id, {"r": 1}, interactions=[card])
    await store.resolve_interaction(
        ACCOUNT, CardResolution(interaction_id=opened.interaction_id, resolution={"choice": "no"})
    )
    second = await make_turn()
    reopened = await store.save_reduction(ACCOUNT, second.turn_id, {"r": 2}, interactions=[card])
    assert reopened[0].status is InteractionStatus.OPEN


async def test_resolving_a_card_stores_the_resolution(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    [card] = await store.save_reduction(
        ACCOUNT, turn.turn_id, {"r": 1}, interactions=[NewInteraction(payload={"k": "confirm"})]
    )
    resolved = await store.resolve_interaction(
        ACCOUNT, CardResolution(interaction_id=card.interaction_id, resolution={"choice": "yes"})
    )
    assert resolved.status is InteractionStatus.RESOLVED
    assert resolved.resolution == {"choice": "yes"}
    assert resolved.resolved_at is not None
    assert resolved.payload == {"k": "confirm"}


async def test_a_second_resolution_of_a_card_is_a_conflict_and_changes_nothing(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    [card] = await store.save_reduction(
        ACCOUNT, turn.turn_id, {"r": 1}, interactions=[NewInteraction(payload={})]
    )
    click = CardResolution(interaction_id=card.interaction_id, resolution={"choice": "yes"})
    first = await store.resolve_interaction(ACCOUNT, click)
    with pytest.raises(StatusConflict):
        await store.resolve_interaction(
            ACCOUNT,
            CardResolution(interaction_id=card.interaction_id, resolution={"choice": "no"}),
        )
    assert await store.get_interaction(ACCOUNT, card.interaction_id) == first


async def test_open_cards_are_listed_by_session_and_by_case(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    one = await make_turn()
    two = await make_turn()
    [a] = await store.save_reduction(
        ACCOUNT,
        one.turn_id,
        {"r": 1},
        interactions=[NewInteraction(payload={}, case_id=case.case_id)],
    )
    [b] = await store.save_reduction(
        ACCOUNT, two.turn_id, {"r": 2}, interactions=[NewInteraction(payload={})]
    )
    by_session = await store.list_open_interactions(ACCOUNT, session_id=two.session_id)
    by_case = await store.list_open_interactions(ACCOUNT, case_id=case.case_id)
    everything = await store.list_open_interactions(ACCOUNT)
    assert [c.interaction_id for c in by_session] == [b.interaction_id]
    assert [c.interaction_id for c in by_case] == [a.interaction_id]
    assert [c.interaction_id for c in everything] == [a.interaction_id, b.interaction_id]


async def test_an_expired_card_is_no_longer_open(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    [card] = await store.save_reduction(
        ACCOUNT, turn.turn_id, {"r": 1}, interactions=[NewInteraction(payload={})]
    )
    expired = await store.resolve_interaction(
        ACCOUNT,
        CardResolution(interaction_id=card.interaction_id, status=InteractionStatus.EXPIRED),
    )
    assert expired.status is InteractionStatus.EXPIRED
    assert await store.list_open_interactions(ACCOUNT) == []
