"""Parsers the sample workflows share: dates relative to the turn's clock, money, counts, text.

Every parser takes the user's words and the turn's :class:`~turnframe.workflow.ParseContext`
and raises ``ValueError`` with a short message when it cannot read them. Relative dates are
computed from ``ctx.now`` (the instant the turn was received), never from the wall clock:

============================  =============================================================
words                         date (for a turn received on Wednesday 2026-01-07)
============================  =============================================================
today, tomorrow               2026-01-07, 2026-01-08
Friday, this Friday           the next Friday after today: 2026-01-09
next Friday, next Monday      that weekday in next week (Monday to Sunday): 2026-01-16, -12
end of the month              the last day of the turn's month: 2026-01-31
end of next month             2026-02-28
next week, next month         Monday of next week, the 1st of next month
in 3 days, in two weeks       2026-01-10, 2026-01-21
the 20th                      that day this month, or next month if it has passed
March 3, 3rd of March         that day this year, or next year if it has passed
2026-03-12                    ISO dates as written
============================  =============================================================
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from decimal import Decimal

from turnframe.reading import NUMBER_WORDS as NUMBER_WORD_RUN
from turnframe.reading import number_in_words, read_amount, with_digits
from turnframe.reading.dates import ordinals_in_digits, read_calendar_date
from turnframe.workflow import ParseContext

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)

_PREPOSITION = re.compile(r"^(?:on|to|for|by|until|till|from|at)\s+")
#: A time of day after the day ("Friday at 6pm", "12 March, 07:30"): a date is the day alone.
_TIME_OF_DAY = re.compile(
    r",?\s+(?:at\s+|around\s+|@\s*)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|h)|\d{1,2}:\d{2}"
    r"|noon|midday|midnight)(?:\s+(?:sharp|ish))?$"
    r"|,?\s+in\s+the\s+(?:morning|afternoon|evening)$|,?\s+(?:at\s+)?night$"
)
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"


def _month(word: str) -> int | None:
    for number, name in enumerate(MONTHS, start=1):
        if word == name or (len(word) >= 3 and name.startswith(word)):
            return number
    return None


def _count_word(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    if word in ("a", "an"):
        return 1
    return number_in_words(word) if NUMBER_WORD_RUN.fullmatch(word) else None


def _end_of_month(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _next_month(day: date) -> tuple[int, int]:
    return (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)


def _weekday(words: str, today: date) -> date | None:
    match = re.fullmatch(r"(?:(this|coming|the coming|next)\s+)?(\w+)", words)
    if match is None or match.group(2) not in WEEKDAYS:
        return None
    target = WEEKDAYS.index(match.group(2))
    if match.group(1) == "next":
        next_monday = today + timedelta(days=7 - today.weekday())
        return next_monday + timedelta(days=target)
    return today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)


def _calendar_day(words: str, today: date) -> date | None:
    patterns = (
        (rf"(?:the\s+)?{_ORDINAL}(?:\s+of)?\s+([a-z]+){_YEAR}", 2, 1, 3),
        (rf"([a-z]+)\s+(?:the\s+)?{_ORDINAL}{_YEAR}", 1, 2, 3),
    )
    for pattern, month_group, day_group, year_group in patterns:
        match = re.fullmatch(pattern, words)
        month = None if match is None else _month(match.group(month_group))
        if match is None or month is None:
            continue
        day = int(match.group(day_group))
        year = int(match.group(year_group)) if match.group(year_group) else today.year
        found = _valid(year, month, day, words)
        if match.group(year_group) is None and found < today:
            found = _valid(year + 1, month, day, words)
        return found
    match = re.fullmatch(rf"the\s+{_ORDINAL}|(\d{{1,2}})(?:st|nd|rd|th)", words)
    if match is not None:
        day = int(match.group(1) or match.group(2))
        year, month = today.year, today.month
        if day < today.day:
            year, month = _next_month(today)
        return _valid(year, month, day, words)
    return None


def _valid(year: int, month: int, day: int, words: str) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise ValueError(f"{words!r} is not a day of the calendar") from None


def _relative(words: str, today: date) -> date | None:
    fixed = {
        "today": today,
        "tonight": today,
        "tomorrow": today + timedelta(days=1),
        "day after tomorrow": today + timedelta(days=2),
        "the day after tomorrow": today + timedelta(days=2),
        "next week": today + timedelta(days=7 - today.weekday()),
        "next month": date(*_next_month(today), 1),
    }
    if words in fixed:
        return fixed[words]
    words = re.sub(r"\b(?:a|one)\s+fortnight\b", "2 weeks", words)  # a fortnight: two weeks
    match = re.fullmatch(r"(?:the\s+)?end\s+of\s+(the|this|next)\s+month", words)
    if match is not None:
        year, month = (today.year, today.month) if match.group(1) != "next" else _next_month(today)
        return _end_of_month(year, month)
    match = re.fullmatch(r"(\w+)\s+(day|week)s?\s+from(?:\s+(?:now|today))?", words)
    if match is not None:
        words = f"in {match.group(1)} {match.group(2)}s"
    match = re.fullmatch(r"in\s+(\w+)\s+(day|week)s?", words)
    if match is not None:
        count = _count_word(match.group(1))
        if count is not None:
            return today + timedelta(days=count * (7 if match.group(2) == "week" else 1))
    return None


def parse_date(text: str, ctx: ParseContext) -> date:
    """A date from the user's words, relative to the turn's clock (see the module table)."""
    words = " ".join(_PREPOSITION.sub("", text.strip().casefold().rstrip(".!?,")).split())
    words = _TIME_OF_DAY.sub("", words)
    words = ordinals_in_digits(with_digits(words))
    today = ctx.now.date()
    for reader in (_relative, _weekday, _calendar_day):
        found = reader(words, today)
        if found is not None:
            return found
    order = "MDY" if ctx.locale.casefold() in ("en-us", "en_us") else "DMY"
    written = read_calendar_date(words, ctx.now, order=order)
    if written is not None:
        return written
    try:
        return date.fromisoformat(words)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a date I can read") from None


def parse_money(text: str, ctx: ParseContext) -> int:
    """An amount in euro cents: "80 euros", "€80", "EUR 80", "80.50 EUR", "12,5 €", "twenty
    euros", or a bare "80"; an amount in another currency is refused, never converted."""
    return read_amount(text, currency="EUR")


def parse_count(text: str, ctx: ParseContext) -> int:
    """A whole number: "3", "three", "twenty-five"."""
    word = text.strip().casefold()
    if word.isdigit():
        return int(word)
    count = number_in_words(word) if NUMBER_WORD_RUN.fullmatch(word) else None
    if count is None:
        raise ValueError(f"{text.strip()!r} is not a number")
    return count


def parse_text(text: str, ctx: ParseContext) -> str:
    """The words as written, without surrounding white space and quotes."""
    return text.strip().strip("\"'\u201c\u201d").strip()


def euros(cents: int | None) -> str:
    """Cents shown as euros: 8000 -> "80.00 EUR"."""
    if cents is None:
        return "no price yet"
    return f"{Decimal(cents) / 100:.2f} EUR"


def show_date(day: date) -> str:
    """A date as a card shows it: "Fri 2026-03-20" (the weekday guards against a misread)."""
    return f"{WEEKDAYS[day.weekday()][:3].capitalize()} {day.isoformat()}"
