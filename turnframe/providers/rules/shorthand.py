"""Agent shorthand: a request word written without its vowels ("rfnd", "chng", "updt").

A lower-case word of three letters or more with no vowel is the one request word it spells
without vowels: its first letter, then its consonants in order. Only
when exactly one word the reader knows spells so; capitals (names, codes) and words with
digits or inside an address are never touched.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from turnframe.providers.rules.edits import Edit, inside

_WORD = re.compile(r"(?<![\w@.'-])[a-z]{3,}(?![\w@'-])")
_VOWELS = frozenset("aeiou")


def _skeleton(word: str) -> str:
    return word[0] + "".join(c for c in word[1:] if c not in _VOWELS)


@functools.lru_cache(maxsize=16)
def _spelled(words: frozenset[str]) -> dict[str, str | None]:
    """Each skeleton with the one word it spells (``None``: several words spell it)."""
    table: dict[str, str | None] = {}
    for word in words:
        if len(word) < 4 or not word.isalpha():
            continue
        key = _skeleton(word)
        table[key] = word if key not in table or table[key] == word else None
    return table


def spelled_out(text: str, kept: Sequence[tuple[int, int]], words: frozenset[str]) -> list[Edit]:
    """Edits that spell out the vowel-less shorthand of ``text`` (never inside ``kept``)."""
    edits: list[Edit] = []
    table = _spelled(words)
    for m in _WORD.finditer(text):
        said = m.group(0)
        if _VOWELS & set(said) or said in words or inside(kept, m.start(), m.end()):
            continue
        found = table.get(_skeleton(said))
        if found is not None and found != said:
            edits.append(Edit(start=m.start(), end=m.end(), words=found))
    return edits
