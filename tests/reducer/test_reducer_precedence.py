"""Same-turn precedence, one rule per test."""

from __future__ import annotations

from reducer_kit import ANNA, BOB, CARLA, Turn, commands, statuses

from turnframe.plan import ConstraintKind
from turnframe.policy import AtomicityScope
from turnframe.results import (
    ACT_BLOCKED_BY_CONSTRAINT,
    ACT_CANCELLATION_APPLIED,
    ACT_CANCELLED,
    ACT_CONFLICTING_VALUES,
    ACT_CONSTRAINT_APPLIED,
    ACT_DUPLICATE,
    ACT_INSIDE_HYPOTHETICAL,
    ACT_KEPT_UNCHANGED,
    ACT_QUESTION_FOR_GROUNDING,
    ACT_READY,
    ACT_SUPERSEDED_BY_CORRECTION,
    ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
    ActRef,
    ActStatus,
)


def test_change_then_leave_it_is_a_no_op_with_no_command() -> None:
    t = Turn("Change Bob's travel date to Friday. Actually, leave the date as it is.")
    t.set(BOB, "travel_date", "Friday", "Change Bob's travel date to Friday")
    t.keep(BOB, "travel_date", "leave the date as it is")
    reduction = t.reduce()
    assert statuses(reduction) == [
        (ActStatus.SUPERSEDED_BY_CORRECTION, ACT_SUPERSEDED_BY_KEEP_UNCHANGED),
        (ActStatus.NO_CHANGE, ACT_KEPT_UNCHANGED),
    ]
    assert reduction.results[0].decided_by == ActRef(index=1)
    assert reduction.batches == ()


def test_keep_unchanged_placed_before_the_change_still_supersedes_it() -> None:
    t = Turn("Leave Bob's date alone. Set the date to Friday.")
    t.keep(BOB, "travel_date", "Leave Bob's date alone")
    t.set(BOB, "travel_date", "Friday", "Set the date to Friday")
    assert t.reduce().results[1].reason == ACT_SUPERSEDED_BY_KEEP_UNCHANGED


def test_the_issue_example_supersedes_the_date_readies_the_note_and_keeps_the_question() -> None:
    t = Turn(
        "Change the travel date to Friday and add a note: window seat. "
        "Actually, leave the date as it is. Is the discount still valid?"
    )
    t.set(BOB, "travel_date", "Friday", "Change the travel date to Friday")
    t.set(BOB, "note", "window seat", "add a note: window seat")
    t.keep(BOB, "travel_date", "leave the date as it is")
    t.ask("Is the discount still valid?", target=BOB)
    reduction = t.reduce()
    assert [r.status for r in reduction.results] == [
        ActStatus.SUPERSEDED_BY_CORRECTION,
        ActStatus.READY_TO_EXECUTE,
        ActStatus.NO_CHANGE,
        ActStatus.READY_TO_EXECUTE,
    ]
    assert commands(reduction) == [
        ("case-bob", "set_field", {"field": "note", "value": "window seat"})
    ]
    assert [g.act.index for g in reduction.grounding] == [3]


def test_a_later_explicit_correction_supersedes_the_earlier_value() -> None:
    t = Turn("Set Bob's date to Friday, no, Saturday.")
    t.set(BOB, "travel_date", "Friday", "Set Bob's date to Friday")
    t.correct(0, "Saturday", "no, Saturday")
    reduction = t.reduce()
    assert statuses(reduction) == [
        (ActStatus.SUPERSEDED_BY_CORRECTION, ACT_SUPERSEDED_BY_CORRECTION),
        (ActStatus.READY_TO_EXECUTE, ACT_READY),
    ]
    assert commands(reduction) == [
        ("case-bob", "set_field", {"field": "travel_date", "value": "2026-01-10"})
    ]


def test_the_last_correction_in_a_chain_wins() -> None:
    t = Turn("Bob goes to Rome, no, Madrid, no, Lisbon.")
    t.set(BOB, "destination", "Rome", "Bob goes to Rome")
    t.correct(0, "Madrid", "no, Madrid")
    t.correct(1, "Lisbon", "no, Lisbon")
    reduction = t.reduce()
    assert [r.decided_by for r in reduction.results[:2]] == [ActRef(index=2), ActRef(index=2)]
    assert commands(reduction) == [
        ("case-bob", "set_field", {"field": "destination", "value": "Lisbon"})
    ]


