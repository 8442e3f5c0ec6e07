"""The salience track: what makes one conversation memorable among the rest.

A :class:`MarkerProfile` lists, for one session's record: coinages (a name the conversation
made up, or a word it used that the rest of the store does not), actors (people named),
temporal references, emotional and cognitive markers ("frustrated", "we decided") and
singular events ("the first time"). Coinage is judged by deviation from the rest of the store:
a word this session repeats that no more than a few other sessions hold, or a name it gave
something outright ("let's call it Bluebird").

Everything here is pure: the store-wide counts a coinage is judged against are passed in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import attrs

from turnframe.recall.temporal import temporal_phrases
from turnframe.recall.words import STOPWORDS, content_words, words

_I = re.IGNORECASE

_NAMING = re.compile(
    r"\b(?:call(?:ed|ing)?\s+it|name(?:d)?\s+it|dub(?:bed)?\s+it|we(?:'ll|\s+will)\s+call\s+it"
    r"|code[-\s]?name(?:d)?|known\s+as)\s+[\"'\u201c\u2018]?(?P<name>[\w-]+(?:\s+[A-Z][\w-]*)?)",
    _I,
)
_QUOTED = re.compile(r"[\"\u201c\u2018](?P<q>[^\"\u201d\u2019\n]{3,40})[\"\u201d\u2019]")
_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)\b(?P<w>[A-Z][a-z]{2,})\b")
_HANDLE = re.compile(r"(?<!\w)@(?P<w>[A-Za-z][\w-]{1,30})")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")

_EMOTIONAL_WORDS = """
    angry annoyed anxious delighted disappointed excited frustrated furious glad grateful happy
    hate hated love loved nervous panic relieved sad scared sorry stressed thrilled upset urgent
    worried
"""
EMOTIONAL = frozenset(_EMOTIONAL_WORDS.split())
_COGNITIVE_WORDS = """
    agreed chose concluded confirmed decided decision figured learned planned promised realised
    realized settled understood unsure confused
"""
COGNITIVE = frozenset(_COGNITIVE_WORDS.split())
#: Words by which a record marks something settled (the concept edge rule reads them).
SETTLING = re.compile(
    r"\b(?:settled|agreed|decided|concluded|final(?:ly)?|go(?:ing)?\s+with|call(?:ed)?\s+it"
    r"|stick\s+with|locked\s+in|that's\s+the\s+plan)\b",
    _I,
)
_SINGULAR = re.compile(
    r"\b(?:(?:for\s+)?the\s+(?:first|only|last)\s+time|never\s+again|once\s+and\s+for\s+all"
    r"|first\s+ever|the\s+day\s+(?:we|i|you))\b",
    _I,
)


@attrs.frozen(kw_only=True)
class MarkerProfile:
    coinage: tuple[str, ...] = ()
    actor: tuple[str, ...] = ()
    temporal: tuple[str, ...] = ()
    emotional: tuple[str, ...] = ()
    cognitive: tuple[str, ...] = ()
    singularity: tuple[str, ...] = ()

    def terms(self) -> list[str]:
        """The profile's words, for the full-text index."""
        out: list[str] = []
        for group in (self.coinage, self.actor, self.singularity):
            for item in group:
                out += words(item)
        return out


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def named_coinages(text: str) -> list[str]:
    """Names a text gives outright: "let's call it Bluebird", a short quoted term."""
    found = [m.group("name").strip().lower() for m in _NAMING.finditer(text)]
    found += [
        m.group("q").strip().lower()
        for m in _QUOTED.finditer(text)
        if len(m.group("q").split()) <= 3
    ]
    return [f for f in found if f and not set(words(f)) <= STOPWORDS]


def coinage_candidates(texts: Sequence[str]) -> list[str]:
    """Words a session repeats (two or more times), longest-lived first: the words the store
    is asked about to judge deviation."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(w for w in content_words(text) if len(w) >= 4 and not w.isdigit())
    return [w for w, n in counts.most_common() if n >= 2]


def coinages(
    texts: Sequence[str], *, others: Mapping[str, int], rare_at: int = 1
) -> tuple[str, ...]:
    """Named coinages, and repeated words held by at most ``rare_at`` other sessions."""
    named = [c for t in texts for c in named_coinages(t)]
    rare = [w for w in coinage_candidates(texts) if others.get(w, 0) <= rare_at]
    return _unique([*named, *rare])[:12]


def actors(texts: Sequence[str]) -> tuple[str, ...]:
    """People named: capitalised words inside a sentence, and @handles."""
    found: list[str] = []
    for text in texts:
        for m in _CAPITAL.finditer(text):
            word = m.group("w")
            if word.lower() not in STOPWORDS:
                found.append(word)
        found += [m.group("w") for m in _HANDLE.finditer(text)]
    return _unique(found)[:12]


def profile(texts: Sequence[str], *, others: Mapping[str, int], rare_at: int = 1) -> MarkerProfile:
    said = [w for t in texts for w in words(t)]
    return MarkerProfile(
        coinage=coinages(texts, others=others, rare_at=rare_at),
        actor=actors(texts),
        temporal=_unique(
            [p for t in texts for p in temporal_phrases(t)]
            + [m.group(0) for t in texts for m in _ISO_DATE.finditer(t)]
        )[:12],
        emotional=_unique(w for w in said if w in EMOTIONAL)[:12],
        cognitive=_unique(w for w in said if w in COGNITIVE)[:12],
        singularity=_unique(
            " ".join(m.group(0).lower().split()) for t in texts for m in _SINGULAR.finditer(t)
        )[:12],
    )


def settles(text: str) -> bool:
    """Whether ``text`` marks something as settled ("we agreed", "let's go with")."""
    return SETTLING.search(text) is not None


__all__ = [
    "COGNITIVE",
    "EMOTIONAL",
    "SETTLING",
    "MarkerProfile",
    "actors",
    "coinage_candidates",
    "coinages",
    "named_coinages",
    "profile",
    "settles",
]
