"""Every act status is rendered by at least one block; nothing disappears silently."""

from __future__ import annotations

from narration_kit import ANNA, BOB, CARLA, NOBODY, ConstraintKind, Narrated, Turn, narrate

from turnframe.narration import codes, uncovered_acts
from turnframe.response import BlockKind
from turnframe.results import ActStatus


def _status(n: Narrated, act: int) -> ActStatus:
    return n.reduction.results[act].status


def test_a_ready_act_that_committed_is_rendered_by_a_receipt() -> None:
    t = Turn("Add a note to Bob's trip: window seat.")
    t.set(BOB, "note", "window seat", "Add a note to Bob's trip: window seat")
    n = narrate(t)
    assert _status(n, 0) is ActStatus.READY_TO_EXECUTE
    assert [(b.kind, b.text) for b in n.covering(0)] == [
        (BlockKind.RECEIPT, "Trip “Bob”: note set to “window seat”.")
    ]


def test_an_awaiting_act_is_rendered_by_a_notice_and_its_card() -> None:
    t = Turn("Withdraw Bob's trip.")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    n = narrate(t)
    assert _status(n, 0) is ActStatus.AWAITING_CONFIRMATION
    assert [(b.code, b.text) for b in n.covering(0)] == [
        (
            codes.NOTICE_AWAITING_CONFIRMATION,
            "Not yet: withdraw on Trip “Bob” — waiting for your confirmation.",
        ),
        (codes.CARD_CONFIRM_COMMAND, "Please confirm: withdraw on Trip “Bob”."),
    ]


def test_an_act_on_an_ambiguous_case_is_rendered_by_a_notice_and_a_selection_card() -> None:
    t = Turn("Add a note to Anna's trip: aisle.")
    t.set(ANNA, "note", "aisle", "Add a note to Anna's trip: aisle")
    n = narrate(t)
    assert _status(n, 0) is ActStatus.NEEDS_CLARIFICATION
    assert [b.code for b in n.covering(0)] == [
        codes.NOTICE_NEEDS_CLARIFICATION,
        codes.CARD_SELECT_TARGET,
    ]
    assert n.covering(0)[1].text == "Which “Anna” do you mean?"


def test_an_act_on_an_unknown_case_needs_clarification_without_a_card() -> None:
    t = Turn("Add a note to Zed's trip: aisle.")
    t.set(NOBODY, "note", "aisle", "Add a note to Zed's trip: aisle")
    n = narrate(t)
    (block,) = n.covering(0)
    assert block.code == codes.NOTICE_NEEDS_CLARIFICATION
    assert block.text == (
        "Not done: note to “aisle” on “Zed” (no such case was found; say which case you mean)."
    )


def test_a_rejected_act_is_rendered_with_the_workflows_message() -> None:
    t = Turn("Submit Carla's trip.")
    t.op(CARLA, "submit", "Submit Carla's trip")
    n = narrate(t)
    assert _status(n, 0) is ActStatus.REJECTED
    (block,) = n.covering(0)
    assert (block.code, block.text) == (
        codes.NOTICE_REJECTED,
        "Not done: submit on Trip “Carla”. The request is submitted.",
    )


def test_an_invalid_value_is_rejected_with_its_detail() -> None:
    t = Turn("Set Bob's passengers to lots.")
    t.set(BOB, "passengers", "lots", "Set Bob's passengers to lots")
    (block,) = narrate(t).covering(0)
    assert block.code == codes.NOTICE_REJECTED
    assert block.text.startswith("Not done: passengers to “lots” on Trip “Bob” (the value is not")


def test_a_superseded_act_is_named_with_the_correction_that_replaced_it() -> None:
    t = Turn("Set Bob's note to aisle, no, window.")
    t.set(BOB, "note", "aisle", "Set Bob's note to aisle").correct(0, "window", "no, window")
    n = narrate(t)
    assert _status(n, 0) is ActStatus.SUPERSEDED_BY_CORRECTION
    (block,) = n.covering(0)
    assert (block.code, block.text) == (
        codes.NOTICE_SUPERSEDED,
        "Not used: note to “aisle” on Trip “Bob” (you corrected it to “window”).",
    )