def test_a_correction_that_leaves_the_value_unchanged_causes_no_mutation() -> None:
    t = Turn("Move Bob to Rome. Sorry, I mean Paris.")
    t.set(BOB, "destination", "Rome", "Move Bob to Rome")
    t.correct(0, "Paris", "I mean Paris")
    reduction = t.reduce()
    assert reduction.results[1].status is ActStatus.NO_CHANGE
    assert reduction.batches == ()


def test_an_explicit_cancellation_supersedes_the_act_it_names() -> None:
    t = Turn("Submit Bob's request. No wait, don't do that.")
    t.op(BOB, "submit", "Submit Bob's request")
    t.cancel(0, "don't do that")
    reduction = t.reduce()
    assert statuses(reduction) == [
        (ActStatus.SUPERSEDED_BY_CORRECTION, ACT_CANCELLED),
        (ActStatus.NO_CHANGE, ACT_CANCELLATION_APPLIED),
    ]
    assert reduction.batches == ()


def test_a_cancellation_withdraws_the_corrections_of_the_act_too() -> None:
    t = Turn("Bob to Rome, no, Madrid. Forget the destination change.")
    t.set(BOB, "destination", "Rome", "Bob to Rome")
    t.correct(0, "Madrid", "no, Madrid")
    t.cancel(0, "Forget the destination change")
    reduction = t.reduce()
    assert [r.reason for r in reduction.results[:2]] == [ACT_CANCELLED, ACT_CANCELLED]
    assert reduction.batches == ()


def test_do_not_submit_placed_after_a_submission_still_blocks_it() -> None:
    t = Turn("Submit Bob's request. Actually, do not submit anything today.")
    t.op(BOB, "submit", "Submit Bob's request")
    t.forbid(ConstraintKind.NO_SUBMISSIONS, "do not submit anything today")
    reduction = t.reduce()
    assert statuses(reduction) == [
        (ActStatus.REJECTED, ACT_BLOCKED_BY_CONSTRAINT),
        (ActStatus.NO_CHANGE, ACT_CONSTRAINT_APPLIED),
    ]
    assert reduction.results[0].decided_by == ActRef(index=1)
    assert reduction.batches == ()


def test_a_constraint_blocks_only_what_it_forbids() -> None:
    t = Turn("Set Bob's note to aisle and submit it, but don't submit yet.")
    t.set(BOB, "note", "aisle", "Set Bob's note to aisle")
    t.op(BOB, "submit", "submit it")
    t.forbid(ConstraintKind.NO_SUBMISSIONS, "don't submit yet")
    reduction = t.reduce()
    assert [r.status for r in reduction.results] == [
        ActStatus.READY_TO_EXECUTE,
        ActStatus.REJECTED,
        ActStatus.NO_CHANGE,
    ]


def test_a_constraint_on_one_case_does_not_block_another_case() -> None:
    t = Turn("Submit Bob's and Carla's requests, but nothing on Carla's.")
    t.op(BOB, "submit", "Submit Bob's")
    t.op(CARLA, "tag", "Carla's requests", tag="vip")
    t.forbid(ConstraintKind.NO_CHANGES, "nothing on Carla's", target=CARLA)
    reduction = t.reduce()
    assert reduction.results[0].status is ActStatus.READY_TO_EXECUTE
    assert reduction.results[1].reason == ACT_BLOCKED_BY_CONSTRAINT


def test_a_named_operation_constraint_blocks_that_operation() -> None:
    t = Turn("Tag Bob's trip as vip. Don't tag anything.")
    t.op(BOB, "tag", "Tag Bob's trip as vip", tag="vip")
    t.forbid(ConstraintKind.NO_OPERATION, "Don't tag anything", operation="tag")
    assert t.reduce().results[0].reason == ACT_BLOCKED_BY_CONSTRAINT


