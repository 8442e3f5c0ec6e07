"""Which case an act is about: a case label the user said, else the turn's current case.

Labels are the ones the session may name (``case_labels``), matched case-insensitively on whole
words, longest first; a glossary alias whose canonical name is a label counts as that label.
An act that names no case goes to the case the turn last named, else the new case the turn
started, else the session's focus, else the only label there is. When none of those exists the
target is ``LabelTarget(label="")``, which no directory resolves: the reducer then asks which
case is meant (``needs_clarification``) instead of guessing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

import attrs

from turnframe.plan import LabelTarget, NewCaseTarget, Target
from turnframe.providers.rules.shapes import ICASE
from turnframe.references import AliasMatch

Span = tuple[int, int]


@attrs.frozen(kw_only=True)
class Mention:
    start: int
    end: int
    label: str


_NEXT_NAME = re.compile(r"\s+[A-Z][a-z]")


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


def _stand_for(said: str, labels: tuple[str, ...]) -> str:
    return labels[0] if len(set(labels)) == 1 else said


#: Words for any thing, after a plain word of a name: "the gym thing", "my spa one".
_ANY_THING = ("thing", "one", "stuff")


def partial_names(names: Sequence[str], ordinary: frozenset[str]) -> dict[str, str]:
    """Shorter ways to say a name, each with the name: its comma-separated parts of two words
    or more ("Casa Verde" of "Casa Verde, 2 rooms"), the two or more plain words after a
    capitalized first word ("spring retreat" of "Sintra spring retreat"), its capitalized
    words ("Ana", "Verde") and a plain word of it then "thing", "one" or "stuff" ("the spa
    thing" of "spa day pass") that no other name shares and that are not the workflow's own
    words."""
    counts: dict[str, int] = {}
    found: dict[str, set[str]] = {}
    for name in names:
        parts: set[str] = set()
        for segment in name.split(","):
            words = segment.split()
            shorter = len(segment.strip()) < len(name.strip())
            if len(words) >= 2 and shorter and words[0][0].isalpha():
                parts.add(" ".join(words))
            rest = words[1:]
            if (
                len(rest) >= 2
                and words[0][0].isupper()
                and all(w.isalpha() and w.islower() for w in rest)
            ):
                parts.add(" ".join(rest))  # "spring retreat" of "Sintra spring retreat"
        for word in re.findall(r"[^\W\d_][\w'-]*", name):
            if len(word) >= 3 and word[0].isupper() and word.casefold() not in ordinary:
                parts.add(word)
            if len(word) >= 4 and word.islower() and word not in ordinary:
                # "my gym thing": a plain word of the name, then a word for any thing
                parts.update(f"{word} {thing}" for thing in _ANY_THING)
        for part in parts:
            counts[part.casefold()] = counts.get(part.casefold(), 0) + 1
        found[name] = parts
    return {
        part: name
        for name, parts in found.items()
        for part in parts
        if counts[part.casefold()] == 1 and part.casefold() != name.casefold()
    }


def _overlaps(span: Span, spans: Sequence[Span]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in spans)


@functools.lru_cache(maxsize=256)
def _name_table(
    labels: tuple[str, ...],
    names: tuple[tuple[str, tuple[str, ...]], ...],
    ordinary: frozenset[str],
) -> tuple[Mapping[str, str], frozenset[str], re.Pattern[str] | None]:
    """The names a turn may say (said key -> label to use), the single words of longer names,
    and one pattern for them all: built once per set of labels and names, not per turn."""
    # What a name stands for: its case's label when it names one case, else itself (the
    # directory then finds every case it names: an ambiguous target, never a guess).
    owners: dict[str, tuple[str, ...]] = {lb: (lb,) for lb in labels if lb.strip()}
    owners |= {n: lbs for n, lbs in names if n.strip()}
    parts = partial_names(list(owners), ordinary)
    partial = frozenset(_key(p) for p in parts if " " not in p)
    table: dict[str, str] = {}
    for part, whole in parts.items():
        table[_key(part)] = _stand_for(part, owners[whole])
    for name, owned in owners.items():
        table[_key(name)] = _stand_for(name, owned)
    ordered = sorted({*owners, *parts}, key=lambda lb: (-len(lb), lb))
    if not ordered:
        return table, partial, None
    body = "|".join(r"\s+".join(map(re.escape, lb.split())) for lb in ordered)
    # Never inside an address or a file name ("ana.r@example.com" does not name Ana).
    return (
        table,
        partial,
        re.compile(rf"(?<![\w@])(?<!\w\.)(?:{body})(?:'s|\u2019s)?(?![\w\u00b4@]|[.@]\w)", ICASE),
    )


@attrs.define
class Targets:
    """Finds label mentions and remembers which case the turn is talking about."""

    text: str
    labels: tuple[str, ...]
    focus: str | None
    aliases: tuple[AliasMatch, ...] = ()
    current: Target | None = None
    #: Other names of the cases (identifying values), each with the labels of its cases.
    names: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    #: Words never taken as part of a case's name (the workflow's own vocabulary).
    ordinary: frozenset[str] = frozenset()
    _pattern: re.Pattern[str] | None = attrs.field(init=False, default=None)
    #: Said key -> label to use (shared between turns: never changed).
    _names: Mapping[str, str] = attrs.field(init=False, factory=dict)
    _partial: frozenset[str] = attrs.field(init=False, default=frozenset())  # words of names
    #: Where a name addresses someone ("Dear Ana,"): never the user naming their record.
    addressed: list[Span] = attrs.field(factory=list)

    def __attrs_post_init__(self) -> None:
        names = tuple(sorted((n, tuple(lbs)) for n, lbs in self.names.items()))
        self._names, self._partial, self._pattern = _name_table(self.labels, names, self.ordinary)

    def _canonical(self, said: str) -> str:
        key = " ".join(said.casefold().split())
        if key in self._names:
            return self._names[key]
        return self._names[key.removesuffix("'s").removesuffix("\u2019s")]

    def mentions(self, start: int, end: int, outside: Sequence[Span] = ()) -> list[Mention]:
        """Label mentions inside ``[start, end)`` that overlap none of ``outside``."""
        found: list[Mention] = []
        if self._pattern is not None:
            for m in self._pattern.finditer(self.text, start, end):
                if self._inside_other_name(m):
                    continue  # "Casa Sol": a word of a name, but part of another name
                if not _overlaps(m.span(), outside):
                    found.append(
                        Mention(start=m.start(), end=m.end(), label=self._canonical(m.group(0)))
                    )
        labels = {" ".join(lb.casefold().split()): lb for lb in self.labels}
        for alias in self.aliases:
            label = labels.get(" ".join(alias.canonical.casefold().split()))
            inside = start <= alias.start and alias.end <= end
            if label and inside and not _overlaps((alias.start, alias.end), outside):
                found.append(Mention(start=alias.start, end=alias.end, label=label))
        return sorted(found, key=lambda m: m.start)

    def _inside_other_name(self, m: re.Match[str]) -> bool:
        said = _key(m.group(0).removesuffix("'s").removesuffix("\u2019s"))
        if said not in self._partial:
            return False
        return _NEXT_NAME.match(self.text, m.end()) is not None

    def default(self) -> Target:
        if self.current is not None:
            return self.current
        anywhere = {m.label for m in self.mentions(0, len(self.text), self.addressed)}
        if len(anywhere) == 1:  # the one case the message names, wherever it names it
            return LabelTarget(label=anywhere.pop())
        if self.focus:
            return LabelTarget(label=self.focus)
        distinct = {lb.casefold() for lb in self.labels}
        if len(distinct) == 1:
            return LabelTarget(label=self.labels[0])
        return LabelTarget(label="")

    def find(self, start: int, end: int, outside: Sequence[Span] = ()) -> Target:
        """The first label said in the span, else the default (nothing is remembered yet)."""
        said = self.mentions(start, end, outside)
        return LabelTarget(label=said[0].label) if said else self.default()

    def remember(self, target: Target | None) -> None:
        """An act was emitted on ``target``: "it" now means that case."""
        if isinstance(target, NewCaseTarget) or (isinstance(target, LabelTarget) and target.label):
            self.current = target

    def started(self, start_act: int) -> None:
        self.current = NewCaseTarget(start_act=start_act)
