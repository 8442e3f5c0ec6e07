"""Numbers written as words: "twenty-five", "one hundred and twenty", "a dozen".

:data:`NUMBER_WORDS` finds a run of number words in text (so its span is known); text2num
reads it. Bare "a"/"an" is never a number on its own, and "and" only joins number words.
"""

from __future__ import annotations

import re

from text_to_num import text2num

_UNITS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    "|fifteen|sixteen|seventeen|eighteen|nineteen"
)
_TENS = "twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety"
_SCALES = "hundred|thousand"
_WORD = rf"(?:{_TENS})(?:[\s-]+(?:{_UNITS}))?|{_UNITS}|{_TENS}|{_SCALES}"
#: A run of number words: "twenty-five", "one hundred and twenty", "a hundred", "a dozen".
NUMBER_WORDS = re.compile(
    rf"(?<![\w-])(?:(?:a|an)\s+(?=(?:{_SCALES}|dozen)\b))?(?:{_WORD}|dozen)"
    rf"(?:(?:\s+and\s+|[\s-]+)(?:{_WORD}))*(?![\w-])",
    re.IGNORECASE,
)


def number_in_words(words: str) -> int | None:
    """The number a run of number words says, or ``None``."""
    said = " ".join(words.casefold().replace("-", " ").split())
    if said.startswith(("a ", "an ")):
        said = "one " + said.split(" ", 1)[1]
    if said in ("dozen", "one dozen"):
        return 12
    try:
        value = text2num(said, "en")
    except ValueError:
        return None
    return int(value)


def with_digits(text: str) -> str:
    """``text`` with every run of number words written in digits ("twenty euros" → "20 euros")."""

    def digits(m: re.Match[str]) -> str:
        value = number_in_words(m.group(0))
        return m.group(0) if value is None else str(value)

    return NUMBER_WORDS.sub(digits, text)
