"""What a case may be called: its label and the attributes its workflow declares identifying.

A user names an order "1001", "#1001", "order no. 1001", "Ana Reis's order" or "the Almirante
booking"; the directory resolves such a name in three steps, each one only if the one before
found nothing: the label itself, an identifying value itself, then a case all of whose name
words contain the words said ("Almirante" is a word of "Hotel Almirante, 1 night"). Several
cases matching is an ambiguous target (a select-target card), never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from turnframe.workflow import Workflow

_WORD = re.compile(r"[^\W_]+")


def name_words(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(text))


def _key(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def case_names(label: str | None, state: Any, workflow: Workflow[Any] | None) -> tuple[str, ...]:
    """The label and the identifying values of one case (what a user may call it)."""
    names = [label] if label else []
    if workflow is not None:
        names += workflow.identifying_values(None, state)
    return tuple(dict.fromkeys(n for n in names if n.strip()))


def find_named(said: str, cases: Iterable[tuple[str, str | None, Sequence[str]]]) -> list[str]:
    """Ids of the cases ``said`` names: ``cases`` gives (case id, label, names) for each."""
    wanted = _key(said)
    words = name_words(said)
    if not wanted:
        return []
    listed = list(cases)

    def by_label(label: str | None, names: Sequence[str]) -> bool:
        return _key(label or "") == wanted

    def by_value(label: str | None, names: Sequence[str]) -> bool:
        return any(_key(n) == wanted for n in names)

    def by_words(label: str | None, names: Sequence[str]) -> bool:
        return words <= name_words(" ".join(names))

    for step in (by_label, by_value, by_words):
        found = [case_id for case_id, label, names in listed if step(label, names)]
        if found:
            return found
    return []
