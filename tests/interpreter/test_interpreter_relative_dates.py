"""Relative dates are read by the workflow's parser from the turn's clock, never the wall clock.

The turn clock is Wednesday 2026-01-07 09:30 UTC unless a test says otherwise."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from interpreter_kit import read

DATES = {
    "today": "2026-01-07",
    "tomorrow": "2026-01-08",
    "the day after tomorrow": "2026-01-09",
    "Friday": "2026-01-09",
    "this Friday": "2026-01-09",
    "next Friday": "2026-01-16",
    "Monday": "2026-01-12",
    "next Monday": "2026-01-12",
    "Wednesday": "2026-01-14",
    "the end of the month": "2026-01-31",
    "end of next month": "2026-02-28",
    "in 3 days": "2026-01-10",
    "in two weeks": "2026-01-21",
    "the 20th": "2026-01-20",
    "March 3": "2026-03-03",
    "3rd of March": "2026-03-03",
    "2026-04-01": "2026-04-01",
}


@pytest.mark.parametrize(("said", "expected"), DATES.items(), ids=DATES.keys())
def test_a_relative_travel_date_is_computed_from_the_turns_clock(said: str, expected: str) -> None:
    reading = read(f"change the travel date to {said}")
    assert reading.acts[0].value == said  # type: ignore[union-attr]
    assert reading.args(0) == {"field": "travel_date", "value": expected}


def test_the_same_words_on_another_day_give_another_date_from_the_same_plan() -> None:
    text = "set the travel date to Friday"
    monday = datetime(2026, 2, 2, 8, 0, tzinfo=UTC)
    wednesday, later = read(text), read(text, clock=monday)
    assert wednesday.raw == later.raw
    assert (wednesday.args(0)["value"], later.args(0)["value"]) == ("2026-01-09", "2026-02-06")


def test_a_date_argument_of_an_operation_is_read_from_the_turns_clock() -> None:
    reading = read("rebook the return to the end of the month")
    assert reading.args(0) == {"leg": "return", "date": "2026-01-31"}


def test_a_month_day_that_has_passed_is_next_year() -> None:
    reading = read("set the travel date to January 2", clock=datetime(2026, 1, 7, tzinfo=UTC))
    assert reading.args(0)["value"] == "2027-01-02"
