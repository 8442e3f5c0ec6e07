"""When a recall says it happened: "last week", "yesterday", "a few days ago", "in March".

:func:`temporal_phrase` finds the phrase in a cue; :func:`window` turns it into a date range
counted from the turn's own clock (never the wall clock), so the same turn reads the same way
on replay. A window only orders candidates (a session inside it ranks higher); it never filters
one out: people misremember when things happened.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import attrs

_I = re.IGNORECASE
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
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
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

TEMPORAL = re.compile(
    r"\b(?:yesterday|earlier\s+today|this\s+morning|today"
    r"|(?:last|this|the\s+other)\s+(?:week|month|year|" + "|".join(_WEEKDAYS) + r")"
    r"|(?:a\s+)?(?:few|couple\s+of)\s+(?:days|weeks|months)\s+ago"
    r"|(?:\d+|a|an|one|two|three|four|five|six)\s+(?:days?|weeks?|months?)\s+ago"
    r"|(?:on\s+)?(?:" + "|".join(_WEEKDAYS) + r")"
    r"|in\s+(?:" + "|".join(_MONTHS) + r")"
    r"|the\s+other\s+day|recently|a\s+while\s+(?:ago|back)|long\s+ago)\b",
    _I,
)


@attrs.frozen(kw_only=True)
class Window:
    """An inclusive range of days."""

    first: date
    last: date

    def holds(self, when: datetime | date) -> bool:
        day = when.date() if isinstance(when, datetime) else when
        return self.first <= day <= self.last


def temporal_phrase(text: str) -> str | None:
    """The first time phrase in ``text``, as written (lower-cased), or None."""
    m = TEMPORAL.search(text)
    return None if m is None else " ".join(m.group(0).lower().split())


def temporal_phrases(text: str) -> list[str]:
    return [" ".join(m.group(0).lower().split()) for m in TEMPORAL.finditer(text)]


def window(phrase: str | None, clock: datetime) -> Window | None:
    """The days ``phrase`` points at, seen from ``clock``; None when it names no range."""
    if phrase is None:
        return None
    today = clock.date()
    p = phrase.lower()
    p = p[3:] if p.startswith("on ") else p
    if p in ("today", "earlier today", "this morning"):
        return Window(first=today, last=today)
    if p == "yesterday":
        return _days(today, 1, 1)
    if p in ("the other day", "recently"):
        return _days(today, 14 if p == "recently" else 7, 1)
    if p in ("a while ago", "a while back", "long ago"):
        return Window(first=date.min, last=today - timedelta(days=21))
    monday = today - timedelta(days=today.weekday())
    if p == "this week":
        return Window(first=monday, last=today)
    if p == "last week":
        return Window(first=monday - timedelta(days=7), last=monday - timedelta(days=1))
    if p == "this month":
        return Window(first=today.replace(day=1), last=today)
    if p == "last month":
        end = today.replace(day=1) - timedelta(days=1)
        return Window(first=end.replace(day=1), last=end)
    if p in ("this year", "last year"):
        year = today.year - (p == "last year")
        return Window(first=date(year, 1, 1), last=min(date(year, 12, 31), today))
    ago = re.fullmatch(r"(?:a\s+)?(few|couple\s+of|\d+|\w+)\s+(day|week|month)s?\s+ago", p)
    if ago is not None:
        return _ago(today, ago.group(1), ago.group(2))
    day = p.split()[-1]
    if day in _WEEKDAYS:
        # "Tuesday", "on Tuesday", "last Tuesday": the most recent Tuesday before today.
        back = (today.weekday() - _WEEKDAYS.index(day)) % 7 or 7
        return _days(today, back, back)
    if p.startswith("in ") and day in _MONTHS:
        month = _MONTHS.index(day) + 1
        year = today.year if month <= today.month else today.year - 1
        first = date(year, month, 1)
        last = (date(year + (month == 12), month % 12 + 1, 1)) - timedelta(days=1)
        return Window(first=first, last=last)
    return None


def _days(today: date, start_back: int, end_back: int) -> Window:
    return Window(first=today - timedelta(days=start_back), last=today - timedelta(days=end_back))


def _ago(today: date, amount: str, unit: str) -> Window:
    span = {"day": 1, "week": 7, "month": 30}[unit]
    if amount in ("few", "couple of"):
        low, high = (2, 4) if amount == "few" else (2, 2)
    else:
        n = int(amount) if amount.isdigit() else _NUMBERS.get(amount, 1)
        low = high = n
    # Generous on both sides: "two weeks ago" is rarely exactly fourteen days.
    slack = {1: 1, 7: 3, 30: 10}[span]
    first = today - timedelta(days=high * span + slack)
    last = today - timedelta(days=max(0, low * span - slack))
    return Window(first=first, last=last)


__all__ = ["TEMPORAL", "Window", "temporal_phrase", "temporal_phrases", "window"]
