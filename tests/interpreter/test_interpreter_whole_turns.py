"""Several clauses in one message: the demo's first turn, same-breath corrections,
cancellations, keep-unchanged and constraints wherever they stand, hypotheticals."""

from __future__ import annotations

from interpreter_kit import read

from turnframe.plan import CorrectAct, NewCaseTarget, SetFieldAct
from turnframe.results import (
    ACT_BLOCKED_BY_CONSTRAINT,
    ACT_CANCELLATION_APPLIED,
    ACT_CANCELLED,
    ACT_CONSTRAINT_APPLIED,
    ACT_KEPT_UNCHANGED,
    ACT_QUESTION_FOR_GROUNDING,
    ACT_READY,
    ACT_SUPERSEDED_BY_CORRECTION,
    ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
    ActRef,
)

DEMO = (
    "Change the travel date to Friday and add a note: window seat please. "
    "Actually, leave the date as it is. Is the discount still valid?"
)


def test_the_demo_turn_keeps_the_date_adds_the_note_and_asks_about_the_discount() -> None:
    reading = read(DEMO)
    assert reading.kinds == ["set_field", "set_field", "keep_unchanged", "question"]
    assert [reading.evidence(i) for i in range(4)] == [
        ["Change the travel date to Friday"],
        ["add a note: window seat"],
        ["leave the date as it is"],
        ["Is the discount still valid?"],
    ]
    assert reading.reasons == [
        ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
        ACT_READY,
        ACT_KEPT_UNCHANGED,
        ACT_QUESTION_FOR_GROUNDING,
    ]
    (batch,) = reading.reduction.batches
    assert [c.args for c in batch.commands] == [{"field": "note", "value": "window seat"}]
    (question,) = reading.reduction.grounding
    assert question.question == "discount_valid"
    assert reading.reduction.interactions == ()


def test_a_same_breath_correction_links_to_the_value_it_corrects() -> None:
    reading = read("set the budget to 150 euros, no wait, 135")
    assert reading.acts[1] == CorrectAct(corrects=0, value="135", evidence=reading.acts[1].evidence)
    assert reading.evidence(1) == ["no wait, 135"]
    assert reading.reasons == [ACT_SUPERSEDED_BY_CORRECTION, ACT_READY]
    assert reading.args(1) == {"field": "budget", "value": 13500}


def test_a_corrected_relative_date_is_read_from_the_turns_clock() -> None:
    reading = read("Change the travel date to Friday, no wait, Saturday")
    assert reading.kinds == ["set_field", "correct"]
    assert reading.args(1) == {"field": "travel_date", "value": "2026-01-10"}


def test_make_it_corrects_the_previous_change_without_a_marker() -> None:
    reading = read("Change the date to Friday. Make it Saturday.")
    assert reading.kinds == ["set_field", "correct"]
    assert reading.evidence(1) == ["Make it Saturday"]
    assert reading.args(1)["value"] == "2026-01-10"


def test_a_corrected_operation_argument_cancels_the_operation_and_reissues_it() -> None:
    reading = read("add an extra: 3 nights at the hotel at 80 euros each, no wait, 75")
    assert reading.kinds == ["operation", "cancel", "operation"]
    assert reading.evidence(2) == ["add an extra: 3 nights at the hotel at 80 euros each", "75"]
    assert reading.reasons == [ACT_CANCELLED, ACT_CANCELLATION_APPLIED, ACT_READY]
    assert reading.args(2) == {"item": "nights at the hotel", "quantity": 3, "unit_price": 7500}


def test_a_cancelled_note_changes_nothing() -> None:
    reading = read("Add a note: late check-in, actually don't.")
    assert reading.kinds == ["set_field", "cancel"]
    assert reading.evidence(1) == ["actually don't"]
    assert reading.reasons == [ACT_CANCELLED, ACT_CANCELLATION_APPLIED]
    assert reading.reduction.batches == ()


def test_never_mind_cancels_the_latest_change_only() -> None:
    reading = read("Set the note to aisle and change the date to Friday. Never mind.")
    assert reading.kinds == ["set_field", "set_field", "cancel"]
    assert reading.acts[2].cancels == 1  # type: ignore[union-attr]
    assert reading.reasons == [ACT_READY, ACT_CANCELLED, ACT_CANCELLATION_APPLIED]


def test_a_constraint_after_the_submission_still_blocks_it() -> None:
    reading = read("Submit it. Don't submit.")
    assert reading.kinds == ["operation", "constraint"]
    assert reading.reasons == [ACT_BLOCKED_BY_CONSTRAINT, ACT_CONSTRAINT_APPLIED]
    assert reading.results[0].decided_by == ActRef(index=1)
    assert reading.reduction.batches == ()


def test_do_not_send_anything_yet_after_send_the_request_blocks_it() -> None:
    reading = read("send the request, and do not send anything yet")
    assert reading.evidence(1) == ["do not send anything yet"]
    assert reading.reasons == [ACT_BLOCKED_BY_CONSTRAINT, ACT_CONSTRAINT_APPLIED]


def test_dont_touch_the_return_after_moving_it_keeps_it_unchanged() -> None:
    reading = read("Set the return to Sunday. Don't touch the return.")
    assert reading.kinds == ["set_field", "keep_unchanged"]
    assert reading.reasons == [ACT_SUPERSEDED_BY_KEEP_UNCHANGED, ACT_KEPT_UNCHANGED]


