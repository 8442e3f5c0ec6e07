"""Values read in general, written for these tests (never taken from a corpus): an amount that
opens a verbless request ("EUR 42.50 back to order 1001"), magnitudes ("2.5k", "a grand"),
counts of people with a per-person price, dates said as a span or an estimate, and amounts in
words with cents ("forty two fifty"). Through the runtime where the effect matters; property
tests for the pure readers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.providers.rules.shapes import MONEY
from turnframe.providers.rules.vague import vague_date_words
from turnframe.reading import MoneyError, read_amount
from turnframe.testing.phrasings import Graded, play_turns

pytestmark = pytest.mark.anyio


def _card(operation: str, **arguments: Any) -> dict[str, Any]:
    return {"ends_with": "card", "card": {"operation": operation, "arguments": arguments}}


def _asks(argument: str | None = None) -> dict[str, Any]:
    asked = {} if argument is None else {"argument": argument}
    return {"ends_with": "clarification", "clarification": asked}


def _extra(**data: Any) -> dict[str, Any]:
    return {
        "ends_with": "committed",
        "events": [{"case": "lisbon", "type": "extra_added", "data": data}],
    }


def _budget(cents: int) -> dict[str, Any]:
    data = {"field": "budget", "value": cents}
    event = {"case": "lisbon", "type": "field_set", "data": data}
    return {"ends_with": "committed", "events": [event]}


async def _reaches(desk: str, expect: dict[str, Any], *turns: str) -> Graded:
    graded = await play_turns(desk, turns, expect)
    assert graded.wrong_commits == ()
    assert graded.right, graded.why
    return graded


# 1. An amount that opens a verbless request: "<amount> back" on a desk whose vocabulary says so.


@pytest.mark.parametrize(
    ("said", "cents"),
    [
        ("EUR 42.50 back to order 1001", 4250),
        ("eur 30 back for order 1001 please", 3000),
        ("\u20ac 25 back on 1001", 2500),
        ("20 back on 1001", 2000),
        ("twenty back on 1001 please", 2000),
        ("could I get 30 back for 1001", 3000),
        ("put 15 euros back on my card for order 1001", 1500),
        ("please put \u20ac40 back on my card, order 1001", 4000),
        ("order 1001: EUR 60 back", 6000),
        ("forty euros back for Ana Reis", 4000),
    ],
)
async def test_an_amount_before_back_is_a_refund_of_that_amount_on_a_card(
    said: str, cents: int
) -> None:
    await _reaches("refund-desk", _card("refund", amount=cents), said)


async def test_an_amount_before_back_commits_only_after_the_click() -> None:
    expect = {
        "ends_with": "committed",
        "events": [{"case": "order-1001", "type": "refund_requested", "data": {"amount": 4250}}],
    }
    await _reaches("refund-desk", expect, "EUR 42.50 back to order 1001", "/click confirm")


@pytest.mark.parametrize(
    "said",
    [
        "USD 40 back to order 1001",
        "\u00a315 back on order 1001",
        "GBP 12 back on 1001 please",
        "20 dollars back on 1001",
        "put $30 back on my card for 1001",
        "refund 20 CAD on 1001",
        "refund 20 yen on 1001",
        "refund 20 SEK on 1001",
        "refund CHF 20 on 1001",
    ],
)
async def test_an_amount_in_another_currency_is_asked_about_never_read_as_euros(said: str) -> None:
    await _reaches("refund-desk", _asks("amount"), said)


async def test_an_amount_before_back_in_a_story_is_not_a_second_request() -> None:
    text = "Yesterday your agent offered 25 euros back on order 1001. Please process that refund."
    await _reaches("refund-desk", _card("refund", amount=2500), text)


async def test_a_quoted_note_that_says_back_stays_a_note() -> None:
    data = {"field": "note", "value": "customer wants 20 back"}
    expect = {
        "ends_with": "committed",
        "events": [{"case": "order-1001", "type": "field_set", "data": data}],
    }
    await _reaches("refund-desk", expect, "set the note on 1001 to 'customer wants 20 back'")


# 2. Magnitudes.


@pytest.mark.parametrize(
    ("said", "cents"),
    [
        ("set the budget to 3k euros", 300000),
        ("budget 2.5k", 250000),
        ("set the budget to 1.2K EUR", 120000),
        ("set the budget to 2.25k", 225000),
        ("our budget is 4 k euros", 400000),
        ("set the budget to 3 thousand euros", 300000),
        ("budget 1.5 thousand", 150000),
        ("set budget to 10k", 1000000),
    ],
)
async def test_a_magnitude_suffix_or_word_multiplies_the_number(said: str, cents: int) -> None:
    await _reaches("travel-desk", _budget(cents), said)


@pytest.mark.parametrize(
    "said",
    [
        "set the budget to a grand",
        "budget: a couple of grand",
        "set the budget to 2 grand",
        "set the budget to half a k",
        "set the budget to 3m euros",
    ],
)
async def test_a_loose_magnitude_is_asked_about_never_guessed(said: str) -> None:
    await _reaches("travel-desk", _asks(), said)


async def test_a_loose_magnitude_for_an_amount_argument_asks_for_the_amount() -> None:
    await _reaches("refund-desk", _asks("amount"), "refund a grand on order 1001")


async def test_a_bare_magnitude_for_an_amount_argument_is_read() -> None:
    await _reaches("refund-desk", _card("refund", amount=10000), "refund 0.1k on 1001")


# 3. Counts of people and per-unit prices: quantity and unit price, never one multiplied value.


@pytest.mark.parametrize(
    ("said", "item", "quantity", "unit_price"),
    [
        ("add a guided tour for 2 people at 30 euros each", "guided tour", 2, 3000),
        ("add museum tickets, 3 of them at 12 each", "museum tickets", 3, 1200),
        ("add a dinner for 4 people at 25 euros per person", "dinner", 4, 2500),
        ("add a fado show for 2 people, 40 euros each", "fado show", 2, 4000),
        ("add a cooking class for 2 persons at 45 EUR per person", "cooking class", 2, 4500),
        ("add wine tasting for two people at thirty euros each", "wine tasting", 2, 3000),
        ("add a boat trip: 2 people x 35 euros", "boat trip", 2, 3500),
        ("add a sunset cruise for 3 adults at 50 each", "sunset cruise", 3, 5000),
        ("add a fado dinner, 2 persons, 35 euros per person", "fado dinner", 2, 3500),
        ("add a surf lesson for 1 person at 40 euros", "surf lesson", 1, 4000),
        ("add 3 museum passes for the 3 of us at 15 each", "museum passes", 3, 1500),
        ("add 2 fado tickets at 30 euros each for 2 people", "fado tickets", 2, 3000),
        ("please add a cooking workshop for 2 adults at \u20ac55 pp", "cooking workshop", 2, 5500),
        ("add a tasting menu, 2 people at 60 a head", "tasting menu", 2, 6000),
        ("add a walking tour for four people, 20 euros per person", "walking tour", 4, 2000),
    ],
)
async def test_a_count_of_people_with_a_price_each_is_the_quantity_and_the_unit_price(
    said: str, item: str, quantity: int, unit_price: int
) -> None:
    await _reaches("travel-desk", _extra(item=item, quantity=quantity, unit_price=unit_price), said)


@pytest.mark.parametrize(
    "said",
    [
        "add a museum pass for 2 people, 60 euros total",
        "add a boat tour, 60 euros altogether for 2 people",
        "add a dinner for 4 people at 100 euros",
        "add 3 kayaks at 90 euros in total",
        "add 5 beach chairs, 50 euros for all of them",
        "add a family ticket for 4 people at 80 euros for all of us",
    ],
)
async def test_a_price_for_several_that_may_be_the_total_is_asked_about(said: str) -> None:
    await _reaches("travel-desk", _asks(), said)


async def test_one_thing_for_several_people_without_a_price_waits_for_a_card() -> None:
    expect = _card("add_extra", item="dinner", quantity=4)
    await _reaches("travel-desk", expect, "add a dinner for 4 people")


async def test_a_count_a_per_day_price_and_a_number_of_days_are_never_multiplied() -> None:
    for said in ("add 2 bikes at 15 a day for 3 days", "add two bikes, 15 a day, for 3 days"):
        graded = await play_turns("travel-desk", (said,))
        assert graded.events == ()  # a card or a question, never one multiplied value


# 4. Dates said as a span or an estimate: asked for, never picked and never refused.


@pytest.mark.parametrize(
    "said",
    [
        "move the travel date to sometime in March",
        "travel date: early April",
        "set the travel date to around the 10th",
        "change the travel date to next week",
        "change the return date to later in spring",
        "set the return date to the end of March",
        "travel date: the beginning of April",
        "move the return date to mid April",
        "return date: sometime around easter",
        "change the travel date to this summer",
        "set the travel date to March",
    ],
)
async def test_a_vague_date_for_a_date_field_is_asked_for(said: str) -> None:
    await _reaches("travel-desk", _asks(), said)


@pytest.mark.parametrize(
    "said",
    [
        "rebook the return flight to sometime in March",
        "rebook the outbound to early April",
        "rebook the return for around the 20th",
        "move my return flight to next week",
        "can we push the return flight to mid-March",
        "rebook the return flight to around March 20",
        "rebook the return for March 20 or so",
        "rebook the return to about the 18th",
    ],
)
async def test_a_vague_date_for_a_date_argument_asks_for_the_date(said: str) -> None:
    await _reaches("travel-desk", _asks("date"), said)


async def test_an_exact_date_after_a_vague_one_is_read() -> None:
    expect = {"ends_with": "committed", "events": [{"case": "lisbon", "type": "field_set"}]}
    await _reaches("travel-desk", expect, "set the travel date to the end of the month")


# 5. Amounts in words with cents.


@pytest.mark.parametrize(
    ("said", "cents"),
    [
        ("refund forty two fifty on order 1001", 4250),
        ("refund forty-two euros and fifty cents on 1001", 4250),
        ("refund forty-two fifty euros on 1001", 4250),
        ("refund ninety nine ninety nine on 1001", 9999),
        ("I'd like fifteen fifty back on order 1001", 1550),
        ("refund sixty euros and twenty-five cents for order 1001", 6025),
        ("refund fifty cents on 1001", 50),
    ],
)
async def test_an_amount_in_words_with_cents_is_read_to_the_cent(said: str, cents: int) -> None:
    await _reaches("refund-desk", _card("refund", amount=cents), said)


async def test_a_price_in_words_with_cents_commits_the_unit_price() -> None:
    expect = _extra(item="guided tour", unit_price=4250)
    await _reaches("travel-desk", expect, "add a guided tour at forty two fifty")


# Pure readers.

_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _words(n: int) -> str:
    """10..99 in words."""
    if n < 20:
        return _TEENS[n - 10]
    tens, unit = divmod(n, 10)
    return _TENS[tens - 2] + ("" if unit == 0 else f"-{_UNITS[unit - 1]}")


@given(units=st.integers(10, 99), cents=st.integers(10, 99), spaced=st.booleans())
def test_two_numbers_in_words_are_units_and_cents(units: int, cents: int, spaced: bool) -> None:
    said = f"{_words(units)} {_words(cents)}"
    if spaced:
        said = said.replace("-", " ")
    assert read_amount(said) == units * 100 + cents


@given(units=st.integers(1, 9), cents=st.sampled_from([20, 50, 75, 99]))
def test_a_small_number_before_cents_in_words_is_refused(units: int, cents: int) -> None:
    with pytest.raises(MoneyError):  # "two fifty": 2.50 or 250? asked about
        read_amount(f"{_UNITS[units - 1]} {_words(cents)}")


@given(
    whole=st.integers(1, 999),
    decimals=st.integers(0, 99),
    form=st.sampled_from(["{}k", "{} k", "{}K EUR", "\u20ac{}k", "{} thousand", "EUR {}k"]),
)
def test_a_thousands_suffix_reads_exact_thousands(whole: int, decimals: int, form: str) -> None:
    number = f"{whole}.{decimals:02d}" if decimals else str(whole)
    said = form.format(number)
    assert read_amount(said) == (whole * 1000 + decimals * 10) * 100


@pytest.mark.parametrize("said", ["a grand", "2 grand", "half a k", "3m euros", "2 million"])
def test_a_loose_magnitude_is_money_but_no_amount(said: str) -> None:
    m = MONEY.fullmatch(said)
    assert m is not None and m.group("money") == said
    with pytest.raises(MoneyError):
        read_amount(said)


_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
]


@given(
    month=st.sampled_from(_MONTHS),
    lead=st.sampled_from(
        ["sometime in", "early", "mid", "late", "the beginning of", "the end of", "around", "in"]
    ),
)
def test_a_month_with_no_day_or_an_estimate_is_vague(month: str, lead: str) -> None:
    assert vague_date_words(f"{lead} {month}") is not None


@given(month=st.sampled_from(_MONTHS), day=st.integers(1, 28))
def test_a_day_of_a_month_is_not_vague_unless_estimated(month: str, day: int) -> None:
    assert vague_date_words(f"{month} {day}") is None
    assert vague_date_words(f"the {day}th of {month}") is None
    assert vague_date_words(f"around {month} {day}") is not None
    assert vague_date_words(f"{day} {month} or so") is not None


@pytest.mark.parametrize(
    "said", ["the day after tomorrow", "end of next month", "the end of the month", "next Friday"]
)
def test_relative_dates_that_name_one_day_are_not_vague(said: str) -> None:
    assert vague_date_words(said) is None


@pytest.mark.parametrize(
    "said",
    [
        "set the budget to 2k-ish",
        "set the budget to around 2k",
        "set the budget to about 3 thousand euros",
        "set the budget to 2000 euros or so",
    ],
)
async def test_an_estimated_amount_for_a_typed_field_is_asked_for(said: str) -> None:
    await _reaches("travel-desk", _asks(), said)


@pytest.mark.parametrize("said", ["add a tour at 40-ish", "refund 40-ish euros on 1001"])
async def test_an_estimated_amount_never_commits(said: str) -> None:
    desk = "refund-desk" if "refund" in said else "travel-desk"
    graded = await play_turns(desk, (said,))
    assert graded.events == ()


@pytest.mark.parametrize(
    "said", ["add water bottles, 2 a day for 5 days", "add a massage, one a day for 3 days"]
)
async def test_how_many_a_day_is_never_read_as_a_price(said: str) -> None:
    graded = await play_turns("travel-desk", (said,))
    assert graded.events == ()


@pytest.mark.parametrize(
    "said", ["add a picnic for two", "add a table for four", "add a dinner for six"]
)
async def test_a_small_number_after_for_is_never_committed_as_a_price(said: str) -> None:
    graded = await play_turns("travel-desk", (said,))
    assert graded.events == ()  # how many people, or a price? a card shows it first


@pytest.mark.parametrize(
    "said",
    [
        "set the budget to 2-3k",
        "set the budget to between 2 and 3k",
        "set the budget to 2k or 3k",
        "set the budget to max 2k",
        "set the budget to under 2k",
        "set the budget to at least 2k",
        "set the return date to the 20th or 21st",
    ],
)
async def test_a_range_or_a_bound_for_a_typed_field_is_asked_about(said: str) -> None:
    await _reaches("travel-desk", _asks(), said)


async def test_a_half_after_and_is_never_cut_off_an_amount() -> None:
    graded = await play_turns("travel-desk", ("set the budget to 2 and a half k",))
    assert graded.events == ()
