"""Typo tolerance on the workflow's own words, before a turn is read.

A word is corrected only when all of these hold: it is not a word of English (pyspellchecker's
frequency list), not a number, not part of a case's name and not capitalized inside a sentence
(names are never corrected); and exactly one word of the workflow's vocabulary or of the
interpreter's own command words is closest to it within a bounded edit distance (rapidfuzz, with
transpositions counting once): one edit for words of up to seven letters, two for longer ones.
"chnage" becomes "change", "adress" "address", "stauts" "status"; "summit" stays "summit".

The turn is then read in the corrected text and every piece of evidence is mapped back to the
user's own text, so evidence still cites exactly what was typed.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterable

import attrs
from rapidfuzz.distance import OSA
from spellchecker import SpellChecker

from turnframe.plan import Evidence, UserTurnPlan
from turnframe.providers.rules.freetext import FreeText, map_free_text

_WORD = re.compile(r"(?<![\w@.'])[A-Za-z]+(?![\w@'])")
#: Where a clause opens: the start, or after a sentence end, a comma, a line break, a list marker.
_OPENING = re.compile(r"(?:^\s*[-*\u2022]|[.!?:;,\n)]|\n\s*[-*\u2022])\s*$")
#: Words a request, a question or a correction is made of (the interpreter's own phrasings).
_COMMANDS = (
    "change set update modify move put switch make add remove delete clear leave keep cancel "
    "rename please thanks thank want would like need could should what when where which how "
    "much many "
    "status about still valid left paid does instead actually sorry mean wait because reason "
    "order number note amount date name euro euros eur usd gbp first second third next week "
    "half whole full money back ish something anything check address "
    "month today tomorrow monday tuesday wednesday thursday friday saturday sunday january "
    "february march april june july august september october november december"
)
COMMAND_WORDS = frozenset(_COMMANDS.split(" "))
#: Short-hands that are words of the interpreter once spelled out.
SHORTHANDS = {
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "ty": "thanks",
    "fr": "for",
    "abt": "about",
    "u": "you",
    "ur": "your",
    "wat": "what",
    "teh": "the",
    "whn": "when",
    "pleas": "please",
    "wht": "what",
    "wut": "what",
    "wot": "what",
    "wats": "what's",
    "wots": "what's",
    "wen": "when",
    "wens": "when's",
    "wich": "which",
    "hows": "how's",
    "hw": "how",
}
_COMMON = 1e-7  # a word more frequent than this in English is never a typo


@functools.cache
def _english() -> SpellChecker:
    return SpellChecker(language="en", distance=1)


@attrs.frozen(kw_only=True)
class Corrected:
    """The corrected text and where each replaced word stood in the user's text."""

    text: str
    original: str
    # (start in corrected text, end in corrected text, start in original, end in original)
    swaps: tuple[tuple[int, int, int, int], ...]

    def position(self, at: int, *, end: bool) -> int:
        """A position in the corrected text, as a position in the user's text."""
        starts = [s[0] for s in self.swaps]
        i = bisect.bisect_right(starts, at) - 1
        if i < 0:
            return at
        new_start, new_end, old_start, old_end = self.swaps[i]
        if at < new_end or (end and at == new_end):
            return old_end if end and at > new_start else old_start
        return at - new_end + old_end


def _limit(word: str) -> int:
    return 1 if len(word) <= 7 else 2


