"""The workflow API's pure parts: declarations, built-in commands, events and revisions."""

from __future__ import annotations

from datetime import date
from typing import Any

import attrs
import pytest

from turnframe.policy import (
    AtomicityScope,
    CommandPolicy,
    ConfirmationPolicy,
    RiskClass,
    needs_confirmation,
)
from turnframe.results import Rejection
from turnframe.testing import TRIP_WORKFLOW, TURN_CLOCK, TripRequest
from turnframe.testing.workflow import parse_date
from turnframe.workflow import (
    DomainEvent,
    Field,
    Operation,
    ParseContext,
    Workflow,
    WorkflowDeclarationError,
    apply_events,
    external_effect,
    run_command,
)

CTX = ParseContext(now=TURN_CLOCK, locale="en")


def _workflow(**overrides: Any) -> Workflow[TripRequest]:
    spec: dict[str, Any] = {
        "name": "w",
        "state_type": TripRequest,
        "initial_state": TripRequest,
        "fields": (),
        "apply": lambda s, e: s,
        "project": lambda s: {},
    }
    spec.update(overrides)
    return Workflow(**spec)


def test_the_conservative_policy_always_asks_first() -> None:
    policy = CommandPolicy.conservative()
    assert (policy.risk, policy.confirmation) == (RiskClass.IRREVERSIBLE, ConfirmationPolicy.ALWAYS)
    assert needs_confirmation(policy, is_destructive=False)


def test_a_destructive_command_is_confirmed_whatever_its_policy_says() -> None:
    assert needs_confirmation(CommandPolicy.routine(), is_destructive=True)


def test_when_risky_confirms_only_above_low_risk() -> None:
    elevated = CommandPolicy(risk=RiskClass.ELEVATED, confirmation=ConfirmationPolicy.WHEN_RISKY)
    low = CommandPolicy(risk=RiskClass.LOW, confirmation=ConfirmationPolicy.WHEN_RISKY)
    assert needs_confirmation(elevated, is_destructive=False)
    assert not needs_confirmation(low, is_destructive=False)


def test_fields_and_operations_default_to_the_conservative_policy() -> None:
    field = Field(name="note", type=str, parse=lambda text, ctx: text)
    operation = Operation[TripRequest](name="x", handler=lambda s, a: [])
    assert field.policy == operation.policy == CommandPolicy.conservative()


def test_a_field_that_is_not_a_state_attribute_is_refused() -> None:
    with pytest.raises(WorkflowDeclarationError, match="colour"):
        _workflow(fields=(Field(name="colour", type=str, parse=lambda t, c: t),))


def test_an_operation_may_not_take_a_built_in_command_name() -> None:
    with pytest.raises(WorkflowDeclarationError, match="set_field"):
        _workflow(operations=(Operation(name="set_field", handler=lambda s, a: []),))


def test_an_external_saga_operation_must_declare_its_effect() -> None:
    op = Operation[TripRequest](
        name="x", handler=lambda s, a: [], scope=AtomicityScope.EXTERNAL_SAGA
    )
    with pytest.raises(WorkflowDeclarationError, match="effect"):
        _workflow(operations=(op,))


def test_set_field_runs_as_a_built_in_command_producing_a_field_set_event() -> None:
    events = run_command(
        TRIP_WORKFLOW, TripRequest(), "set_field", {"field": "travel_date", "value": "2026-01-09"}
    )
    assert events == (
        DomainEvent(name="field_set", data={"field": "travel_date", "value": "2026-01-09"}),
    )
    assert not isinstance(events, Rejection)
    state = apply_events(TRIP_WORKFLOW, TripRequest(), events)
    assert state.travel_date == date(2026, 1, 9)


def test_set_field_validates_at_execution_too() -> None:
    outcome = run_command(
        TRIP_WORKFLOW, TripRequest(), "set_field", {"field": "passengers", "value": 0}
    )
    assert isinstance(outcome, Rejection) and outcome.code == "trip.passengers_range"


def test_an_external_saga_command_describes_its_outbox_message() -> None:
    state = attrs.evolve(TripRequest(), destination="Oslo", status="booking_requested")
    effect = external_effect(TRIP_WORKFLOW, state, "book", {})
    assert effect is not None and effect.channel == "booking"
    assert effect.payload["destination"] == "Oslo"


def test_relative_dates_are_read_from_the_turns_clock() -> None:
    assert parse_date("Friday", CTX) == date(2026, 1, 9)
    assert parse_date("Wednesday", CTX) == date(2026, 1, 14)
    assert parse_date("tomorrow", CTX) == date(2026, 1, 8)
