"""Relatedness: warn (never block) when an act's value does not plausibly come from the user.

Evidence is always a span of the user's own text; reference material never is. This check asks
a weaker, lexical question: does the act's value appear in or near its evidence span (or is it
the canonical name of a glossary alias the user said there)? If not, it warns — with a sharper
code when the value occurs in a bound reference, the typical sign of a model lifting a fact from
the glossary or roster. Paraphrase and nicknames exist, so this is a warning recorded in the
replay record, not a rejection.

Heuristics (deterministic, language-light): text is compared case- and accent-insensitively, on
words; a value word matches a window word when equal, when one is a prefix of the other and both
have at least four letters (``night``/``nights``), or when both have at least five letters and
differ by one edit. Every content word of the value must match (one may be missing when it has
three or more). Numbers compare numerically and against number words (``three``); the number 1
is never questioned (a singular noun says it). Dates, booleans and ``None`` are not checked:
"Friday" never spells its ISO date.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date, time
from decimal import Decimal, InvalidOperation

import attrs

from turnframe.references.glossary import Glossary, find_aliases
from turnframe.references.resolve import ResolvedReferences

VALUE_ONLY_IN_REFERENCE = "turnframe.relatedness.value_only_in_reference"
VALUE_NOT_NEAR_EVIDENCE = "turnframe.relatedness.value_not_near_evidence"

_STOPWORDS = frozenset(
    {"a", "an", "the", "of", "at", "to", "for", "in", "on", "and", "or", "with", "by", "per"}
    | {"each", "my", "our", "your", "his", "her", "their", "this", "that"}
)
# fmt: off
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "twice": 2, "couple": 2, "dozen": 12,
}
# fmt: on
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\w+")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


@attrs.frozen(kw_only=True)
class RelatednessWarning:
    """Recorded in the replay record; never blocks an act."""

    code: str
    message: str
    act_index: int | None
    value: str
    evidence: str
    found_in_slots: tuple[str, ...]


def check_relatedness(
    act_value: object,
    evidence_text: str,
    user_text: str,
    references: ResolvedReferences | None = None,
    *,
    aliases: Glossary | None = None,
    act_index: int | None = None,
    evidence_start: int | None = None,
    near_words: int = 6,
) -> list[RelatednessWarning]:
    """Warnings for every leaf of ``act_value`` (a scalar, or a mapping/list of arguments) that
    does not plausibly appear in or within ``near_words`` words of its evidence span."""
    window = _window(evidence_text, user_text, evidence_start, near_words)
    if aliases is not None:
        window += " " + " ".join(m.canonical for m in find_aliases(aliases, window))
    warnings = []
    for leaf in _leaves(act_value):
        if _checkable(leaf) and not _appears(leaf, window):
            warnings.append(_warning(leaf, evidence_text, references, act_index))
    return warnings


def _leaves(value: object) -> list[object]:
    if isinstance(value, Mapping):
        return [leaf for key in sorted(value, key=str) for leaf in _leaves(value[key])]
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _checkable(value: object) -> bool:
    if value is None or isinstance(value, bool | date | time):
        return False
    return not (isinstance(value, str) and (not value.strip() or _ISO_DATE.match(value)))


def _window(evidence: str, user_text: str, start: int | None, near: int) -> str:
    if start is None or user_text[start : start + len(evidence)] != evidence:
        found = user_text.casefold().find(evidence.casefold())
        start = found if found >= 0 and evidence else None
    if start is None:
        return evidence
    before = user_text[:start].split()[-near:] if near else []
    after = user_text[start + len(evidence) :].split()[:near] if near else []
    return " ".join([*before, evidence, *after])


def _appears(value: object, window: str) -> bool:
    number = _as_number(value)
    if number is not None:
        # One is what a singular noun says ("add the hotel night"): never questioned.
        return number == 1 or number in _numbers(window)
    wanted = _words(str(value))
    content = [w for w in wanted if w not in _STOPWORDS] or wanted
    have = _words(window)
    numbers = _numbers(window)
    missing = sum(1 for w in content if not _word_in(w, have, numbers))
    return missing == 0 or (len(content) >= 3 and missing == 1)


def _word_in(word: str, have: Sequence[str], numbers: set[Decimal]) -> bool:
    number = _as_number(word)
    if number is not None:
        return number in numbers
    return any(_similar(word, other) for other in have)


def _similar(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)):
        return True
    return min(len(a), len(b)) >= 5 and _one_edit(a, b)


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


def _normalise(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _words(text: str) -> list[str]:
    return _WORD.findall(_normalise(text))


def _as_number(value: object) -> Decimal | None:
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return Decimal(str(value))
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return _parse_numbers(value.strip())[0]
    return None


def _parse_numbers(token: str) -> list[Decimal]:
    """``1,500`` and ``15,50`` are ambiguous: both readings are kept."""
    readings = {token.replace(",", ""), token.replace(",", ".")}
    out = []
    for reading in sorted(readings):
        try:
            out.append(Decimal(reading))
        except InvalidOperation:
            continue
    return out or [Decimal(0)]


def _numbers(text: str) -> set[Decimal]:
    found = {n for token in _NUMBER.findall(text) for n in _parse_numbers(token)}
    found |= {Decimal(_NUMBER_WORDS[w]) for w in _words(text) if w in _NUMBER_WORDS}
    return found


def _warning(
    value: object, evidence: str, references: ResolvedReferences | None, act_index: int | None
) -> RelatednessWarning:
    shown = str(value)
    slots = _slots_containing(shown, references)
    act = f"act {act_index}: " if act_index is not None else ""
    if slots:
        code = VALUE_ONLY_IN_REFERENCE
        tail = (
            f"; it occurs in reference slot(s) {', '.join(slots)} — reference material is "
            "never evidence"
        )
    else:
        code, tail = VALUE_NOT_NEAR_EVIDENCE, ""
    return RelatednessWarning(
        code=code,
        message=f"{act}value {shown!r} does not appear in or near its evidence {evidence!r}{tail}",
        act_index=act_index,
        value=shown,
        evidence=evidence,
        found_in_slots=slots,
    )


def _slots_containing(value: str, references: ResolvedReferences | None) -> tuple[str, ...]:
    if references is None:
        return ()
    phrase = " ".join(_words(value))
    found = []
    for resolved in references.slots:
        text = " ".join(_words(" ".join(item.text for item in resolved.items)))
        if phrase and f" {phrase} " in f" {text} ":
            found.append(resolved.slot.name)
    return tuple(found)
