"""The turn's durable phase marker moves only forward, by compare-and-swap."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, MakeTurn, move

from turnframe.lifecycle import TurnPhase
from turnframe.stores import IllegalTransition, NotFound, PhaseConflict, Store

pytestmark = pytest.mark.anyio

P = TurnPhase


async def test_a_phase_advances_forward_by_compare_and_swap(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    moved = await store.advance_phase(ACCOUNT, turn.turn_id, P.RECEIVED, P.INTERPRETED)
    assert moved.phase is P.INTERPRETED
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.INTERPRETED


async def test_advancing_from_a_phase_the_turn_is_not_in_is_a_conflict(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.REDUCED)
    with pytest.raises(PhaseConflict) as caught:
        await store.advance_phase(ACCOUNT, turn.turn_id, P.RECEIVED, P.INTERPRETED)
    assert caught.value.actual == "reduced"
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.REDUCED


async def test_a_phase_never_moves_backwards(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn(phase=P.REDUCED)
    with pytest.raises(IllegalTransition):
        await store.advance_phase(ACCOUNT, turn.turn_id, P.REDUCED, P.INTERPRETED)


async def test_a_terminal_phase_is_final(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn(phase=P.DELIVERED)
    with pytest.raises(IllegalTransition):
        await store.advance_phase(ACCOUNT, turn.turn_id, P.DELIVERED, P.FAILED)


async def test_a_committed_turn_can_no_longer_be_marked_failed(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.COMMITTED)
    with pytest.raises(IllegalTransition):
        await store.advance_phase(ACCOUNT, turn.turn_id, P.COMMITTED, P.FAILED)


async def test_a_plan_written_with_a_conflicting_phase_move_is_rolled_back(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.INTERPRETED)
    with pytest.raises(PhaseConflict):
        await store.save_plan(
            ACCOUNT, turn.turn_id, {"acts": []}, phase=move(P.RECEIVED, P.INTERPRETED)
        )
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.plan is None


async def test_failed_attempts_are_counted_in_a_row_per_signature(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.EXECUTING)
    counts = [
        await store.note_turn_failure(ACCOUNT, turn.turn_id, signature=signature)
        for signature in ("executing:timeout", "executing:timeout", "executing:crash", "x", "x")
    ]
    assert counts == [1, 2, 1, 1, 2]
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.EXECUTING  # a counter, not a phase move


async def test_counting_a_failure_of_another_accounts_turn_is_not_found(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    with pytest.raises(NotFound):
        await store.note_turn_failure("someone-else", turn.turn_id, signature="x")
