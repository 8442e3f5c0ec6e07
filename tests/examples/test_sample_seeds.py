"""The sample desks' seed data: dates counted from the clock in use, seeded once per account."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.examples import DEMO_CLOCK, sample
from turnframe.examples.travel_desk import Trip
from turnframe.stores import NewCase, SqliteStore, create_missing_cases

TRAVEL = sample("travel-desk")


def _trip(now: datetime | date | None = None) -> Trip:
    (lisbon,) = TRAVEL.seed(now)
    assert isinstance(lisbon.state, Trip)
    return lisbon.state


def _dates(trip: Trip) -> list[date | None]:
    assert trip.discount is not None
    return [
        trip.travel_date,
        trip.return_date,
        trip.discount.valid_until,
        *(leg.date for leg in trip.legs),
    ]


def test_at_the_demo_clock_the_seed_trip_has_the_dates_the_demo_shows() -> None:
    expected = [date(2026, 3, 12), date(2026, 3, 16), date(2026, 1, 31)]
    expected += [date(2026, 3, 12), date(2026, 3, 16)]
    assert _dates(_trip(DEMO_CLOCK)) == expected
    assert _dates(_trip()) == expected  # no clock given: the demo day


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2200, 1, 1)))
def test_seed_dates_move_with_the_day_they_are_seeded_on(day: date) -> None:
    shift = day - DEMO_CLOCK.date()
    assert _dates(_trip(day)) == [d + shift if d else None for d in _dates(_trip(DEMO_CLOCK))]


def test_seeded_now_the_trip_lies_ahead_and_the_discount_is_still_valid() -> None:
    now = datetime(2031, 6, 1, 23, 30, tzinfo=UTC)
    trip = _trip(now)
    assert trip.discount is not None
    assert trip.travel_date is not None and trip.travel_date > now.date() + timedelta(weeks=4)
    assert trip.discount.valid_until >= now.date()


@pytest.mark.anyio
async def test_seeding_an_account_twice_creates_its_cases_once() -> None:
    async with SqliteStore.open(":memory:") as store:
        assert await TRAVEL.seed_account(store, "acct-1", now=DEMO_CLOCK) == 1
        (case,) = await store.list_cases("acct-1")
        assert await TRAVEL.seed_account(store, "acct-1", now=DEMO_CLOCK + timedelta(days=9)) == 0
        assert await store.list_cases("acct-1") == [case]
        assert await TRAVEL.seed_account(store, "acct-2") == 1


@pytest.mark.anyio
async def test_a_case_without_an_id_cannot_be_seeded_idempotently_and_nothing_is_created() -> None:
    named = NewCase(workflow="w", label="A", state={}, case_id="c-1")
    unnamed = NewCase(workflow="w", label="B", state={})
    async with SqliteStore.open(":memory:") as store:
        with pytest.raises(ValueError, match="missing on: B"):
            await create_missing_cases(store, "acct-1", [named, unnamed])
        assert await store.list_cases("acct-1") == []
