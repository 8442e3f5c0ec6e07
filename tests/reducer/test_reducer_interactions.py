"""A structured interaction response: decided by ids, checked for staleness, binding first."""

from __future__ import annotations

from reducer_kit import ANNA, BOB, Turn, commands

from turnframe.messages import InteractionResponse
from turnframe.plan import ConstraintKind
from turnframe.results import (
    ACT_OVERRIDDEN_BY_INTERACTION,
    ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
    INTERACTION_STALE,
    INTERACTION_UNKNOWN,
    INTERACTION_UNKNOWN_OPTION,
    ActRef,
    ActStatus,
    InteractionOutcomeStatus,
    InteractionToCreate,
    ReductionPlan,
)
from turnframe.testing import ACCOUNT, InMemoryCaseDirectory, seeded_directory, trip_case


def _withdraw_card() -> InteractionToCreate:
    t = Turn("Withdraw Bob's trip.")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    (card,) = t.reduce().interactions
    return card


def _answer(
    card: InteractionToCreate, option: str, text: str = "ok", revision: int | None = None
) -> Turn:
    response = InteractionResponse(
        interaction_id=card.interaction_id,
        option_id=option,
        expected_revision=(card.expected_revision or 0) if revision is None else revision,
    )
    return Turn(text, response)


def _reduce(
    turn: Turn, card: InteractionToCreate, directory: InMemoryCaseDirectory | None = None
) -> ReductionPlan:
    return turn.reduce(turn_id="turn-2", open_interactions=(card,), directory=directory)


def test_confirming_a_fresh_card_authorizes_exactly_its_commands() -> None:
    card = _withdraw_card()
    reduction = _reduce(_answer(card, "confirm"), card)
    outcome = reduction.interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.CONFIRMED
    assert outcome.authorized_command_ids == card.authorized_command_ids
    assert reduction.batches == ()


def test_declining_settles_the_commands_without_running_them() -> None:
    card = _withdraw_card()
    outcome = _reduce(_answer(card, "decline"), card).interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.DECLINED
    assert outcome.declined_command_ids == card.authorized_command_ids
    assert outcome.authorized_command_ids == ()


def test_a_click_that_saw_another_revision_is_stale() -> None:
    card = _withdraw_card()
    outcome = _reduce(_answer(card, "confirm", revision=1), card).interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.STALE
    assert outcome.reason == INTERACTION_STALE and outcome.authorized_command_ids == ()


def test_a_confirmation_is_stale_once_the_case_moved_on() -> None:
    card = _withdraw_card()
    directory = seeded_directory()
    directory.put(ACCOUNT, trip_case("case-bob", "Bob", 3, destination="Paris"))
    outcome = _reduce(_answer(card, "confirm"), card, directory=directory).interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.STALE


def test_an_option_that_is_not_on_the_card_is_rejected() -> None:
    card = _withdraw_card()
    outcome = _reduce(_answer(card, "delete-everything"), card).interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.REJECTED
    assert outcome.reason == INTERACTION_UNKNOWN_OPTION


def test_a_second_click_on_a_resolved_card_executes_nothing() -> None:
    card = _withdraw_card()
    turn = _answer(card, "confirm")
    reduction = turn.reduce(turn_id="turn-3", open_interactions=())
    outcome = reduction.interaction_outcome
    assert outcome is not None and outcome.reason == INTERACTION_UNKNOWN
    assert outcome.authorized_command_ids == () and reduction.batches == ()


def test_a_click_binds_more_strongly_than_text_about_the_same_command() -> None:
    card = _withdraw_card()
    turn = _answer(card, "decline", "Yes, withdraw Bob's trip.")
    turn.op(BOB, "withdraw", "withdraw Bob's trip")
    reduction = _reduce(turn, card)
    assert reduction.results[0].status is ActStatus.SUPERSEDED_BY_CORRECTION
    assert reduction.results[0].reason == ACT_OVERRIDDEN_BY_INTERACTION
    assert reduction.results[0].decided_by is None
    assert reduction.interactions == ()


def test_a_text_constraint_does_not_undo_a_confirmation_click() -> None:
    card = _withdraw_card()
    turn = _answer(card, "confirm", "Don't do anything destructive.")
    turn.forbid(ConstraintKind.NO_DESTRUCTIVE, "Don't do anything destructive")
    outcome = _reduce(turn, card).interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.CONFIRMED


def test_text_changes_after_a_confirmation_expect_the_revision_after_it() -> None:
    card = _withdraw_card()
    turn = _answer(card, "confirm", "And set the note to gone.")
    turn.set(BOB, "note", "gone", "set the note to gone")
    reduction = _reduce(turn, card)
    assert [b.expected_revision for b in reduction.batches] == [3]


def test_a_question_during_an_open_card_keeps_the_card() -> None:
    card = _withdraw_card()
    turn = Turn("What is Bob's status?")
    turn.ask("What is Bob's status?", target=BOB, question="status")
    reduction = turn.reduce(turn_id="turn-2", open_interactions=(card,))
    assert reduction.superseded_interaction_ids == ()
    assert reduction.results[0].status is ActStatus.READY_TO_EXECUTE


def test_a_new_confirmation_on_the_same_case_supersedes_the_open_card() -> None:
    card = _withdraw_card()
    turn = Turn("Withdraw Bob's trip because of rain.")
    turn.op(BOB, "withdraw", "Withdraw Bob's trip because of rain", reason="rain")
    reduction = turn.reduce(turn_id="turn-2", open_interactions=(card,))
    assert reduction.superseded_interaction_ids == (card.interaction_id,)


def _anna_card() -> InteractionToCreate:
    t = Turn("Set Anna's note to hello.")
    t.set(ANNA, "note", "hello", "Set Anna's note to hello")
    (card,) = t.reduce().interactions
    return card


def test_selecting_a_target_reduces_the_waiting_acts_on_the_chosen_case() -> None:
    card = _anna_card()
    option = next(o for o in card.options if o.case_id == "case-anna-rome")
    reduction = _reduce(_answer(card, option.option_id, revision=0), card)
    outcome = reduction.interaction_outcome
    assert outcome is not None and outcome.status is InteractionOutcomeStatus.TARGET_SELECTED
    assert [r.status for r in outcome.results] == [ActStatus.READY_TO_EXECUTE]
    assert commands(reduction) == [
        ("case-anna-rome", "set_field", {"field": "note", "value": "hello"})
    ]
    origin = reduction.batches[0].commands[0].origin
    assert origin == ActRef(index=0, interaction_id=card.interaction_id)


def test_text_beside_a_selection_still_applies_its_precedence_rules() -> None:
    card = _anna_card()
    option = card.options[0]
    turn = _answer(card, option.option_id, "That one, but leave Anna's note as it is.", 0)
    turn.keep(ANNA, "note", "leave Anna's note as it is")
    reduction = _reduce(turn, card)
    outcome = reduction.interaction_outcome
    assert outcome is not None
    assert outcome.results[0].reason == ACT_SUPERSEDED_BY_KEEP_UNCHANGED
    assert reduction.batches == ()
