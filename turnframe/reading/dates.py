"""Calendar dates as people write them: "20/03/2026", "20.03.26", "14 Mar 2026", "March 18th".

dateparser reads them, with the turn's clock as its relative base and future dates preferred
(a month-day already past is next year), so the same words on the same turn always give the
same date. Only words shaped like a calendar date are given to it: relative phrases ("next
Friday", "in two weeks") follow the workflow's own conventions, and anything else is refused
rather than guessed at. A weekday written with the date must be that date's ("Monday 22 March"
when 22 March is a Sunday is refused, so the user is asked). Numeric dates are day first
(``order="DMY"``) unless the caller says otherwise (``"MDY"`` for a US locale).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import dateparser

from turnframe.reading.numbers import with_digits
from turnframe.reading.ordinals import ordinals_in_digits, past_day_alone

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?"
_SHAPE = re.compile(
    rf"(?:{_WEEKDAY}\s+)?(?:"
    r"\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?"
    rf"|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH}(?:,?\s+\d{{4}})?"
    rf"|{_MONTH}\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    r")",
    re.IGNORECASE,
)
def read_calendar_date(words: str, now: datetime, *, order: str = "DMY") -> date | None:
    """The date ``words`` write (``None`` if they are not shaped like a calendar date)."""
    said = " ".join(words.split())
    if not _SHAPE.fullmatch(said):
        return None
    base = now.replace(tzinfo=None)
    settings = {
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": "future",
        "DATE_ORDER": order,
        "REQUIRE_PARTS": ["day", "month"],
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    found = dateparser.parse(said, languages=["en"], settings=settings)
    if found is None:
        return None
    day: date = found.date()
    named = _NAMED_WEEKDAY.match(said)
    if named is not None and not _WEEKDAY_NAMES[day.weekday()].startswith(named.group(1).lower()):
        # "Monday 22 March" when 22 March is a Sunday: which of the two is meant is not said
        raise ValueError(
            f"{said!r}: {day.isoformat()} is a {_WEEKDAY_NAMES[day.weekday()].capitalize()}"
        )
    return day


_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NAMED_WEEKDAY = re.compile(r"(mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s", re.IGNORECASE)



_SHIFT = re.compile(
    r"(?:by\s+)?(?P<count>\d+|an?)\s+(?P<unit>days?|weeks?)\s+(?P<way>later|earlier|sooner)",
    re.IGNORECASE,
)


def read_shift(words: str) -> timedelta | None:
    """A move relative to a date's current value: "a day later" (+1 day), "two days earlier"
    (-2 days), "by 1 week later"; ``None`` when the words are not such a move."""
    said = " ".join(with_digits(words.strip().casefold().rstrip(".!?,")).split())
    m = _SHIFT.fullmatch(said)
    if m is None:
        return None
    count = 1 if m.group("count") in ("a", "an") else int(m.group("count"))
    days = count * (7 if m.group("unit").startswith("week") else 1)
    return timedelta(days=days if m.group("way") == "later" else -days)


__all__ = ["ordinals_in_digits", "past_day_alone", "read_calendar_date", "read_shift"]
