"""Relative moves of a dated argument ("the return a day later"): the interpreter carries the
words, the workflow declares which state field holds the current value for each choice (the
leg's date), and the reducer resolves the move from the case state, so the card shows the
exact date. The phrasings are written for these tests (never taken from the corpus)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from interpreter_kit import read
from test_reading_safety import events, play, shown

from turnframe.examples.travel_desk import parse_leg
from turnframe.reading.dates import read_shift
from turnframe.workflow import (
    Argument,
    CurrentValue,
    Operation,
    Workflow,
    WorkflowDeclarationError,
)


@pytest.mark.parametrize(
    ("said", "leg", "when"),
    [
        ("move the return three days later", "return", "2026-03-19"),
        ("rebook TP1351 a week earlier", "outbound", "2026-03-05"),
        ("could you move my outbound flight one day sooner?", "outbound", "2026-03-11"),
        ("please rebook the way home 2 days later", "return", "2026-03-18"),
    ],
)
def test_a_leg_moved_by_some_days_is_rebooked_to_its_current_date_moved(
    said: str, leg: str, when: str
) -> None:
    reading = read(said)
    assert reading.statuses == ["awaiting_confirmation"]
    assert reading.args(0) == {"leg": leg, "date": when}


@pytest.mark.anyio
async def test_a_confirmed_relative_move_commits_the_date_the_card_showed() -> None:
    graded = await play("travel-desk", "please move the return flight two days earlier")
    assert "card:confirm_command" in shown(graded) and events(graded) == []
    confirmed = await play(
        "travel-desk", "please move the return flight two days earlier", "/click confirm"
    )
    assert events(confirmed) == [
        ("rebooked", {"leg": "return", "date": "2026-03-14", "flight": None})
    ]


def test_a_move_said_without_a_number_of_days_is_still_asked_for() -> None:
    reading = read("move the return flight a bit later")
    assert reading.statuses == ["needs_clarification"]


@pytest.mark.parametrize(
    ("words", "days"),
    [("a day later", 1), ("two days earlier", -2), ("by 1 week later", 7), ("3 days sooner", -3)],
)
def test_a_shift_reads_its_days_and_direction(words: str, days: int) -> None:
    shift = read_shift(words)
    assert shift is not None and shift.days == days


@pytest.mark.parametrize("words", ["later", "3 days", "a few days later", "next week"])
def test_words_that_name_no_exact_shift_are_no_shift(words: str) -> None:
    assert read_shift(words) is None


def _rebook_counting_from(current: CurrentValue) -> Operation[Any]:
    return Operation(
        name="rebook",
        handler=lambda state, args: [],
        arguments=(
            Argument(name="leg", type=str, parse=parse_leg, choices=("outbound", "return")),
            Argument(name="date", type=date, parse=lambda t, c: date.today(), current=current),
        ),
    )


@pytest.mark.parametrize(
    "current",
    [
        CurrentValue(by="flight", fields={"outbound": "travel_date"}, shift=read_shift),
        CurrentValue(by="leg", fields={"outbound": "no_such_field"}, shift=read_shift),
    ],
)
def test_a_current_value_naming_an_unknown_argument_or_field_is_a_declaration_error(
    current: CurrentValue,
) -> None:
    from turnframe.examples.travel_desk import Trip

    with pytest.raises(WorkflowDeclarationError):
        Workflow(
            name="w",
            state_type=Trip,
            initial_state=Trip,
            fields=(),
            operations=(_rebook_counting_from(current),),
            apply=lambda state, event: state,
            project=lambda state: {},
        )


def test_a_flight_number_then_an_arrow_and_a_date_is_a_rebooking_of_that_leg_on_a_card() -> None:
    reading = read("TP1350 => 18 March thanks")
    assert reading.statuses == ["awaiting_confirmation"]
    assert reading.args(0) == {"leg": "return", "date": "2026-03-18"}


def test_a_leg_then_an_arrow_and_a_shift_is_a_rebooking_moved_from_its_date() -> None:
    reading = read("way back \u2192 one day later")
    assert reading.args(0) == {"leg": "return", "date": "2026-03-17"}


def test_an_arrow_between_words_no_operation_takes_reads_no_operation() -> None:
    reading = read("Lisbon -> Faro")
    assert reading.statuses == []
