"""The travel desk: a trip with a name, dates, a note, a budget, a discount, extras and legs.

- Fields (routine, run without asking): ``name``, ``travel_date``, ``return_date``, ``note``,
  ``budget`` (euro cents).
- ``add_extra(item, quantity?, unit_price?, paid_by?)``: routine.
- ``rebook(leg, date, flight?)``: elevated risk, waits for a confirmation card.
- ``submit``: the submission (``is_submission``), refused while the trip is incomplete.
- ``withdraw(reason?)``: destructive, so it always waits for a confirmation card.
- Questions: ``discount_valid`` (the answer names the validity date, since a question sees only
  the state), ``status``, ``extras_total``, ``travel_date``, ``return_date``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

import attrs

from turnframe.examples.corpora import TRAVEL_POLICY, register_policy_corpus
from turnframe.examples.parsing import (
    euros,
    parse_count,
    parse_date,
    parse_money,
    parse_text,
    show_date,
)
from turnframe.examples.seeds import SeedCase
from turnframe.policy import CommandPolicy, ConfirmationPolicy, RiskClass
from turnframe.reading.dates import read_shift
from turnframe.references import ReferenceSlot
from turnframe.results import Rejection
from turnframe.workflow import (
    Argument,
    Condition,
    CurrentValue,
    DomainEvent,
    Field,
    Operation,
    ParseContext,
    Question,
    Workflow,
)

TRAVEL_DESK = "travel-desk"
ROUTINE = CommandPolicy.routine()
NEEDS_CARD = CommandPolicy(risk=RiskClass.ELEVATED, confirmation=ConfirmationPolicy.WHEN_RISKY)
LEGS = ("outbound", "return")

#: The reference slot the travel desk's interpreter reads aliases from.
GLOSSARY_SLOT = ReferenceSlot(
    name="glossary",
    description="Desk terms and aliases (what travellers say = what the records call it)",
    media_types=("text/markdown", "text/plain"),
)


@attrs.frozen(kw_only=True)
class Discount:
    code: str
    percent: int
    valid_until: date


@attrs.frozen(kw_only=True)
class Extra:
    item: str
    quantity: int = 1
    unit_price: int | None = None  # euro cents; None until priced
    paid_by: str = "traveller"


@attrs.frozen(kw_only=True)
class Leg:
    leg: str  # outbound or return
    flight: str
    date: date


@attrs.frozen(kw_only=True)
class Trip:
    name: str = ""
    travel_date: date | None = None
    return_date: date | None = None
    note: str = ""
    budget: int | None = None  # euro cents
    discount: Discount | None = None
    extras: tuple[Extra, ...] = ()
    legs: tuple[Leg, ...] = ()
    status: str = "draft"  # draft, submitted, withdrawn


def parse_leg(text: str, ctx: ParseContext) -> str:
    """ "the return flight", "outbound leg", "the way back" -> ``return`` / ``outbound``; a
    flight number of the trip ("TP1350", "the TP 1350 flight", "the 1350 flight") names its
    leg."""
    flight = re.search(r"\b([a-z]{2})\s?(\d{3,4})\b", text.casefold())
    legs = getattr(ctx.state, "legs", ()) if ctx.state is not None else ()
    if flight is not None and legs:
        number = (flight.group(1) + flight.group(2)).upper()
        for leg in legs:
            if leg.flight.upper() == number:
                return str(leg.leg)
        raise ValueError(f"{number} is not a flight of this trip")
    digits = re.fullmatch(
        r"(?:the\s+|my\s+)?(\d{3,4})(?:\s+(?:flight|leg))?", text.strip().casefold()
    )
    if digits is not None and legs:  # "the 1351 flight": a flight's number without its letters
        for leg in legs:
            if leg.flight.upper().endswith(digits.group(1)):
                return str(leg.leg)
        raise ValueError(f"{digits.group(1)} is not a flight of this trip")
    words = text.strip().casefold().split()
    words = [w for w in words if w not in ("the", "my", "our", "flight", "leg", "trip", "one")]
    phrase = " ".join(words)
    if phrase in ("return", "way back", "inbound", "back", "home", "second", "last"):
        return "return"
    if phrase in ("outbound", "outward", "way out", "out", "departure", "first", "way there"):
        return "outbound"
    raise ValueError(f"{text.strip()!r} is not a leg of the trip (outbound or return)")


def parse_flight(text: str, ctx: ParseContext) -> str:
    """A flight number: two letters and three or four digits ("TP1350", "tp 1351")."""
    match = re.fullmatch(r"([a-z]{2})\s?(\d{3,4})", text.strip().casefold())
    if match is None:
        raise ValueError(f"{text.strip()!r} is not a flight number")
    return (match.group(1) + match.group(2)).upper()


def _note_ok(value: str) -> Rejection | None:
    if len(value) > 200:
        return Rejection(code="travel.note_too_long", message="A note holds 200 characters.")
    return None


def _name_ok(value: str) -> Rejection | None:
    if not value:
        return Rejection(code="travel.name_empty", message="A trip needs a name.")
    return None


def _draft(state: Trip) -> Rejection | None:
    if state.status != "draft":
        return Rejection(code="travel.not_draft", message=f"The trip is {state.status}.")
    return None


def _add_extra(state: Trip, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    refused = _draft(state)
    if refused is not None:
        return refused
    quantity = args.get("quantity", 1)
    if not 1 <= quantity <= 30:
        return Rejection(code="travel.extra_quantity", message="Between 1 and 30 of an extra.")
    extra = Extra(
        item=args["item"],
        quantity=quantity,
        unit_price=args.get("unit_price"),
        paid_by=args.get("paid_by", "traveller"),
    )
    return [DomainEvent(name="extra_added", data=attrs.asdict(extra))]


def _rebook(state: Trip, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    refused = _draft(state)
    if refused is not None:
        return refused
    if not any(leg.leg == args["leg"] for leg in state.legs):
        return Rejection(code="travel.no_such_leg", message=f"The trip has no {args['leg']} leg.")
    data = {"leg": args["leg"], "date": args["date"].isoformat(), "flight": args.get("flight")}
    return [DomainEvent(name="rebooked", data=data)]


def _describe(event: DomainEvent) -> str | None:
    """Receipts in the desk's own words: money in euros, not cents."""
    data = event.data
    if event.name == "extra_added":
        price = f" at {euros(data['unit_price'])}" if data.get("unit_price") is not None else ""
        return f"extra added: {data['quantity']} x {data['item']}{price}, paid by {data['paid_by']}"
    return None


