"""Cards only for interactions actually persisted; without them, no text mentions a card."""

from __future__ import annotations

from narration_kit import ANNA, BOB, Turn, narrate

from turnframe.narration import TurnFailure, TurnFailureKind, codes, uncovered_acts
from turnframe.response import BlockKind


def _withdraw_and_note() -> Turn:
    t = Turn("Withdraw Bob's trip and add a note: aisle.")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    t.set(BOB, "note", "aisle", "add a note: aisle")
    return t


def test_a_persisted_confirmation_card_carries_its_options_and_interaction_id() -> None:
    n = narrate(_withdraw_and_note())
    (card,) = n.of_kind(BlockKind.CARD)
    (planned,) = n.reduction.interactions
    assert card.data["interaction_id"] == planned.interaction_id
    assert [o["option_id"] for o in card.data["options"]] == ["confirm", "decline"]
    assert card.data["expected_revision"] == planned.expected_revision


def test_failed_card_persistence_yields_no_card_and_no_text_about_a_card() -> None:
    n = narrate(_withdraw_and_note(), persist_cards=False)
    assert n.of_kind(BlockKind.CARD) == []
    assert not any("card" in b.text.casefold() or "confirm" in b.text.casefold() for b in n.blocks)


def test_acts_whose_card_was_not_persisted_say_they_could_not_be_prepared() -> None:
    n = narrate(_withdraw_and_note(), persist_cards=False)
    (block,) = n.covering(0)
    assert (block.code, block.text) == (
        codes.NOTICE_NOT_PREPARED,
        "Not done: withdraw on Trip “Bob” could not be prepared, so nothing was changed. "
        "Please ask again.",
    )


def test_the_other_acts_still_render_when_card_persistence_failed() -> None:
    n = narrate(_withdraw_and_note(), persist_cards=False)
    assert [b.kind for b in n.covering(1)] == [BlockKind.RECEIPT]
    assert uncovered_acts(n.blocks, n.reduction) == ()


def test_a_cards_not_persisted_failure_withholds_every_card_even_if_some_were_passed() -> None:
    failure = TurnFailure(kind=TurnFailureKind.CARDS_NOT_PERSISTED)
    n = narrate(_withdraw_and_note(), failure=failure)
    assert n.of_kind(BlockKind.CARD) == []
    assert [b.code for b in n.covering(0)] == [codes.NOTICE_NOT_PREPARED]


def test_a_selection_card_lists_the_candidate_cases() -> None:
    t = Turn("Add a note to Anna's trip: aisle.")
    t.set(ANNA, "note", "aisle", "Add a note to Anna's trip: aisle")
    (card,) = narrate(t).of_kind(BlockKind.CARD)
    assert [(o["option_id"], o["case_id"]) for o in card.data["options"]] == [
        ("case-1", "case-anna-berlin"),
        ("case-2", "case-anna-rome"),
    ]


def test_one_card_renders_once_for_all_the_acts_it_waits_for() -> None:
    t = Turn("Add a note to Anna's trip: aisle, and set her passengers to two.")
    t.set(ANNA, "note", "aisle", "Add a note to Anna's trip: aisle")
    t.set(ANNA, "passengers", "two", "set her passengers to two")
    n = narrate(t)
    (card,) = n.of_kind(BlockKind.CARD)
    assert card.acts == (0, 1)
    (notice,) = n.of_kind(BlockKind.NOTICE)
    assert notice.text == (
        "Not yet: note to “aisle”; passengers to “two” on “Anna” — 2 cases are named “Anna”; "
        "choose one."
    )
