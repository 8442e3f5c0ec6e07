"""Days of the month said as ordinals ("the twenty-first", "the 15th"), without dateparser:
the reducer asks about a day alone whose month is not said, and stays free of I/O imports."""

from __future__ import annotations

import re
from datetime import datetime

from turnframe.reading.numbers import with_digits

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