def missing(state: Trip) -> list[str]:
    return [name for name in ("name", "travel_date") if not getattr(state, name)]


def _submit(state: Trip, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    refused = _draft(state)
    if refused is not None:
        return refused
    if missing(state):
        gaps = ", ".join(missing(state))
        return Rejection(code="travel.incomplete", message=f"Still missing: {gaps}.")
    return [DomainEvent(name="submitted")]


def _withdraw(state: Trip, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    if state.status == "withdrawn":
        return Rejection(code="travel.already_withdrawn", message="The trip is withdrawn.")
    return [DomainEvent(name="withdrawn", data={"reason": args.get("reason", "")})]


def _apply(state: Trip, event: DomainEvent) -> Trip:
    if event.name == "extra_added":
        return attrs.evolve(state, extras=(*state.extras, Extra(**event.data)))
    if event.name == "rebooked":
        return _rebooked(state, event.data)
    if event.name == "submitted":
        return attrs.evolve(state, status="submitted")
    if event.name == "withdrawn":
        return attrs.evolve(state, status="withdrawn")
    return state


def _rebooked(state: Trip, data: Mapping[str, Any]) -> Trip:
    when = date.fromisoformat(data["date"])
    legs = tuple(
        attrs.evolve(leg, date=when, flight=data["flight"] or leg.flight)
        if leg.leg == data["leg"]
        else leg
        for leg in state.legs
    )
    if data["leg"] == "outbound":
        return attrs.evolve(state, legs=legs, travel_date=when)
    return attrs.evolve(state, legs=legs, return_date=when)


def discount_answer(state: Trip) -> str:
    """The discount and the date it is valid until (the grounding stage compares dates)."""
    if state.discount is None:
        return "The trip has no discount."
    d = state.discount
    return f"Discount {d.code} ({d.percent}% off) is valid until {d.valid_until.isoformat()}."


def extras_total(state: Trip) -> str:
    priced = [e.quantity * e.unit_price for e in state.extras if e.unit_price is not None]
    unpriced = sum(1 for e in state.extras if e.unit_price is None)
    total = f"Extras total {euros(sum(priced))}"
    return total + (f"; {unpriced} extra(s) not priced yet." if unpriced else ".")


def _travel_date_answer(state: Trip) -> str:
    if state.travel_date is None:
        return "The trip has no travel date yet."
    leaves = f"The trip leaves on {state.travel_date.isoformat()}"
    if state.return_date is None:
        return f"{leaves}."
    return f"{leaves} and comes back on {state.return_date.isoformat()}."


def _return_date_answer(state: Trip) -> str:
    if state.return_date is None:
        return "The trip has no return date yet."
    return f"The trip returns on {state.return_date.isoformat()}."


def _project(state: Trip) -> dict[str, Any]:
    return {
        "name": state.name,
        "travel_date": state.travel_date.isoformat() if state.travel_date else None,
        "return_date": state.return_date.isoformat() if state.return_date else None,
        "note": state.note,
        "budget": euros(state.budget) if state.budget is not None else None,
        "discount": discount_answer(state),
        "extras": [
            f"{e.quantity} x {e.item} at {euros(e.unit_price)}, paid by {e.paid_by}"
            for e in state.extras
        ],
        "legs": [f"{leg.leg}: {leg.flight} on {leg.date.isoformat()}" for leg in state.legs],
        "status": state.status,
    }


TRAVEL_DESK_WORKFLOW: Workflow[Trip] = Workflow(
    reference_slots=(GLOSSARY_SLOT,),
    glossary_slots=(GLOSSARY_SLOT.name,),
    name=TRAVEL_DESK,
    case_noun="Trip",
    describe_event=_describe,
    corpora=(functools.partial(register_policy_corpus, corpus_id=TRAVEL_POLICY),),
    state_type=Trip,
    initial_state=Trip,
    fields=(
        Field(
            name="name",
            type=str,
            parse=parse_text,
            validate=_name_ok,
            policy=ROUTINE,
            aliases=("trip name", "title"),
        ),
        Field(
            name="travel_date",
            type=date | None,
            parse=parse_date,
            policy=ROUTINE,
            aliases=("date", "departure date", "departure", "outbound date"),
        ),
        Field(
            name="return_date",
            type=date | None,
            parse=parse_date,
            policy=ROUTINE,
            aliases=("return", "return day"),
        ),
        Field(
            name="note",
            type=str,
            parse=parse_text,
            validate=_note_ok,
            policy=ROUTINE,
            aliases=("notes", "remark", "comment"),
        ),
        Field(name="budget", type=int | None, parse=parse_money, policy=ROUTINE, show=euros),
    ),
    operations=(
        Operation(
            name="add_extra",
            handler=_add_extra,
            policy=ROUTINE,
            arguments=(
                Argument(name="item", type=str, parse=parse_text),
                Argument(name="quantity", type=int, parse=parse_count, required=False),
                Argument(
                    name="unit_price", type=int, parse=parse_money, required=False, show=euros
                ),
                Argument(name="paid_by", type=str, parse=parse_text, required=False),
            ),
            aliases=("add an extra", "add extras", "book an extra", "add"),
        ),
        Operation(
            name="rebook",
            handler=_rebook,
            policy=NEEDS_CARD,
            arguments=(
                Argument(name="leg", type=str, parse=parse_leg, choices=LEGS),
                Argument(
                    name="date",
                    type=date,
                    parse=parse_date,
                    show=show_date,
                    current=CurrentValue(
                        by="leg",
                        fields={"outbound": "travel_date", "return": "return_date"},
                        shift=read_shift,
                    ),
                ),
                Argument(name="flight", type=str, parse=parse_flight, required=False),
            ),
            aliases=("rebook", "move the flight", "change the flight"),
        ),
        Operation(
            name="submit",
            handler=_submit,
            policy=ROUTINE,
            is_submission=True,
            aliases=("send it", "send the request", "send", "file it"),
        ),
        Operation(
            name="withdraw",
            handler=_withdraw,
            is_destructive=True,
            arguments=(Argument(name="reason", type=str, parse=parse_text, required=False),),
            aliases=("call it off", "call off", "withdrew"),
        ),
    ),
    apply=_apply,
    questions=(
        Question(
            name="discount_valid",
            answer=discount_answer,
            aliases=(
                "is the discount still valid",
                "discount still valid",
                "discount",
                "valid",
                "expire",
                "expires",
                "code still good",
                "code still work",
                "promo code",
            ),
        ),
        Question(
            name="status",
            answer=lambda s: f"The trip is {s.status}.",
            aliases=(
                "is it submitted",
                "where does it stand",
                "submitted",
                "sent",
                "stand",
                "draft",
                "withdrawn",
            ),
        ),
        Question(
            name="extras_total",
            answer=extras_total,
            aliases=("how much are the extras", "extras cost", "extras", "add up"),
        ),
        Question(
            name="travel_date",
            answer=_travel_date_answer,
            aliases=(
                "when do I travel",
                "when do I leave",
                "when do we fly",
                "when do we go",
                "leave",
                "start",
                "depart",
                "departure",
                "travel date",
                "flight",
                "flights",
            ),
        ),
        Question(
            name="return_date",
            answer=_return_date_answer,
            # The return leg's words (as parse_leg reads them): "when do we fly back" asks
            # the return date, not the departure ("when do we fly").
            aliases=(
                "return date",
                "return day",
                "return",
                "way back",
                "fly back",
                "flight back",
                "come back",
                "coming back",
                "get back",
                "return flight",
                "inbound",
            ),
        ),
    ),
    project=_project,
    start_policy=ROUTINE,
    identifying=("name",),
    nouns=("booking", "journey", "holiday", "vacation", "reservation"),
    conditions=(
        Condition(
            name="discount_valid",
            holds=lambda s, ctx: (
                s.discount is not None and s.discount.valid_until >= ctx.now.date()
            ),
            aliases=(
                "discount is still valid",
                "discount is valid",
                "discount still applies",
                "discount still works",
                "code is still valid",
                "code still works",
            ),
        ),
        Condition(
            name="discount_expired",
            holds=lambda s, ctx: s.discount is None or s.discount.valid_until < ctx.now.date(),
            aliases=("discount has expired", "discount expired", "discount is no longer valid"),
        ),
        Condition(
            name="submitted",
            holds=lambda s, ctx: s.status == "submitted",
            aliases=("trip is submitted", "it is submitted", "submitted", "sent"),
        ),
    ),
    synonyms={
        "withdraw": ("cancel", "cancelled", "scrap the trip", "drop the trip"),
        "rebook": (
            "move",
            "reschedule",
            "push",
            "postpone",
            "prepone",
            "bring forward",
            "move my flight",
            "change my flight",
            "put ... on",
            "change ... flight",
        ),
        "submit": ("finalize", "finalise", "confirm the trip", "send in"),
        "travel_date": ("departure day", "leaving date", "start date"),
        "return_date": ("coming back", "return flight date", "end date"),
    },
)


#: The seed trip's dates, counted from the day it is seeded, so "next Friday" on any clock falls
#: before the trip. Seeded on the demo day (2026-01-28) they are travel 2026-03-12, return
#: 2026-03-16, and a discount valid until 2026-01-31 (tests and corpora pinned there rely on it).
TRAVEL_AFTER = timedelta(days=43)
RETURN_AFTER = timedelta(days=47)
DISCOUNT_VALID_FOR = timedelta(days=3)


def travel_desk_seed(today: date) -> tuple[SeedCase, ...]:
    """One trip, "Lisbon": travel and return in six to seven weeks, a discount valid for three
    more days, two legs on the travel and return dates."""
    travel, back = today + TRAVEL_AFTER, today + RETURN_AFTER
    trip = Trip(
        name="Lisbon city break",
        travel_date=travel,
        return_date=back,
        note="",
        discount=Discount(code="LISBON10", percent=10, valid_until=today + DISCOUNT_VALID_FOR),
        extras=(Extra(item="airport transfer", quantity=1, unit_price=3500),),
        legs=(
            Leg(leg="outbound", flight="TP1351", date=travel),
            Leg(leg="return", flight="TP1350", date=back),
        ),
    )
    return (SeedCase(key="lisbon", workflow=TRAVEL_DESK, label="Lisbon", state=trip, revision=3),)


#: A glossary for demos and tests: one alias and one term the user may never mention.
SAMPLE_GLOSSARY = """# Travel desk glossary
the usual hotel | our hotel = Hotel Almirante
- lounge pass at 15 euros
"""


#: The demo conversation (the first turn is the one the README shows).
TRAVEL_DEMO = (
    "Change the travel date to Friday and add a note: window seat please. "
    "Actually, leave the date as it is. Is the discount still valid?",
    "Add an extra: 3 nights at the hotel at 80 euros each, and don't submit it yet.",
    "Rebook the return flight to March 20.",
    "What would happen if I withdrew it?",
    "What is a fare difference?",
    "Thanks, see you later!",
)
