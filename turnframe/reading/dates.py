"""Calendar dates as people write them: "20/03/2026", "20.03.26", "14 Mar 2026", "March 18th".

dateparser reads them, with the turn's clock as its relative base and future dates preferred
(a month-day already past is next year), so the same words on the same turn always give the
same date. Only words shaped like a calendar date are given to it: relative phrases ("next
Friday", "in two weeks") follow the workflow's own conventions, and anything else is refused
rather than guessed at. Numeric dates are day first (``order="DMY"``) unless the caller says
otherwise (``"MDY"`` for a US locale).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import dateparser

from turnframe.reading.numbers import with_digits

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
_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
)
_ORDINAL_WORDS = {w: n for n, w in enumerate(_ORDINALS.split(" "), start=1)}
_ORDINAL_WORD = re.compile(
    r"(?<!\w)(?:(twenty|thirty)[\s-]+)?(" + "|".join(_ORDINAL_WORDS) + r"|thirtieth)(?!\w)",
    re.IGNORECASE,
)


def ordinals_in_digits(words: str) -> str:
    """"the twenty-first of March" → "the 21st of March"."""

    def digits(m: re.Match[str]) -> str:
        tens = {"twenty": 20, "thirty": 30}.get((m.group(1) or "").casefold(), 0)
        unit = m.group(2).casefold()
        n = 30 if unit == "thirtieth" else tens + _ORDINAL_WORDS[unit]
        suffix = "th" if 10 < n % 100 < 14 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"

    return _ORDINAL_WORD.sub(digits, words)


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
    return None if found is None else found.date()



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


_DAY_ALONE = re.compile(
    r"(?:(?:on|for|to|by|until|till)\s+)?(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)"
    r"|(?:(?:on|for|to|by|until|till)\s+)?the\s+(?P<bare>\d{1,2})",
    re.IGNORECASE,
)


def past_day_alone(words: str, now: datetime) -> bool:
    """Whether ``words`` name a day of the month without its month ("the 15th", "on the
    fifteenth") that has already passed in the month of ``now``: which month is meant is not
    said (this one is over, the next is a guess), so it is asked, never picked."""
    said = ordinals_in_digits(with_digits(words.strip().casefold().rstrip(".!?,")))
    said = " ".join(said.split())
    m = _DAY_ALONE.fullmatch(said)
    if m is None:
        return False
    day = int(m.group("day") or m.group("bare"))
    return 1 <= day < now.day
