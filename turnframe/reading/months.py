"""A day alone correcting a date keeps the corrected date's month: plain text, no calendar.

Kept apart from :mod:`turnframe.reading.dates` (which loads dateparser) so the pure reducer can
use it without importing anything that does I/O.
"""

from __future__ import annotations

import re

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY_ALONE = re.compile(
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?",
    re.IGNORECASE,
)
_MONTH_IN = re.compile(rf"(?<!\w){_MONTH}(?:\s+\d{{4}})?(?!\w)", re.IGNORECASE)


def with_month(value: str, earlier: str | None) -> str:
    """ "no, the 18th" correcting "the 17th of March": a day alone takes the month (and year)
    of the date it corrects, so a correction changes only what it says."""
    if earlier is None or not _DAY_ALONE.fullmatch(value.strip()):
        return value
    month = _MONTH_IN.search(earlier)
    return value if month is None else f"{value.strip()} {month.group(0)}"
