"""A click on a card: what it decided is said before the turn's own acts."""

from __future__ import annotations

from narration_kit import ANNA, BOB, Turn, commit, narrate, snapshots

from turnframe.messages import InteractionResponse
from turnframe.narration import codes, uncovered_acts
from turnframe.response import BlockKind
from turnframe.results import InteractionToCreate


def _withdraw_card() -> InteractionToCreate:
    t = Turn("Withdraw Bob's trip.", turn_id="turn-0")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    (card,) = t.reduce().interactions
    return card


def _click(card: InteractionToCreate, option: str, *, revision: int | None = None) -> Turn:
    seen = card.expected_revision if revision is None else revision
    assert seen is not None
    response = InteractionResponse(
        interaction_id=card.interaction_id, option_id=option, expected_revision=seen
    )
    return Turn("", response=response)


def test_a_confirmed_click_is_receipted_from_the_batches_it_authorized() -> None:
    card = _withdraw_card()
    execution = commit(card.awaiting_batches, snapshots())
    n = narrate(_click(card, "confirm"), open_interactions=(card,), execution=execution)
    (receipt,) = n.blocks
    assert (receipt.kind, receipt.text, receipt.acts) == (
        BlockKind.RECEIPT,
        "Trip “Bob”: withdrawn.",
        (),
    )
    assert receipt.data["interaction_id"] == card.interaction_id


def test_a_confirmed_click_that_was_not_carried_out_says_so() -> None:
    card = _withdraw_card()
    (block,) = narrate(_click(card, "confirm"), open_interactions=(card,), execute=False).blocks
    assert block.code == codes.NOTICE_NOT_EXECUTED


def test_a_declined_click_says_nothing_was_done() -> None:
    card = _withdraw_card()
    (block,) = narrate(_click(card, "decline"), open_interactions=(card,), execute=False).blocks
    assert (block.code, block.text) == (
        codes.NOTICE_DECLINED,
        "Declined: nothing was done on Trip “Bob”.",
    )


def test_a_stale_click_says_the_choice_is_out_of_date() -> None:
    card = _withdraw_card()
    stale = _click(card, "confirm", revision=1)
    (block,) = narrate(stale, open_interactions=(card,), execute=False).blocks
    assert block.code == codes.NOTICE_CARD_STALE
    assert "nothing was done" in block.text


def test_a_second_click_is_already_done_and_executes_nothing() -> None:
    card = _withdraw_card()
    n = narrate(_click(card, "confirm"), open_interactions=(), execute=False)
    (block,) = n.blocks
    assert (block.code, block.text) == (
        codes.NOTICE_ALREADY_DONE,
        "Nothing new was done: that choice is no longer open.",
    )


def test_the_acts_of_a_selection_render_with_their_pending_act_references() -> None:
    first = Turn("Add a note to Anna's trip: aisle.", turn_id="turn-0")
    first.set(ANNA, "note", "aisle", "Add a note to Anna's trip: aisle")
    (card,) = first.reduce().interactions
    response = InteractionResponse(
        interaction_id=card.interaction_id, option_id="case-2", expected_revision=1
    )
    click = Turn("", response=response)
    n = narrate(click, open_interactions=(card,), answered=card)
    (receipt,) = n.blocks
    assert receipt.text == "Trip “Anna”: note set to “aisle”."
    assert receipt.data["pending_acts"] == [{"interaction_id": card.interaction_id, "index": 0}]
    assert uncovered_acts(n.blocks, n.reduction) == ()


def test_a_click_is_narrated_before_the_turns_own_acts() -> None:
    card = _withdraw_card()
    response = InteractionResponse(
        interaction_id=card.interaction_id,
        option_id="decline",
        expected_revision=card.expected_revision or 0,
    )
    t = Turn("Set Bob's note to hi.", response=response)
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    n = narrate(t, open_interactions=(card,))
    assert [b.code for b in n.blocks] == [codes.NOTICE_DECLINED, codes.RECEIPT_COMMITTED]
