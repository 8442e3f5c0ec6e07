"""The refund desk: orders with the amount paid, and refunds sent to a payment provider.

- Fields (routine): ``note``, ``contact_email``.
- ``refund(amount, reason?)``: an ``external_saga`` command (it commits alone, with an outbox
  message to the ``payments`` channel), always confirmed by an explicit click. The workflow
  refuses a refund over what is left of the amount paid, and one on an order without a receipt;
  the reducer runs the handler before any card is made, so a refused refund never gets one.
- Questions: ``refundable``, ``amount_paid``, ``status``, ``receipt``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import date
from typing import Any

import attrs

from turnframe.examples.corpora import REFUND_POLICY, register_policy_corpus
from turnframe.examples.parsing import euros, parse_money, parse_text
from turnframe.examples.seeds import SeedCase
from turnframe.policy import AtomicityScope, CommandPolicy
from turnframe.results import Rejection
from turnframe.workflow import (
    Argument,
    Condition,
    DomainEvent,
    ExternalEffect,
    Field,
    Operation,
    Question,
    Workflow,
)

REFUND_DESK = "refund-desk"
ROUTINE = CommandPolicy.routine()
PAYMENTS_CHANNEL = "payments"


@attrs.frozen(kw_only=True)
class Order:
    order_number: str = ""
    customer: str = ""
    item: str = ""
    amount_paid: int = 0  # euro cents
    refunded: int = 0  # euro cents, committed refunds
    receipt: bool = False
    note: str = ""
    contact_email: str = ""


def refundable(state: Order) -> int:
    return state.amount_paid - state.refunded


def _email_ok(value: str) -> Rejection | None:
    if value and ("@" not in value or " " in value):
        return Rejection(code="refund.bad_email", message=f"{value!r} is not an email address.")
    return None


def _refund(state: Order, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    amount = args["amount"]
    if amount <= 0:
        return Rejection(code="refund.not_positive", message="A refund is more than zero.")
    if amount > refundable(state):
        return Rejection(
            code="refund.exceeds_paid",
            message=(
                f"A refund of {euros(amount)} is more than what can be refunded: "
                f"{euros(state.amount_paid)} was paid and {euros(state.refunded)} is refunded."
            ),
        )
    if not state.receipt:
        return Rejection(code="refund.no_receipt", message="A refund needs the receipt first.")
    data = {"amount": amount, "reason": args.get("reason", "")}
    return [DomainEvent(name="refund_requested", data=data)]


def _describe(event: DomainEvent) -> str | None:
    """Receipts in the desk's own words: money in euros, not cents."""
    if event.name == "refund_requested":
        reason = event.data.get("reason")
        because = f" ({reason})" if reason else ""
        return f"refund of {euros(event.data['amount'])} requested{because}"
    return None


def _payment_message(state: Order, args: Mapping[str, Any]) -> ExternalEffect:
    payload = {
        "order": state.order_number,
        "amount_cents": args["amount"],
        "currency": "EUR",
        "reason": args.get("reason", ""),
    }
    return ExternalEffect(channel=PAYMENTS_CHANNEL, payload=payload)


def _apply(state: Order, event: DomainEvent) -> Order:
    if event.name == "refund_requested":
        return attrs.evolve(state, refunded=state.refunded + event.data["amount"])
    return state


def _status(state: Order) -> str:
    if state.refunded == 0:
        return f"Order {state.order_number} is paid ({euros(state.amount_paid)}), not refunded."
    done, paid = euros(state.refunded), euros(state.amount_paid)
    return f"Order {state.order_number}: {done} of {paid} refunded."


def _project(state: Order) -> dict[str, Any]:
    return {
        "order_number": state.order_number,
        "customer": state.customer,
        "item": state.item,
        "amount_paid": euros(state.amount_paid),
        "refunded": euros(state.refunded),
        "refundable": euros(refundable(state)),
        "receipt": state.receipt,
        "note": state.note,
        "contact_email": state.contact_email,
    }