def _closest(
    word: str, vocabulary: Iterable[str], prefer: frozenset[str] = frozenset()
) -> str | None:
    """The one word of ``vocabulary`` closest to ``word`` within the bound; among the closest,
    one of ``prefer`` (where a clause opens: the workflow's operation verbs, "archivd the
    case" is "archive", not "archived") wins alone; a tie is never guessed."""
    lowered = word.casefold()
    limit = _limit(lowered)
    best: list[tuple[int, str]] = []
    for candidate in vocabulary:
        if abs(len(candidate) - len(lowered)) > limit:
            continue
        distance = OSA.distance(lowered, candidate, score_cutoff=limit)
        if distance <= limit:
            best.append((distance, candidate))
    if not best:
        return None
    nearest = min(d for d, _ in best)
    swapped = [c for d, c in best if d == nearest and sorted(c) == sorted(lowered)]
    if len(swapped) == 1 and len({c for d, c in best if d == nearest}) > 1:
        # Letters swapped are the likeliest slip, before any preference: "waht" opening a
        # question is "what", never the verb "want".
        return swapped[0]
    preferred = {c for d, c in best if d == nearest and c in prefer}
    # "archive" and its inflection "archives": the verb itself
    preferred = {c for c in preferred if not any(c != o and c.startswith(o) for o in preferred)}
    if len(preferred) == 1:
        return preferred.pop()
    best.sort(key=lambda item: (item[0], len(item[1]) != len(lowered), item[1]))
    tied = sorted({c for d, c in best if d == best[0][0] and len(c) == len(best[0][1])})
    if len(tied) > 1:
        # Letters swapped are the likeliest slip ("wiat" is "wait", not "what"): the one
        # candidate with the same letters wins; otherwise never guess between them.
        same_letters = [c for c in tied if sorted(c) == sorted(lowered)]
        return same_letters[0] if len(same_letters) == 1 else None
    return best[0][1]


#: The command verbs a clause may open with.
_VERBS = frozenset(_COMMANDS.split(" ")[:16])


_LOOK_BACK = 12
#: Politeness that may stand before a clause's verb ("pls ad …", "ok so ad …").
_LEAD_WORDS = re.compile(
    r"(?:(?:pls|plz|please|plese|pleas|pleese|kindly|ok(?:ay)?|so|and|also|then|now|just|hi|hey"
    r"|hello)[\s,]+){1,3}$",
    re.IGNORECASE,
)


def _opens_clause(text: str, at: int) -> bool:
    if at == 0 or _OPENING.search(text, max(0, at - _LOOK_BACK), at) is not None:
        return True
    lead = _LEAD_WORDS.search(text, max(0, at - 3 * _LOOK_BACK), at)
    return lead is not None and _opens_clause(text, lead.start())


def _one_short(word: str, known: frozenset[str]) -> str | None:
    found = {v for v in _VERBS & known if len(v) == len(word) + 1 and OSA.distance(word, v) == 1}
    return found.pop() if len(found) == 1 else None


def _derived(word: str, known: str) -> bool:
    """ "unsubmit", "submits": a word made from a known one with a prefix or suffix of two
    letters or more is another word, never a typo of it (unlike "waitt")."""
    longer = len(word) - len(known) >= 2
    return longer and (word.endswith(known) or word.startswith(known))


_EVERYDAY = 1e-4  # a word at least this frequent in English is an everyday word ("is")
_TOKEN = re.compile(r"(?<![\w@.'])[A-Za-z]{1,9}(?![\w@'])")


def _space_slipped(text: str, known: frozenset[str]) -> str:
    """ "ho wmuch is left": a space typed one letter early or late between two words, when
    moving that letter across it makes both words English, one of them the interpreter's
    own, and one of them as typed is no word of English. The text keeps its length."""
    english = _english()
    out = list(text)
    words = list(_TOKEN.finditer(text))
    done = -1
    for first, second in itertools.pairwise(words):
        if first.start() <= done or second.start() != first.end() + 1 or text[first.end()] != " ":
            continue
        a, b = first.group(0), second.group(0)
        if a.casefold() in known and b.casefold() in known:
            continue
        if (
            english.word_usage_frequency(a.casefold()) > _COMMON
            and english.word_usage_frequency(b.casefold()) > _COMMON
        ):
            continue
        for left, right in ((a + b[0], b[1:]), (a[:-1], a[-1] + b)):
            if not left or not right:
                continue
            pair = (left.casefold(), right.casefold())
            if any(w in known and len(w) > 2 for w in pair) and all(
                w in known or english.word_usage_frequency(w) > _EVERYDAY for w in pair
            ):
                out[first.start() : second.end()] = f"{left} {right}"
                done = second.end()
                break
    return "".join(out)


