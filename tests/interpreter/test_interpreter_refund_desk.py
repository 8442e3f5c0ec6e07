"""The refund desk: a refund taken back moves nothing; an over-refund is refused before any
card; a refund is an external payment that waits for an explicit click."""

from __future__ import annotations

from interpreter_kit import REFUND, case_id, read

from turnframe.plan import LabelTarget
from turnframe.policy import AtomicityScope
from turnframe.results import (
    ACT_AWAITING_CONFIRMATION,
    ACT_CANCELLATION_APPLIED,
    ACT_CANCELLED,
    ACT_REJECTED_BY_WORKFLOW,
    ACT_UNKNOWN_TARGET,
    InteractionKind,
)

ORDER_1001 = "Order 1001"


def test_a_refund_taken_back_in_the_same_message_moves_nothing() -> None:
    reading = read("refund 20 euros \u2026 actually don't", REFUND.name, focus=ORDER_1001)
    assert reading.kinds == ["operation", "cancel"]
    assert [reading.evidence(0), reading.evidence(1)] == [["refund 20 euros"], ["actually don't"]]
    assert reading.reasons == [ACT_CANCELLED, ACT_CANCELLATION_APPLIED]
    assert reading.reduction.batches == ()
    assert reading.reduction.interactions == ()


def test_a_refund_over_what_was_paid_is_refused_with_the_workflows_reason_and_no_card() -> None:
    reading = read("Refund 500 euros on order 1001", REFUND.name)
    assert reading.reasons == [ACT_REJECTED_BY_WORKFLOW]
    rejection = reading.results[0].rejection
    assert rejection is not None and rejection.code == "refund.exceeds_paid"
    assert "120.00 EUR was paid" in rejection.message
    assert reading.reduction.interactions == ()
    assert reading.reduction.batches == ()


def test_a_refund_waits_on_one_confirmation_card_as_an_external_saga() -> None:
    reading = read("refund 20 euros on order 1001", REFUND.name)
    (card,) = reading.reduction.interactions
    assert card.kind is InteractionKind.CONFIRM_COMMAND
    assert card.case_id == case_id(REFUND.name, "order-1001")
    (batch,) = card.awaiting_batches
    assert batch.scope is AtomicityScope.EXTERNAL_SAGA
    assert reading.reasons == [ACT_AWAITING_CONFIRMATION]


def test_a_same_breath_correction_of_a_refund_cancels_it_and_asks_for_the_new_amount() -> None:
    reading = read("refund 50 euros on order 1001, no wait, 35", REFUND.name)
    assert reading.kinds == ["operation", "cancel", "operation"]
    assert reading.evidence(1) == ["no wait, 35"]
    assert reading.evidence(2) == ["refund 50 euros on order 1001", "35"]
    assert reading.reasons == [ACT_CANCELLED, ACT_CANCELLATION_APPLIED, ACT_AWAITING_CONFIRMATION]
    assert reading.args(2) == {"amount": 3500}
    assert len(reading.reduction.interactions) == 1


def test_a_refund_restated_after_actually_replaces_the_first_amount() -> None:
    reading = read("Refund 20 euros on order 1001. Actually, refund 25 euros.", REFUND.name)
    assert reading.kinds == ["operation", "cancel", "operation"]
    assert reading.acts[2].target == LabelTarget(label=ORDER_1001)  # type: ignore[union-attr]
    assert reading.args(2) == {"amount": 2500}


def test_a_refund_with_two_orders_and_none_named_asks_which_order() -> None:
    reading = read("refund 20 euros", REFUND.name)
    assert reading.acts[0].target == LabelTarget(label="")  # type: ignore[union-attr]
    assert reading.reasons == [ACT_UNKNOWN_TARGET]
    assert reading.reduction.interactions == ()


def test_it_refers_to_the_order_named_earlier_in_the_turn() -> None:
    reading = read("Add a note: customer called for order 1002. Refund it 5 euros.", REFUND.name)
    assert reading.acts[1].target == LabelTarget(label="Order 1002")  # type: ignore[union-attr]


def test_do_not_send_anything_yet_blocks_a_refund_on_the_refund_desk() -> None:
    reading = read("refund 20 euros on order 1001 and do not send anything yet", REFUND.name)
    assert reading.kinds == ["operation", "constraint"]
    assert reading.statuses == ["rejected", "no_change"]
    assert reading.reduction.interactions == ()
