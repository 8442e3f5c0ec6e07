"""A dictated message: spoken punctuation and record numbers said in words.

- "comma", "colon", "full stop", "period", "question mark", "new line" said between words are
  the punctuation they name: "add five lessons comma paid by Marta period". "period" and "full
  stop" count only where a sentence may end: at the end of the message, before a line break, or
  in a message that dictates other punctuation too; never after a determiner ("the period").
- A value said between "quote" and "unquote" (or "close quote") is quoted.
- An address said aloud is written: "ana dot reis at example dot com" is
  "ana.reis@example.com" (only with a "dot" after the "at", so "add a tour at 30" stays).
- A record's number said in words is the number: digit by digit ("one zero zero one", "four
  oh two one"), in pairs ("ten oh one"), or as a number ("one thousand and one"). Only where
  the words form a whole number of a record: right after what a record is called ("… on
  record ten oh one") or when the number is one the records have. A number with a unit or a
  currency after it is never an id, and nothing is guessed from part of a run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from turnframe.providers.rules.edits import Edit, inside
from turnframe.providers.rules.shapes import ICASE
from turnframe.reading.numbers import number_in_words

_MARKS = {
    "comma": ",",
    "colon": ":",
    "full stop": ".",
    "period": ".",
    "question mark": "?",
    "exclamation mark": "!",
    "exclamation point": "!",
    "new line": "\n",
    "newline": "\n",
    "new paragraph": "\n",
    "next line": "\n",
}
_ENDS = ("full stop", "period")
_SPOKEN = re.compile(
    r"(?<=\w)(?P<gap>[ \t]+)(?P<mark>comma|colon|full\s+stop|period|question\s+mark"
    r"|exclamation\s+(?:mark|point)|new\s*line|new\s+paragraph|next\s+line)(?![\w'-])",
    ICASE,
)
_NOT_A_MARK_AFTER = re.compile(
    r"(?<!\w)(?:the|a|an|this|that|same|whole|trial|grace|waiting|notice|cooling[\s-]off|holiday"
    r"|billing|time|short|long|first|second|last)\s*$",
    ICASE,
)

_DIGIT = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9",
}
_UNITS = (
    "zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    "|fifteen|sixteen|seventeen|eighteen|nineteen"
)
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_WORD = rf"(?:{_TENS})(?:[\s-]+(?:{_UNITS}))?|{_UNITS}|{_TENS}|hundred|thousand"
_RUN = re.compile(
    rf"(?<![\w-])(?:{_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_WORD}))*(?![\w-])", ICASE
)
#: Words after a number that make it a count or an amount, never a record's number.
_UNIT_AFTER = re.compile(
    r"\s*(?:[€$£%]|(?:euros?|eur|cents?|dollars?|usd|pounds?|gbp|bucks|quid|percent|per|each"
    r"|times|x|days?|hours?|weeks?|months?|years?|people|persons?|adults?|kids?"
    r"|children|of)(?!\w))",
    ICASE,
)
_NUMBERED = r"(?:\s+(?:number|no\.?|nr\.?|#))?\s+$"


#: An address said aloud: "ana dot reis at example dot com" (the part after "at" has a "dot").
_JOINERS = {"dot": ".", "underscore": "_", "dash": "-", "hyphen": "-"}
_SPOKEN_ADDRESS = re.compile(
    r"(?<![\w@.])(?P<local>[a-z0-9]+(?:\s+(?:dot|underscore|dash|hyphen)\s+[a-z0-9]+){0,4})"
    r"\s+at(?:\s+(?:sign|symbol))?\s+"
    r"(?P<domain>[a-z0-9]+(?:\s+(?:dot|dash|hyphen)\s+[a-z0-9]+){0,3}\s+dot\s+[a-z]{2,12})(?![\w@])",
    ICASE,
)


#: A value dictated in quotes: "quote ready to go unquote", "open quote … close quote".
_SPOKEN_QUOTE = re.compile(
    r"(?<![\w'])(?:open\s+)?quote\s+(?P<v>[^\n\"]{1,200}?)\s+(?:close\s+quote|end\s+quote|unquote)"
    r"(?![\w'])",
    ICASE,
)


def _written(words: str) -> str:
    return "".join(_JOINERS.get(w.casefold(), w) for w in words.split())


def _spoken_number(words: str) -> str | None:
    """The digits a run of number words says as a record's number, or ``None``."""
    tokens = re.split(r"[\s-]+", words.casefold())
    if "and" not in tokens and len(tokens) >= 3 and all(t in _DIGIT for t in tokens):
        return "".join(_DIGIT[t] for t in tokens)  # "one zero zero one"
    zero = next((i for i, t in enumerate(tokens) if t in ("oh", "zero")), None)
    if zero is not None and zero > 0 and all(t in _DIGIT for t in tokens[zero:]):
        head = number_in_words(" ".join(tokens[:zero]))  # "ten oh one", "forty two oh five"
        if head is not None and 10 <= head <= 99:
            return str(head) + "".join(_DIGIT[t] for t in tokens[zero:])
        return None
    if "oh" in tokens or not {"hundred", "thousand"} & set(tokens):
        return None
    value = number_in_words(words)  # "one thousand and one"
    return None if value is None else str(value)


def dictated(
    text: str, kept: Sequence[tuple[int, int]], record_nouns: str, numbers: frozenset[str]
) -> list[Edit]:
    """Edits that write the dictated punctuation and record numbers of ``text``."""
    edits: list[Edit] = []
    marks = list(_SPOKEN.finditer(text))
    others = any(" ".join(m.group("mark").casefold().split()) not in _ENDS for m in marks)
    for m in marks:
        if inside(kept, m.start(), m.end()):
            continue
        said = " ".join(m.group("mark").casefold().split())
        if _NOT_A_MARK_AFTER.search(text, max(0, m.start() - 20), m.start()):
            continue
        if said in _ENDS:
            rest = text[m.end() :].lstrip(" \t")
            if rest and not rest.startswith(("\n", ".", "!")) and not others:
                continue
        edits.append(Edit(start=m.start(), end=m.end(), words=_MARKS[said]))
    for m in _SPOKEN_QUOTE.finditer(text):
        if not inside(kept, m.start(), m.end()):
            value = _SPOKEN.sub(lambda p: _MARKS[" ".join(p.group("mark").casefold().split())],
                                m.group("v"))  # "quote ready comma go unquote": "ready, go"
            edits.append(Edit(start=m.start(), end=m.end(), words=f'"{value}"'))
    for m in _SPOKEN_ADDRESS.finditer(text):
        if not inside(kept, m.start(), m.end()):
            address = f"{_written(m.group('local'))}@{_written(m.group('domain'))}"
            edits.append(Edit(start=m.start(), end=m.end(), words=address))
    named = re.compile(rf"(?<![\w])(?:{record_nouns}){_NUMBERED}", ICASE)
    for m in _RUN.finditer(text):
        if inside(kept, m.start(), m.end()) or _UNIT_AFTER.match(text, m.end()):
            continue
        digits = _spoken_number(m.group(0))
        if digits is None:
            continue
        after_noun = named.search(text, max(0, m.start() - 40), m.start()) is not None
        if after_noun or digits in numbers:
            edits.append(Edit(start=m.start(), end=m.end(), words=digits))
    return edits