def test_a_hypothetical_question_yields_no_cancel() -> None:
    t = Turn("What would happen if I cancelled Bob's trip?")
    t.ask("What would happen if I cancelled Bob's trip?", target=BOB, hypothetical=True)
    reduction = t.reduce()
    assert statuses(reduction) == [(ActStatus.READY_TO_EXECUTE, ACT_QUESTION_FOR_GROUNDING)]
    assert reduction.grounding[0].hypothetical
    assert reduction.batches == () and reduction.interactions == ()


def test_an_action_cited_inside_a_hypothetical_question_never_becomes_an_action() -> None:
    t = Turn("What would happen if I cancelled Bob's trip?")
    t.ask("What would happen if I cancelled Bob's trip?", target=BOB, hypothetical=True)
    t.op(BOB, "withdraw", "cancelled Bob's trip")
    reduction = t.reduce()
    assert statuses(reduction)[1] == (ActStatus.REJECTED, ACT_INSIDE_HYPOTHETICAL)
    assert reduction.batches == () and reduction.interactions == ()


def test_two_unlinked_different_values_for_one_field_ask_for_clarification() -> None:
    t = Turn("Bob flies on Friday. Bob flies on Monday.")
    t.set(BOB, "travel_date", "Friday", "Bob flies on Friday")
    t.set(BOB, "travel_date", "Monday", "Bob flies on Monday")
    reduction = t.reduce()
    assert statuses(reduction) == [
        (ActStatus.NEEDS_CLARIFICATION, ACT_CONFLICTING_VALUES),
        (ActStatus.NEEDS_CLARIFICATION, ACT_CONFLICTING_VALUES),
    ]
    assert [r.decided_by for r in reduction.results] == [ActRef(index=1), ActRef(index=0)]
    assert reduction.batches == ()


def test_the_same_value_said_twice_is_one_change() -> None:
    t = Turn("Bob flies on Friday. Yes, on 2026-01-09.")
    t.set(BOB, "travel_date", "Friday", "Bob flies on Friday")
    t.set(BOB, "travel_date", "2026-01-09", "on 2026-01-09")
    reduction = t.reduce()
    assert statuses(reduction)[1] == (ActStatus.NO_CHANGE, ACT_DUPLICATE)
    assert len(commands(reduction)) == 1


def test_two_fields_on_one_case_form_one_per_case_batch() -> None:
    t = Turn("Bob goes to Rome on Friday.")
    t.set(BOB, "destination", "Rome", "Bob goes to Rome")
    t.set(BOB, "travel_date", "Friday", "on Friday")
    reduction = t.reduce()
    assert len(reduction.batches) == 1
    batch = reduction.batches[0]
    assert (batch.case_id, batch.scope, batch.expected_revision) == (
        "case-bob",
        AtomicityScope.PER_CASE,
        2,
    )
    assert [c.args["field"] for c in batch.commands] == ["destination", "travel_date"]


def test_a_question_beside_a_rejected_action_is_still_answered() -> None:
    t = Turn("Submit Carla's request. When does Carla travel?")
    t.op(CARLA, "submit", "Submit Carla's request")
    t.ask("When does Carla travel?", target=CARLA, question="travel_date")
    reduction = t.reduce()
    assert reduction.results[0].status is ActStatus.REJECTED
    assert reduction.results[0].rejection is not None
    assert reduction.results[0].rejection.code == "trip.not_draft"
    assert statuses(reduction)[1] == (ActStatus.READY_TO_EXECUTE, ACT_QUESTION_FOR_GROUNDING)
    assert reduction.grounding[0].question == "travel_date"


def test_a_question_beside_an_ambiguous_action_is_still_answered() -> None:
    t = Turn("Set Anna's note to hello. What is Bob's status?")
    t.set(ANNA, "note", "hello", "Set Anna's note to hello")
    t.ask("What is Bob's status?", target=BOB, question="status")
    reduction = t.reduce()
    assert reduction.results[0].status is ActStatus.NEEDS_CLARIFICATION
    assert reduction.results[1].status is ActStatus.READY_TO_EXECUTE
