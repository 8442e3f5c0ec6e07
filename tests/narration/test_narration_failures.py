"""Turns that failed as a whole, and turns with nothing to say, are never silent."""

from __future__ import annotations

import pytest
from narration_kit import BOB, Turn, narrate

from turnframe.execution import ExecutionReport
from turnframe.narration import (
    NarrationError,
    TurnFailure,
    TurnFailureKind,
    codes,
    compose_blocks,
)
from turnframe.plan import PlanProblem, PlanRejected
from turnframe.testing import make_turn


def test_a_rejected_plan_gets_one_plan_rejected_notice() -> None:
    error = PlanRejected([PlanProblem(act_index=1, field="kind", message="unknown tag")])
    failure = TurnFailure.of(TurnFailureKind.PLAN_REJECTED, error)
    (block,) = compose_blocks(
        turn=make_turn("Do it and blorp."),
        plan=None,
        reduction=None,
        execution=None,
        cards=(),
        answers=(),
        failure=failure,
    )
    assert (block.code, block.acts) == (codes.NOTICE_PLAN_REJECTED, ())
    assert block.data == {"failure": "plan_rejected", "error_code": "turnframe.plan.rejected"}
    assert "nothing was done" in block.text


def test_an_interpretation_failure_gets_one_interpretation_failed_notice() -> None:
    failure = TurnFailure(kind=TurnFailureKind.INTERPRETATION_FAILED)
    (block,) = compose_blocks(
        turn=make_turn("Set the note."),
        plan=None,
        reduction=None,
        execution=None,
        cards=(),
        answers=(),
        failure=failure,
    )
    assert block.code == codes.NOTICE_INTERPRETATION_FAILED


def test_a_plan_with_no_acts_is_not_understood_as_a_whole() -> None:
    (block,) = narrate(Turn("blorp the fnord")).blocks
    assert (block.code, block.text) == (
        codes.NOTICE_NOT_UNDERSTOOD,
        "Not understood: “blorp the fnord”.",
    )


def test_an_unreadable_span_is_noticed_where_it_stands_between_acts() -> None:
    t = Turn("Set Bob's note to hi, blorp the fnord, and tell me about truth.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi").unreadable("blorp the fnord")
    t.ask("tell me about truth.")
    n = narrate(t)
    assert [(b.code, b.acts) for b in n.blocks][1] == (codes.NOTICE_NOT_UNDERSTOOD, ())
    assert n.blocks[1].text == "Not understood: “blorp the fnord”."


def test_an_execution_failure_leaves_ready_acts_not_executed() -> None:
    t = Turn("Set Bob's note to hi.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    failure = TurnFailure(kind=TurnFailureKind.EXECUTION_FAILED)
    (block,) = narrate(t, execution=ExecutionReport(), failure=failure).blocks
    assert block.code == codes.NOTICE_NOT_EXECUTED


def test_a_plan_without_its_reduction_or_a_failure_is_a_wiring_error() -> None:
    t = Turn("Set Bob's note to hi.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    with pytest.raises(NarrationError):
        compose_blocks(
            turn=t.turn, plan=t.plan, reduction=None, execution=None, cards=(), answers=()
        )


def test_a_failure_may_be_named_by_its_kinds_value() -> None:
    t = Turn("Withdraw Bob's trip.")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    (block,) = narrate(t, failure="cards_not_persisted").blocks
    assert block.code == codes.NOTICE_NOT_PREPARED


def test_an_unknown_failure_name_is_a_wiring_error() -> None:
    with pytest.raises(NarrationError):
        compose_blocks(
            turn=make_turn("hi"),
            plan=None,
            reduction=None,
            execution=None,
            cards=(),
            answers=(),
            failure="exploded",
        )
