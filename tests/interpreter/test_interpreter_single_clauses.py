"""One clause, one act: what the rules interpreter reads, the evidence it cites, and what the
reducer then decides against the sample desks' seed data (Wednesday 2026-01-07 09:30 UTC)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from interpreter_kit import REFUND, read

from turnframe.plan import ConstraintAct, OperationAct, QuestionAct, SetFieldAct
from turnframe.results import (
    ACT_AWAITING_CONFIRMATION,
    ACT_CHITCHAT,
    ACT_CONSTRAINT_APPLIED,
    ACT_INVALID_VALUE,
    ACT_KEPT_UNCHANGED,
    ACT_QUESTION_FOR_GROUNDING,
    ACT_READY,
    ACT_RECALL_FOR_GROUNDING,
    ACT_REJECTED_BY_WORKFLOW,
)


@attrs.frozen(kw_only=True)
class Case:
    text: str
    kind: str
    name: str | None  # field, operation, question or constraint rule the act names
    said: Any  # the value or args as the act carries them (text)
    evidence: str
    reason: str
    command: Any = None  # the reduced command's value / args (JSON), when one is planned
    desk: str = "travel-desk"
    focus: str | None = None
    rejection: str | None = None  # the workflow's own code, when it refused


def _name(act: Any) -> str | None:
    if isinstance(act, SetFieldAct):
        return act.field
    if isinstance(act, OperationAct):
        return act.operation
    if isinstance(act, QuestionAct):
        return act.question
    if isinstance(act, ConstraintAct):
        return act.operation or act.forbids.value
    return getattr(act, "field", None)


def _said(act: Any) -> Any:
    return getattr(act, "value", None) or getattr(act, "args", None)


CASES = {
    "a field is set with change ... to": Case(
        text="Change the travel date to Friday",
        kind="set_field",
        name="travel_date",
        said="Friday",
        evidence="Change the travel date to Friday",
        reason=ACT_READY,
        command="2026-01-09",
    ),
    "a field is set with the field is": Case(
        text="the name is Lisbon for March",
        kind="set_field",
        name="name",
        said="Lisbon for March",
        evidence="the name is Lisbon for March",
        reason=ACT_READY,
        command="Lisbon for March",
    ),
    "a field is set with set ... to": Case(
        text="set the note to window seat",
        kind="set_field",
        name="note",
        said="window seat",
        evidence="set the note to window seat",
        reason=ACT_READY,
        command="window seat",
    ),
    "a field is set by one of its aliases": Case(
        text="Set the return to Sunday.",
        kind="set_field",
        name="return_date",
        said="Sunday",
        evidence="Set the return to Sunday",
        reason=ACT_READY,
        command="2026-01-11",
    ),
    "a note is added with a colon": Case(
        text="Add a note: bring the passport",
        kind="set_field",
        name="note",
        said="bring the passport",
        evidence="Add a note: bring the passport",
        reason=ACT_READY,
        command="bring the passport",
    ),
    "a money field is set and parsed into cents": Case(
        text="set the budget to 900 euros",
        kind="set_field",
        name="budget",
        said="900 euros",
        evidence="set the budget to 900 euros",
        reason=ACT_READY,
        command=90000,
    ),
    "a possessive label names the case": Case(
        text="change Lisbon's travel date to tomorrow",
        kind="set_field",
        name="travel_date",
        said="tomorrow",
        evidence="change Lisbon's travel date to tomorrow",
        reason=ACT_READY,
        command="2026-01-08",
    ),
    "a value that does not parse is rejected, not guessed": Case(
        text="set the travel date to purple",
        kind="set_field",
        name="travel_date",
        said="purple",
        evidence="set the travel date to purple",
        reason=ACT_INVALID_VALUE,
    ),
    "an operation reads its arguments by their parsers": Case(
        text="add an extra: 3 nights at the hotel at 80 euros each",
        kind="operation",
        name="add_extra",
        said={"item": "nights at the hotel", "quantity": "3", "unit_price": "80 euros"},
        evidence="add an extra: 3 nights at the hotel at 80 euros each",
        reason=ACT_READY,
        command={"item": "nights at the hotel", "quantity": 3, "unit_price": 8000},
    ),
    "an operation reads a text argument after its cue": Case(
        text="add 2 lounge passes at 15 euros each paid by the company",
        kind="operation",
        name="add_extra",
        said={
            "item": "lounge passes",
            "quantity": "2",
            "unit_price": "15 euros",
            "paid_by": "the company",
        },
        evidence="add 2 lounge passes at 15 euros each paid by the company",
        reason=ACT_READY,
        command={
            "item": "lounge passes",
            "quantity": 2,
            "unit_price": 1500,
            "paid_by": "the company",
        },
    ),
    "a destructive operation waits for a confirmation card": Case(
        text="withdraw this trip",
        kind="operation",
        name="withdraw",
        said={},
        evidence="withdraw this trip",
        reason=ACT_AWAITING_CONFIRMATION,
        command={},
    ),
    "a reason argument follows because": Case(
        text="withdraw it because the client cancelled",
        kind="operation",
        name="withdraw",
        said={"reason": "the client cancelled"},
        evidence="withdraw it because the client cancelled",
        reason=ACT_AWAITING_CONFIRMATION,
        command={"reason": "the client cancelled"},
    ),
    "an operation alias is read as the operation": Case(
        text="call it off",
        kind="operation",
        name="withdraw",
        said={},
        evidence="call it off",
        reason=ACT_AWAITING_CONFIRMATION,
        command={},
    ),
    "the submission runs on a complete trip": Case(
        text="submit it",
        kind="operation",
        name="submit",
        said={},
        evidence="submit it",
        reason=ACT_READY,
        command={},
    ),
    "a polite request is read as the action": Case(
        text="Could you submit it please?",
        kind="operation",
        name="submit",
        said={},
        evidence="submit it",
        reason=ACT_READY,
        command={},
    ),
    "send the request is the submission": Case(
        text="send the request",
        kind="operation",
        name="submit",
        said={},
        evidence="send the request",
        reason=ACT_READY,
        command={},
    ),
    "a rebooking waits for a confirmation card": Case(
        text="rebook the return flight to next Monday",
        kind="operation",
        name="rebook",
        said={"leg": "return flight", "date": "next Monday"},
        evidence="rebook the return flight to next Monday",
        reason=ACT_AWAITING_CONFIRMATION,
        command={"leg": "return", "date": "2026-01-12"},
    ),
    "a rebooking reads a flight after its cue": Case(
        text="rebook the outbound flight to Friday on flight TP1349",
        kind="operation",
        name="rebook",
        said={"leg": "outbound flight", "date": "Friday", "flight": "TP1349"},
        evidence="rebook the outbound flight to Friday on flight TP1349",
        reason=ACT_AWAITING_CONFIRMATION,
        command={"leg": "outbound", "date": "2026-01-09", "flight": "TP1349"},
    ),
    "the read-only question is named by its alias": Case(
        text="Is the discount still valid?",
        kind="question",
        name="discount_valid",
        said=None,
        evidence="Is the discount still valid?",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "a question about a field names the workflow question": Case(
        text="What's the travel date?",
        kind="question",
        name="travel_date",
        said=None,
        evidence="What's the travel date?",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "a how-much question names the workflow question": Case(
        text="How much are the extras?",
        kind="question",
        name="extras_total",
        said=None,
        evidence="How much are the extras?",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "a knowledge narrative names no workflow question": Case(
        text="Tell me about refunds",
        kind="question",
        name=None,
        said=None,
        evidence="Tell me about refunds",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "a definition question names no workflow question": Case(
        text="What is a fare difference?",
        kind="question",
        name=None,
        said=None,
        evidence="What is a fare difference?",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "a question about a shipped corpus subject is a knowledge question": Case(
        text="Tell me about truth.",
        kind="question",
        name=None,
        said=None,
        evidence="Tell me about truth",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "an example question is a knowledge question": Case(
        text="Give me an example of a non-refundable extra",
        kind="question",
        name=None,
        said=None,
        evidence="Give me an example of a non-refundable extra",
        reason=ACT_QUESTION_FOR_GROUNDING,
    ),
    "a vague memory is a recall": Case(
        text="do you remember the hotel we talked about?",
        kind="recall",
        name=None,
        said=None,
        evidence="do you remember the hotel we talked about?",
        reason=ACT_RECALL_FOR_GROUNDING,
    ),
    "thanks is chitchat": Case(
        text="thanks!",
        kind="chitchat",
        name=None,
        said=None,
        evidence="thanks",
        reason=ACT_CHITCHAT,
    ),
    "a goodbye is one chitchat act": Case(
        text="ok, see you later",
        kind="chitchat",
        name=None,
        said=None,
        evidence="ok, see you later",
        reason=ACT_CHITCHAT,
    ),
    "do not send anything yet forbids submissions": Case(
        text="do not send anything yet",
        kind="constraint",
        name="no_submissions",
        said=None,
        evidence="do not send anything yet",
        reason=ACT_CONSTRAINT_APPLIED,
    ),
    "a negated operation forbids that operation": Case(
        text="don't withdraw it",
        kind="constraint",
        name="withdraw",
        said=None,
        evidence="don't withdraw it",
        reason=ACT_CONSTRAINT_APPLIED,
    ),
    "don't change anything forbids every change": Case(
        text="Don't change anything",
        kind="constraint",
        name="no_changes",
        said=None,
        evidence="Don't change anything",
        reason=ACT_CONSTRAINT_APPLIED,
    ),
    "keep the field is keep-unchanged": Case(
        text="keep the note as it is",
        kind="keep_unchanged",
        name="note",
        said=None,
        evidence="keep the note as it is",
        reason=ACT_KEPT_UNCHANGED,
    ),
    "don't touch a field is keep-unchanged": Case(
        text="don't touch the return",
        kind="keep_unchanged",
        name="return_date",
        said=None,
        evidence="don't touch the return",
        reason=ACT_KEPT_UNCHANGED,
    ),
    "a refund waits for an explicit click": Case(
        text="refund 20 euros on order 1001",
        kind="operation",
        name="refund",
        said={"amount": "20 euros"},
        evidence="refund 20 euros on order 1001",
        reason=ACT_AWAITING_CONFIRMATION,
        command={"amount": 2000},
        desk=REFUND.name,
    ),
    "a refund alias with cents is read as the refund": Case(
        text="pay back 12.50 euros on order 1001",
        kind="operation",
        name="refund",
        said={"amount": "12.50 euros"},
        evidence="pay back 12.50 euros on order 1001",
        reason=ACT_AWAITING_CONFIRMATION,
        command={"amount": 1250},
        desk=REFUND.name,
    ),
    "a refund reason stops before the order it names": Case(
        text="refund 20 euros because the strap broke on order 1001",
        kind="operation",
        name="refund",
        said={"amount": "20 euros", "reason": "the strap broke"},
        evidence="refund 20 euros because the strap broke on order 1001",
        reason=ACT_AWAITING_CONFIRMATION,
        command={"amount": 2000, "reason": "the strap broke"},
        desk=REFUND.name,
    ),
    "a refund without a receipt is refused by the workflow": Case(
        text="refund 10 euros on order 1002",
        kind="operation",
        name="refund",
        said={"amount": "10 euros"},
        evidence="refund 10 euros on order 1002",
        reason=ACT_REJECTED_BY_WORKFLOW,
        desk=REFUND.name,
        rejection="refund.no_receipt",
    ),
    "an email field is set on the named order": Case(
        text="set the contact email to ana@example.com on order 1001",
        kind="set_field",
        name="contact_email",
        said="ana@example.com",
        evidence="set the contact email to ana@example.com on order 1001",
        reason=ACT_READY,
        command="ana@example.com",
        desk=REFUND.name,
    ),
    "a bad email is refused by the field's validator": Case(
        text="set the email to nobody for order 1002",
        kind="set_field",
        name="contact_email",
        said="nobody",
        evidence="set the email to nobody for order 1002",
        reason=ACT_REJECTED_BY_WORKFLOW,
        desk=REFUND.name,
        rejection="refund.bad_email",
    ),
    "a refund question names the order": Case(
        text="How much can be refunded on order 1002?",
        kind="question",
        name="refundable",
        said=None,
        evidence="How much can be refunded on order 1002?",
        reason=ACT_QUESTION_FOR_GROUNDING,
        desk=REFUND.name,
    ),
    "a receipt question names the workflow question": Case(
        text="Is there a receipt for order 1002?",
        kind="question",
        name="receipt",
        said=None,
        evidence="Is there a receipt for order 1002?",
        reason=ACT_QUESTION_FOR_GROUNDING,
        desk=REFUND.name,
    ),
    "a refund policy narrative is a knowledge question": Case(
        text="Tell me about refunds",
        kind="question",
        name=None,
        said=None,
        evidence="Tell me about refunds",
        reason=ACT_QUESTION_FOR_GROUNDING,
        desk=REFUND.name,
    ),
    "don't refund anything forbids the refund": Case(
        text="don't refund anything yet",
        kind="constraint",
        name="refund",
        said=None,
        evidence="don't refund anything yet",
        reason=ACT_CONSTRAINT_APPLIED,
        desk=REFUND.name,
    ),
    "a note on the focused order is set": Case(
        text="add a note: customer called twice",
        kind="set_field",
        name="note",
        said="customer called twice",
        evidence="add a note: customer called twice",
        reason=ACT_READY,
        command="customer called twice",
        desk=REFUND.name,
        focus="Order 1002",
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_single_clause_reads_as_one_act_with_its_evidence_and_result(case: Case) -> None:
    reading = read(case.text, case.desk, focus=case.focus)
    (act,) = reading.acts
    assert (act.kind, _name(act), _said(act)) == (case.kind, case.name, case.said)
    assert reading.evidence(0) == [case.evidence]
    assert reading.reasons == [case.reason]
    assert reading.unread == []
    rejection = reading.results[0].rejection
    assert (rejection.code if rejection else None) == case.rejection
    if case.command is not None:
        args = reading.args(0)
        assert (args["value"] if act.kind == "set_field" else args) == case.command