REFUND_DESK_WORKFLOW: Workflow[Order] = Workflow(
    name=REFUND_DESK,
    case_noun="Order",
    describe_event=_describe,
    corpora=(functools.partial(register_policy_corpus, corpus_id=REFUND_POLICY),),
    state_type=Order,
    initial_state=Order,
    fields=(
        Field(name="note", type=str, parse=parse_text, policy=ROUTINE, aliases=("notes",)),
        Field(
            name="contact_email",
            type=str,
            parse=parse_text,
            validate=_email_ok,
            policy=ROUTINE,
            aliases=("email", "contact"),
        ),
    ),
    operations=(
        Operation(
            name="refund",
            handler=_refund,
            policy=CommandPolicy.conservative(),
            scope=AtomicityScope.EXTERNAL_SAGA,
            effect=_payment_message,
            arguments=(
                # Without an amount the card proposes what is left to refund.
                Argument(
                    name="amount", type=int, parse=parse_money, show=euros, propose=refundable
                ),
                Argument(name="reason", type=str, parse=parse_text, required=False),
            ),
            aliases=("send a refund", "send the refund", "pay back", "give back"),
        ),
    ),
    apply=_apply,
    questions=(
        Question(
            name="refundable",
            answer=lambda s: f"{euros(refundable(s))} can be refunded.",
            aliases=(
                "how much can be refunded",
                "how much can I refund",
                "left to refund",
                "left",
                "remaining",
                "still be refunded",
                "how much can I still get back",
            ),
        ),
        Question(
            name="amount_paid",
            answer=lambda s: f"{euros(s.amount_paid)} was paid.",
            aliases=(
                "how much was paid",
                "how much did they pay",
                "paid",
                "pay",
                "charged",
                "cost",
            ),
        ),
        Question(name="status", answer=_status, aliases=("where does it stand", "stand", "status")),
        Question(
            name="receipt",
            answer=lambda s: "There is a receipt." if s.receipt else "There is no receipt yet.",
            aliases=("is there a receipt", "receipt"),
        ),
    ),
    project=_project,
    start_policy=ROUTINE,
    # Users name an order by its number, the customer or what was bought.
    identifying=("order_number", "customer", "item"),
    conditions=(
        Condition(
            name="has_receipt",
            holds=lambda s, ctx: s.receipt,
            aliases=("there is a receipt", "receipt is on file", "receipt"),
        ),
        Condition(
            name="nothing_refunded",
            holds=lambda s, ctx: s.refunded == 0,
            aliases=("nothing was refunded", "nothing refunded yet", "not refunded yet"),
        ),
    ),
    nouns=("booking", "reservation", "purchase", "stay", "ticket"),
    synonyms={
        "refund": (
            "money back",
            "reimburse",
            "reimbursement",
            "repay",
            "return the money",
            "refund request",
            "get ... back",
            "like ... back",
            "need ... back",
            "want ... back",
            "have ... back",
            "give ... back",
            "pay ... back",
            "send ... back",
            "credit ... back",
            # An amount said before "back" asks for it back: "EUR 42.50 back to order 1001".
            "... back",
        ),
        "note": ("memo",),
        "contact_email": ("e-mail", "email address", "mail", "mail id", "email id", "e-mail id"),
    },
)


def refund_desk_seed(today: date) -> tuple[SeedCase, ...]:
    """Order 1001 (120.00 EUR paid, receipt) and order 1002 (15.00 EUR, no receipt yet); the
    orders hold no dates, so ``today`` changes nothing."""
    return (
        SeedCase(
            key="order-1001",
            workflow=REFUND_DESK,
            label="Order 1001",
            state=Order(
                order_number="1001",
                customer="Ana Reis",
                item="Hotel Almirante, 1 night",
                amount_paid=12000,
                receipt=True,
            ),
        ),
        SeedCase(
            key="order-1002",
            workflow=REFUND_DESK,
            label="Order 1002",
            state=Order(
                order_number="1002",
                customer="Rui Costa",
                item="lounge pass",
                amount_paid=1500,
                receipt=False,
            ),
        ),
    )


#: The demo conversation: a question, a refund taken back, an over-refund, a refund to confirm.
REFUND_DEMO = (
    "How much can be refunded on order 1001?",
    "Refund 20 euros on order 1001\u2026 actually don't.",
    "Refund 500 euros on order 1001.",
    "Refund 20 euros on order 1001 because the strap broke.",
    "Tell me about refunds.",
    "Thanks!",
)
