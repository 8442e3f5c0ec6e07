"""Which case an act is about: a case label the user said, else the turn's current case.

Labels are the ones the session may name (``case_labels``), matched case-insensitively on whole
words, longest first; a glossary alias whose canonical name is a label counts as that label.
An act that names no case goes to the case the turn last named, else the new case the turn
started, else the session's focus, else the only label there is. When none of those exists the
target is ``LabelTarget(label="")``, which no directory resolves: the reducer then asks which
case is meant (``needs_clarification``) instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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


def _overlaps(span: Span, spans: Sequence[Span]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in spans)


@attrs.define
class Targets:
    """Finds label mentions and remembers which case the turn is talking about."""

    text: str
    labels: tuple[str, ...]
    focus: str | None
    aliases: tuple[AliasMatch, ...] = ()
    current: Target | None = None
    _pattern: re.Pattern[str] | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        ordered = sorted({lb for lb in self.labels if lb.strip()}, key=lambda lb: -len(lb))
        if ordered:
            body = "|".join(r"\s+".join(map(re.escape, lb.split())) for lb in ordered)
            self._pattern = re.compile(rf"(?<!\w)(?:{body})(?:'s|\u2019s)?(?!\w)", ICASE)

    def _canonical(self, said: str) -> str:
        keys = {" ".join(lb.casefold().split()): lb for lb in self.labels}
        key = " ".join(said.casefold().split())
        if key in keys:
            return keys[key]
        return keys[key.removesuffix("'s").removesuffix("\u2019s")]

    def mentions(self, start: int, end: int, outside: Sequence[Span] = ()) -> list[Mention]:
        """Label mentions inside ``[start, end)`` that overlap none of ``outside``."""
        found: list[Mention] = []
        if self._pattern is not None:
            for m in self._pattern.finditer(self.text, start, end):
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

    def default(self) -> Target:
        if self.current is not None:
            return self.current
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
