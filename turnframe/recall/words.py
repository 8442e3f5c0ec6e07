"""Words as both stores' full-text engines see them, and the content words a cue is made of.

The stores index raw text with their own tokenizers (SQLite FTS5 ``unicode61`` without
diacritic removal; PostgreSQL ``to_tsvector('simple', …)`` after every run of non-alphanumerics
became one space), so a word is a maximal run of letters and digits, lower-cased. :func:`words`
cuts text the same way, so a term this module produces is a term both engines hold, and a query
built from it matches the same rows on both.

Matching is literal; :func:`variants` adds the plural and singular of a word so "pools" reaches
"pool" on both stores alike.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

#: A maximal run of letters and digits (``\w`` without the underscore).
WORD = re.compile(r"[^\W_]+")

#: Function words and the words people frame a recall with ("that thing we talked about"):
#: they say that something is being recalled, not what.
_STOPWORDS_WORDS = """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each either else ever few for from further get got had hadn has hasn have
    haven having he her here hers herself him himself his how i if in into is isn it its itself
    just let ll me might mine more most must mustn my myself neither no nor not now of off on
    once only or other our ours ourselves out over own per please quite rather re really s same
    shall shan she should shouldn so some such t than that the their theirs them themselves then
    there these they this those though through thus to too under until up upon us very ve was
    wasn we were weren what whatever when where whether which while who whom whose why will with
    within without won would wouldn yet you your yours yourself yourselves d m o y thing things
    stuff something anything one ones bit kind sort way remember recall recollect remind
    reminded recalling remembering talk talked talking spoke speak speaking chat chatted
    chatting discuss discussed discussing discussion conversation conversations said say saying
    told tell mention mentioned think thought guess maybe perhaps probably sure yes yeah yep
    nope ok okay oh hmm um uh earlier before ago back time times previously last week weeks
    month months day days yesterday today recently while
    wat wht whats wats u ur abt abot abut bout remeber rember remmeber rememeber remembr pls plz
"""
STOPWORDS = frozenset(_STOPWORDS_WORDS.split())


def normal(text: str) -> str:
    """NFC, the form users type and both engines compare."""
    return unicodedata.normalize("NFC", text)


def words(text: str) -> list[str]:
    """Every word of ``text`` in order, lower-cased (as both full-text engines cut it)."""
    return WORD.findall(normal(text).lower())


def content_words(text: str) -> list[str]:
    """The words of ``text`` that say what it is about: no function or framing words, no
    one-letter words; numbers are kept (a number is often the best cue there is)."""
    return [w for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def keywords(texts: Iterable[str], *, limit: int) -> list[str]:
    """The ``limit`` most frequent content words of ``texts``; ties in first-seen order."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts:
        for word in content_words(text):
            counts[word] += 1
            first.setdefault(word, len(first))
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return ranked[:limit]


def variants(word: str) -> tuple[str, ...]:
    """``word`` and its regular plural or singular, so either form finds the other."""
    forms = [word]
    if word.isdigit() or len(word) < 3:
        return (word,)
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    elif word.endswith("es") and word[-3:-2] in ("s", "x", "z", "h"):
        forms.append(word[:-2])
    elif word.endswith("s") and not word.endswith("ss"):
        forms.append(word[:-1])
    elif word.endswith("y") and word[-2:-1] not in "aeiou":
        forms.append(word[:-1] + "ies")
    elif word.endswith(("s", "x", "z", "ch", "sh")):
        forms.append(word + "es")
    else:
        forms.append(word + "s")
    return tuple(dict.fromkeys(forms))


def contains_word(text_words: Iterable[str], word: str) -> bool:
    """Whether ``word`` (or one of its variants) is among ``text_words``."""
    wanted = set(variants(word))
    return any(w in wanted for w in text_words)


__all__ = [
    "STOPWORDS",
    "WORD",
    "contains_word",
    "content_words",
    "keywords",
    "normal",
    "variants",
    "words",
]