def test_a_change_then_leave_it_names_the_unchanged_field() -> None:
    t = Turn("Change Bob's travel date to Friday. Actually, leave the date as it is.")
    t.set(BOB, "travel_date", "Friday", "Change Bob's travel date to Friday")
    t.keep(BOB, "travel_date", "leave the date as it is")
    n = narrate(t)
    assert [(b.code, b.acts, b.text) for b in n.blocks] == [
        (
            codes.NOTICE_KEPT_UNCHANGED,
            (0, 1),
            "Not changed: travel date on Trip “Bob” (you asked to leave it as it is).",
        )
    ]
    assert n.of_kind(BlockKind.RECEIPT) == []


def test_a_withdrawn_act_is_named_as_withdrawn() -> None:
    t = Turn("Submit Bob's trip. No wait, don't.")
    t.op(BOB, "submit", "Submit Bob's trip").cancel(0, "No wait, don't")
    n = narrate(t)
    assert [(b.code, b.acts, b.text) for b in n.blocks] == [
        (codes.NOTICE_SUPERSEDED, (0, 1), "Not done: submit on Trip “Bob” (you withdrew it).")
    ]


def test_a_blocked_act_is_rendered_with_the_constraint_that_blocked_it() -> None:
    t = Turn("Submit Bob's trip. Don't submit anything.")
    t.op(BOB, "submit", "Submit Bob's trip").forbid(
        ConstraintKind.NO_SUBMISSIONS, "Don't submit anything"
    )
    (block,) = narrate(t).blocks
    assert (block.code, block.acts, block.text) == (
        codes.NOTICE_BLOCKED_BY_CONSTRAINT,
        (0, 1),
        "Not done: submit on Trip “Bob” (you said not to submit anything).",
    )


def test_a_constraint_that_blocks_nothing_is_acknowledged() -> None:
    t = Turn("Don't submit anything.")
    t.forbid(ConstraintKind.NO_SUBMISSIONS, "Don't submit anything")
    (block,) = narrate(t).blocks
    assert (block.code, block.text) == (
        codes.NOTICE_CONSTRAINT_APPLIED,
        "Understood: nothing is submitted in this message.",
    )


def test_a_value_already_set_is_a_no_change_notice() -> None:
    t = Turn("Set Bob's destination to Paris.")
    t.set(BOB, "destination", "Paris", "Set Bob's destination to Paris")
    n = narrate(t)
    assert _status(n, 0) is ActStatus.NO_CHANGE
    (block,) = n.blocks
    assert (block.code, block.text) == (
        codes.NOTICE_NO_CHANGE,
        "Already so: destination on Trip “Bob” is already “Paris”.",
    )


def test_chitchat_gets_one_short_fixed_reply() -> None:
    t = Turn("Hello! Thanks a lot.")
    t.chat("Hello!").chat("Thanks a lot.")
    (block,) = narrate(t).blocks
    assert (block.kind, block.code, block.acts) == (BlockKind.TEXT, codes.TEXT_CHITCHAT, (0, 1))


def test_a_ready_act_that_was_not_executed_says_so_and_claims_nothing() -> None:
    t = Turn("Add a note to Bob's trip: window seat.")
    t.set(BOB, "note", "window seat", "Add a note to Bob's trip: window seat")
    (block,) = narrate(t, execute=False).blocks
    assert (block.code, block.text) == (
        codes.NOTICE_NOT_EXECUTED,
        "Not done: note to “window seat” on Trip “Bob” (it was not carried out).",
    )


def test_every_act_of_a_busy_turn_is_covered_by_some_block() -> None:
    t = Turn(
        "Change Bob's travel date to Friday and add a note: window seat. Actually, leave the "
        "date as it is. Is the discount still valid? What's the status? Withdraw Anna's trip, "
        "and submit Carla. Don't submit anything. Set Zed's note to x. hello"
    )
    t.set(BOB, "travel_date", "Friday", "Change Bob's travel date to Friday")
    t.set(BOB, "note", "window seat", "add a note: window seat")
    t.keep(BOB, "travel_date", "leave the date as it is")
    t.ask("Is the discount still valid?", target=BOB)
    t.ask("What's the status?", target=BOB, question="status")
    t.op(ANNA, "withdraw", "Withdraw Anna's trip")
    t.op(CARLA, "submit", "submit Carla")
    t.forbid(ConstraintKind.NO_SUBMISSIONS, "Don't submit anything")
    t.set(NOBODY, "note", "x", "Set Zed's note to x")
    t.chat("hello")
    n = narrate(t)
    assert uncovered_acts(n.blocks, n.reduction) == ()
    assert set(n.codes()) <= codes.BLOCK_CODES
