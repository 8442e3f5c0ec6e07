"""Domain-free reading helpers (turnframe.reading) and typo tolerance, as pure functions."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.providers.rules.spelling import correct
from turnframe.reading import MoneyError, number_in_words, read_amount, with_digits
from turnframe.reading.dates import read_calendar_date

NOW = datetime(2026, 1, 28, 9, 30, tzinfo=UTC)

AMOUNTS = {
    "20 euros": 2000,
    "€20": 2000,
    "20€": 2000,
    "EUR 20": 2000,
    "20 EUR": 2000,
    "12,50 €": 1250,
    "1.500,00 €": 150000,
    "1,200.50": 120050,
    "twenty-five euros": 2500,
    "fifteen euros fifty": 1550,
    "2k euros": 200000,
    "80 euros each": 8000,
}


@pytest.mark.parametrize(("said", "cents"), AMOUNTS.items(), ids=AMOUNTS.keys())
def test_an_amount_is_read_with_the_currency_before_after_or_as_a_symbol(
    said: str, cents: int
) -> None:
    assert read_amount(said) == cents


@pytest.mark.parametrize("said", ["20 dollars", "$5", "£12", "20 bucks"])
def test_an_amount_in_another_currency_is_refused_never_converted(said: str) -> None:
    with pytest.raises(MoneyError):
        read_amount(said)


@given(st.integers(min_value=0, max_value=999_999))
def test_any_whole_number_of_euros_reads_as_that_many_hundred_cents(euros: int) -> None:
    assert read_amount(f"{euros} euros") == euros * 100
    assert read_amount(f"€{euros}") == euros * 100


def test_number_words_become_numbers_and_other_words_stay() -> None:
    assert number_in_words("one hundred and twenty") == 120
    assert number_in_words("a dozen") == 12
    assert with_digits("add two tickets at fifteen euros") == "add 2 tickets at 15 euros"
    assert with_digits("the one I booked") == "the 1 I booked"  # words alone: callers decide


WRITTEN = {
    "20/03/2026": date(2026, 3, 20),
    "17.03.2026": date(2026, 3, 17),
    "13 Mar 2026": date(2026, 3, 13),
    "March 18th": date(2026, 3, 18),
    "2 jan": date(2027, 1, 2),
}


@pytest.mark.parametrize(("said", "day"), WRITTEN.items(), ids=WRITTEN.keys())
def test_a_written_calendar_date_is_read_day_first_from_the_turns_clock(
    said: str, day: date
) -> None:
    assert read_calendar_date(said, NOW) == day


@pytest.mark.parametrize("said", ["whenever", "next week", "sometime in March", "31/02"])
def test_words_that_are_not_a_calendar_date_are_refused(said: str) -> None:
    assert read_calendar_date(said, NOW) is None


VOCABULARY = frozenset({"refund", "note", "travel", "date", "submit", "extras"})


def test_a_typo_of_a_workflow_word_is_corrected_and_evidence_maps_back() -> None:
    fixed = correct("refnd 20 eur on ordr 1001", VOCABULARY, frozenset())
    assert fixed is not None
    assert fixed.text == "refund 20 eur on order 1001"
    start = fixed.text.index("order")
    first, last = fixed.position(start, end=False), fixed.position(start + 5, end=True)
    assert fixed.original[first:last] == "ordr"


@pytest.mark.parametrize(
    "text",
    ["add a summit hike", "late check-in", "call Almirante about 1001", "Costa wants it"],
)
def test_english_words_numbers_and_names_are_never_corrected(text: str) -> None:
    assert correct(text, VOCABULARY | {"almirant"}, frozenset({"costa"})) is None


def test_a_word_two_vocabulary_words_are_equally_close_to_is_not_guessed() -> None:
    assert correct("nkte", frozenset({"note", "nite"}), frozenset()) is None