def correct(
    text: str,
    vocabulary: frozenset[str],
    names: frozenset[str],
    *,
    verbs: frozenset[str] = frozenset(),
) -> Corrected | None:
    """The text with typos of vocabulary words corrected, or ``None`` when nothing changed;
    a word that opens a clause is first taken for one of ``verbs`` (the operations' verbs)."""
    english = _english()
    pieces: list[str] = []
    swaps: list[tuple[int, int, int, int]] = []
    at = 0
    length = 0
    known = vocabulary | COMMAND_WORDS
    original = text
    text = _space_slipped(text, known)  # as long as the user's text: positions stay
    slips = [
        (i, i + 1, i, i + 1) for i, (a, b) in enumerate(zip(text, original, strict=True)) if a != b
    ]
    for m in _WORD.finditer(text):
        word = m.group(0)
        lowered = word.casefold()
        fixed = SHORTHANDS.get(lowered)
        if fixed is None and len(lowered) == 2 and _opens_clause(text, m.start()):
            # "ad 2 city cards": a clause opens with a verb, so a two-letter word there that is
            # one letter short of exactly one command verb is that verb.
            fixed = _one_short(lowered, known)
        if fixed is None:
            if len(lowered) < 3 or lowered in known or lowered in names:
                continue
            # A bounded look-back (a sentence end and its spaces), so the pass stays linear.
            before = text[max(0, m.start() - _LOOK_BACK) : m.start()]
            inside = m.start() > 0 and not re.search(r"[.!?]\s*$", before)
            if word[0].isupper() and inside:
                continue  # a proper name
            if english.word_usage_frequency(lowered) > _COMMON:
                continue
            opening = verbs if _opens_clause(text, m.start()) else frozenset()
            fixed = _closest(lowered, known, opening)
            if fixed is None or _derived(lowered, fixed):
                continue
        pieces.append(text[at : m.start()])
        length += m.start() - at
        swaps.append((length, length + len(fixed), m.start(), m.end()))
        pieces.append(fixed)
        length += len(fixed)
        at = m.end()
    if not swaps and not slips:
        return None
    pieces.append(text[at:])
    moved = []  # a slipped letter, where it stands once the words before it are corrected
    for _, _, old, _ in slips:
        if any(w[2] <= old < w[3] for w in swaps):
            continue  # inside a word corrected as a whole
        shift = sum((w[1] - w[0]) - (w[3] - w[2]) for w in swaps if w[3] <= old)
        moved.append((old + shift, old + shift + 1, old, old + 1))
    spans = sorted(swaps + moved)
    return Corrected(text="".join(pieces), original=original, swaps=tuple(spans))


def remap(plan: UserTurnPlan, corrected: Corrected) -> UserTurnPlan:
    """The plan read from the corrected text, with every span cited in the user's text."""

    def span(ev: Evidence) -> Evidence:
        start = corrected.position(ev.start, end=False)
        end = corrected.position(ev.end, end=True)
        return Evidence(start=start, end=end, text=corrected.original[start:end])

    acts = tuple(
        attrs.evolve(act, evidence=tuple(span(ev) for ev in act.evidence)) for act in plan.acts
    )
    unread = tuple(span(ev) for ev in plan.not_understood)
    return attrs.evolve(plan, acts=acts, not_understood=unread)



def keep_typed_words(plan: UserTurnPlan, corrected: Corrected, free: FreeText) -> UserTurnPlan:
    """The plan read from the corrected text, with every free-text value (a note, an item) in
    the user's own words: a correction is for reading the request, never for what is written
    ("cust called" stays "cust called", not "cost called"). Spans are in the corrected text."""

    def typed(value: str, evidence: tuple[Evidence, ...]) -> str:
        for ev in evidence:
            at = corrected.text.find(value, ev.start, ev.end)
            if at >= 0:
                start = corrected.position(at, end=False)
                end = corrected.position(at + len(value), end=True)
                return corrected.original[start:end]
        return value

    return map_free_text(plan, free, typed)