def test_actually_dont_touch_the_field_withdraws_the_earlier_change() -> None:
    reading = read("Set the return to Sunday. Actually, don't touch the return.")
    assert reading.kinds == ["set_field", "cancel"]
    assert reading.reasons == [ACT_CANCELLED, ACT_CANCELLATION_APPLIED]


def test_leave_it_as_it_is_keeps_the_field_the_turn_changed() -> None:
    reading = read("Set the note to aisle. Actually leave it as it is.")
    assert reading.kinds == ["set_field", "keep_unchanged"]
    assert reading.acts[1].field == "note"  # type: ignore[union-attr]
    assert reading.reduction.batches == ()


def test_a_hypothetical_question_never_becomes_the_action_it_mentions() -> None:
    reading = read("Submit it. What would happen if I withdrew it?")
    assert reading.kinds == ["operation", "question"]
    assert reading.acts[1].hypothetical is True  # type: ignore[union-attr]
    assert reading.evidence(1) == ["What would happen if I withdrew it?"]
    assert reading.reduction.interactions == ()
    assert reading.reduction.grounding[0].hypothetical is True


def test_several_clauses_split_on_semicolons_and_before_a_new_verb() -> None:
    reading = read("Set the note to aisle seat; submit it and is the discount still valid?")
    assert reading.kinds == ["set_field", "operation", "question"]
    assert [reading.evidence(i) for i in range(3)] == [
        ["Set the note to aisle seat"],
        ["submit it"],
        ["is the discount still valid?"],
    ]
    assert reading.reasons == [ACT_READY, ACT_READY, ACT_QUESTION_FOR_GROUNDING]


def test_an_elliptical_second_field_after_and_is_its_own_change() -> None:
    reading = read("Change the travel date to Friday and the note to aisle")
    assert [a.field for a in reading.acts] == ["travel_date", "note"]  # type: ignore[union-attr]
    assert reading.evidence(1) == ["the note to aisle"]


def test_two_unlinked_values_for_one_field_are_asked_about_not_guessed() -> None:
    reading = read("Change the date to Friday. Change the date to Monday.")
    assert reading.statuses == ["needs_clarification", "needs_clarification"]


def test_an_actually_in_front_of_the_same_field_is_a_correction() -> None:
    reading = read("Change the date to Friday. Actually, change the date to Monday.")
    assert isinstance(reading.acts[1], CorrectAct)
    assert reading.args(1)["value"] == "2026-01-12"


def test_what_cannot_be_read_is_not_understood_and_the_rest_still_counts() -> None:
    reading = read("blorp the fnord, and submit it")
    assert reading.unread == ["blorp the fnord"]
    assert reading.kinds == ["operation"]
    assert [n.code for n in reading.reduction.notices] == ["turnframe.notice.not_understood"]


def test_words_after_an_operation_that_nothing_reads_are_not_understood() -> None:
    reading = read("submit it to the boss")
    assert reading.kinds == ["operation"]
    assert reading.unread == ["it to the boss"]


def test_add_a_field_without_a_value_is_not_read_as_an_extra() -> None:
    # Round 2 (#12): the note with no value is asked for; it is still never an extra.
    reading = read("add a note")
    assert reading.kinds == ["set_field"]
    assert reading.acts[0].field == "note" and reading.acts[0].value == ""  # type: ignore[union-attr]
    assert reading.statuses == ["needs_clarification"]
    assert reading.unread == []


def test_a_new_case_takes_the_changes_that_follow_it() -> None:
    reading = read("start a new trip called Porto and set the travel date to tomorrow")
    assert reading.kinds == ["start_case", "set_field"]
    assert reading.acts[1].target == NewCaseTarget(start_act=0)  # type: ignore[union-attr]
    (batch,) = reading.reduction.batches
    assert batch.creates_case and [c.name for c in batch.commands] == ["start_case", "set_field"]


def test_a_label_after_the_value_names_the_case_and_leaves_the_value() -> None:
    reading = read("set the note to window seat for Lisbon")
    act = reading.acts[0]
    assert isinstance(act, SetFieldAct)
    assert (act.value, act.target.label) == ("window seat", "Lisbon")  # type: ignore[union-attr]


def test_actually_no_after_an_operation_cancels_it() -> None:
    reading = read("Withdraw it. Actually no.")
    assert reading.kinds == ["operation", "cancel"]
    assert reading.reduction.interactions == ()


def test_a_constraint_followed_by_words_it_cannot_read_keeps_the_constraint() -> None:
    reading = read("don't submit it, the boss wants to see it first")
    assert reading.kinds == ["constraint"]
    assert reading.evidence(0) == ["don't submit it"]
    assert reading.unread == ["the boss wants to see it first"]


def test_just_after_a_comma_starts_a_new_clause() -> None:
    reading = read("don't submit it yet, just add a note: call me")
    assert reading.kinds == ["constraint", "set_field"]
    assert reading.statuses == ["no_change", "ready_to_execute"]


def test_a_conditional_question_is_one_hypothetical_question() -> None:
    reading = read("If I withdraw it, what happens to the extras?")
    assert reading.kinds == ["question"]
    assert reading.acts[0].hypothetical is True  # type: ignore[union-attr]
    assert reading.evidence(0) == ["If I withdraw it, what happens to the extras?"]


def test_rename_sets_the_field_called_name() -> None:
    reading = read("Rename the trip to Lisbon spring")
    assert reading.args(0) == {"field": "name", "value": "Lisbon spring"}
