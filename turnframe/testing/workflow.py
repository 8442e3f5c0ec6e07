"""A small test workflow and an in-memory case directory, for tests and benchmarks.

``TRIP_WORKFLOW`` is a travel request with a few fields (destination, travel date, note,
passengers), a submission (``submit``), a destructive operation that always needs confirmation
(``withdraw``), an operation with ``external_saga`` scope (``book``: an outbox message to the
booking channel), and a ``per_command`` operation (``tag``). :func:`seeded_directory` holds a
few cases, two of which share the label "Anna", plus another account's cases.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

import attrs

from turnframe.pipeline.names import case_names, find_named
from turnframe.policy import AtomicityScope, CommandPolicy, ConfirmationPolicy, RiskClass
from turnframe.results import Rejection
from turnframe.workflow import (
    Argument,
    CaseSnapshot,
    DomainEvent,
    ExternalEffect,
    Field,
    Operation,
    ParseContext,
    Question,
    Workflow,
)

TRIP = "trip"


@attrs.frozen(kw_only=True)
class TripRequest:
    destination: str = ""
    travel_date: date | None = None
    note: str = ""
    passengers: int = 1
    status: str = "draft"  # draft, submitted, withdrawn, booking_requested
    tags: tuple[str, ...] = ()


_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_NUMBERS = {word: n for n, word in enumerate(_NUMBER_WORDS)}


def parse_date(text: str, ctx: ParseContext) -> date:
    """ISO dates, "today", "tomorrow" and weekday names (the next one after the turn's day)."""
    words = text.strip().casefold().removeprefix("on ").removeprefix("next ")
    today = ctx.now.date()
    if words == "today":
        return today
    if words == "tomorrow":
        return today + timedelta(days=1)
    if words in _WEEKDAYS:
        ahead = (_WEEKDAYS.index(words) - today.weekday() - 1) % 7 + 1
        return today + timedelta(days=ahead)
    try:
        return date.fromisoformat(words)
    except ValueError:
        raise ValueError(f"{text!r} is not a date") from None


def parse_passengers(text: str, ctx: ParseContext) -> int:
    words = text.strip().casefold()
    if words in _NUMBERS:
        return _NUMBERS[words]
    if re.fullmatch(r"\d{1,3}", words):
        return int(words)
    raise ValueError(f"{text!r} is not a number of passengers")


def _text(text: str, ctx: ParseContext) -> str:
    return text.strip()


def _destination_ok(value: str) -> Rejection | None:
    if not value:
        return Rejection(code="trip.destination_empty", message="A destination is needed.")
    return None


def _note_ok(value: str) -> Rejection | None:
    if len(value) > 200:
        return Rejection(code="trip.note_too_long", message="A note holds at most 200 characters.")
    return None


def _passengers_ok(value: int) -> Rejection | None:
    if not 1 <= value <= 9:
        return Rejection(code="trip.passengers_range", message="Between 1 and 9 passengers.")
    return None


def missing_fields(state: TripRequest) -> list[str]:
    return [name for name in ("destination", "travel_date") if not getattr(state, name)]


def _submit(state: TripRequest, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    if state.status != "draft":
        return Rejection(code="trip.not_draft", message=f"The request is {state.status}.")
    if missing_fields(state):
        missing = ", ".join(missing_fields(state))
        return Rejection(code="trip.incomplete", message=f"Still missing: {missing}.")
    return [DomainEvent(name="submitted")]


def _withdraw(state: TripRequest, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    if state.status == "withdrawn":
        return Rejection(code="trip.already_withdrawn", message="It is already withdrawn.")
    return [DomainEvent(name="withdrawn", data={"reason": args.get("reason", "")})]


def _book(state: TripRequest, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    if state.status != "submitted":
        return Rejection(code="trip.not_submitted", message="Only a submitted trip is booked.")
    return [DomainEvent(name="booking_requested")]


def _booking_message(state: TripRequest, args: Mapping[str, Any]) -> ExternalEffect:
    when = None if state.travel_date is None else state.travel_date.isoformat()
    payload = {
        "destination": state.destination,
        "travel_date": when,
        "passengers": state.passengers,
    }
    return ExternalEffect(channel="booking", payload=payload)


def _tag(state: TripRequest, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
    if args["tag"] in state.tags:
        return []
    return [DomainEvent(name="tagged", data={"tag": args["tag"]})]


def _apply(state: TripRequest, event: DomainEvent) -> TripRequest:
    if event.name == "submitted":
        return attrs.evolve(state, status="submitted")
    if event.name == "withdrawn":
        return attrs.evolve(state, status="withdrawn")
    if event.name == "booking_requested":
        return attrs.evolve(state, status="booking_requested")
    if event.name == "tagged":
        return attrs.evolve(state, tags=(*state.tags, event.data["tag"]))
    return state


def _project(state: TripRequest) -> dict[str, Any]:
    when = None if state.travel_date is None else state.travel_date.isoformat()
    return {
        "destination": state.destination,
        "travel_date": when,
        "note": state.note,
        "passengers": state.passengers,
        "status": state.status,
    }


ROUTINE = CommandPolicy.routine()

TRIP_WORKFLOW: Workflow[TripRequest] = Workflow(
    name=TRIP,
    state_type=TripRequest,
    initial_state=TripRequest,
    fields=(
        Field(name="destination", type=str, parse=_text, validate=_destination_ok, policy=ROUTINE),
        Field(
            name="travel_date",
            type=date | None,
            parse=parse_date,
            policy=ROUTINE,
            aliases=("date", "departure"),
        ),
        Field(
            name="note",
            type=str,
            parse=_text,
            validate=_note_ok,
            policy=ROUTINE,
            aliases=("remark",),
        ),
        Field(
            name="passengers",
            type=int,
            parse=parse_passengers,
            validate=_passengers_ok,
            policy=ROUTINE,
        ),
    ),
    operations=(
        Operation(
            name="submit",
            handler=_submit,
            policy=ROUTINE,
            is_submission=True,
            aliases=("send it", "file it"),
        ),
        Operation(
            name="withdraw",
            handler=_withdraw,
            is_destructive=True,
            arguments=(Argument(name="reason", type=str, parse=_text, required=False),),
            aliases=("cancel the trip", "call it off"),
        ),
        Operation(
            name="book",
            handler=_book,
            scope=AtomicityScope.EXTERNAL_SAGA,
            effect=_booking_message,
            policy=CommandPolicy(risk=RiskClass.ELEVATED, confirmation=ConfirmationPolicy.NEVER),
            aliases=("book it", "buy the tickets"),
        ),
        Operation(
            name="tag",
            handler=_tag,
            scope=AtomicityScope.PER_COMMAND,
            policy=ROUTINE,
            arguments=(Argument(name="tag", type=str, parse=_text),),
        ),
    ),
    apply=_apply,
    questions=(
        Question(name="status", answer=lambda s: s.status),
        Question(name="missing_fields", answer=missing_fields),
        Question(name="travel_date", answer=lambda s: s.travel_date),
    ),
    project=_project,
    start_policy=ROUTINE,
)

WORKFLOWS: Mapping[str, Workflow[Any]] = {TRIP: TRIP_WORKFLOW}

ACCOUNT = "acct-1"
OTHER_ACCOUNT = "acct-2"


@attrs.define
class InMemoryCaseDirectory:
    """A :class:`~turnframe.pipeline.directory.CaseDirectory` over a dict; labels ignore case."""

    cases: dict[str, tuple[str, CaseSnapshot]] = attrs.field(factory=dict)  # id -> (account, …)
    #: Workflows whose identifying attributes name cases too (by label only without them).
    workflows: Mapping[str, Workflow[Any]] = attrs.field(factory=dict)

    def put(self, account_id: str, snapshot: CaseSnapshot) -> None:
        self.cases[snapshot.case_id] = (account_id, snapshot)

    async def find_by_label(self, account_id: str, label: str) -> Sequence[str]:
        workflows = self.workflows
        named = (
            (case_id, snap.label, case_names(snap.label, snap.state, workflows.get(snap.workflow)))
            for case_id, (account, snap) in self.cases.items()
            if account == account_id
        )
        return find_named(label, named)

    async def authorize(self, account_id: str, case_id: str) -> bool:
        found = self.cases.get(case_id)
        return found is not None and found[0] == account_id

    async def snapshot(self, account_id: str, case_id: str) -> CaseSnapshot | None:
        found = self.cases.get(case_id)
        return found[1] if found is not None and found[0] == account_id else None


def trip_case(case_id: str, label: str, revision: int, **state: Any) -> CaseSnapshot:
    return CaseSnapshot(
        case_id=case_id, workflow=TRIP, label=label, revision=revision, state=TripRequest(**state)
    )


def seeded_directory() -> InMemoryCaseDirectory:
    """Anna (twice: Berlin and Rome), Bob, Carla (submitted); Dana and another Bob elsewhere."""
    directory = InMemoryCaseDirectory()
    seeds = [
        (
            ACCOUNT,
            trip_case(
                "case-anna-berlin", "Anna", 3, destination="Berlin", travel_date=date(2026, 1, 16)
            ),
        ),
        (ACCOUNT, trip_case("case-anna-rome", "Anna", 1, destination="Rome")),
        (
            ACCOUNT,
            trip_case(
                "case-bob",
                "Bob",
                2,
                destination="Paris",
                travel_date=date(2026, 2, 2),
                passengers=2,
            ),
        ),
        (
            ACCOUNT,
            trip_case(
                "case-carla",
                "Carla",
                5,
                destination="Oslo",
                travel_date=date(2026, 3, 1),
                status="submitted",
            ),
        ),
        (OTHER_ACCOUNT, trip_case("case-dana", "Dana", 1, destination="Lima")),
        (OTHER_ACCOUNT, trip_case("case-other-bob", "Bob", 1, destination="Cairo")),
    ]
    for account, snapshot in seeds:
        directory.put(account, snapshot)
    return directory
