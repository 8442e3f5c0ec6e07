"""The plan under construction: acts in the user's order, what each touched, what was unread."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from turnframe._converter import unstructure
from turnframe._hashing import canonical_json
from turnframe.plan import (
    Act,
    CancelAct,
    CorrectAct,
    Evidence,
    OperationAct,
    SetFieldAct,
    StartCaseAct,
    UserTurnPlan,
)

Span = tuple[int, int]


@attrs.frozen(kw_only=True)
class Note:
    """What the interpreter remembers about an act it emitted (never part of the plan).

    ``numbers`` lists the arguments filled from numbers, money or dates, in the user's order:
    a bare "no wait, 135" corrects the last of them.
    """

    field: str | None = None
    operation: str | None = None
    args: dict[str, str] = attrs.field(factory=dict)
    numbers: tuple[str, ...] = ()
    span: Span | None = None


@attrs.define
class PlanBuilder:
    text: str
    acts: list[Act] = attrs.field(factory=list)
    notes: list[Note] = attrs.field(factory=list)
    unread: list[Evidence] = attrs.field(factory=list)

    def evidence(self, *spans: Span) -> tuple[Evidence, ...]:
        return tuple(Evidence(start=s, end=e, text=self.text[s:e]) for s, e in spans if s < e)

    def add(self, act: Act, note: Note | None = None) -> int:
        self.acts.append(act)
        self.notes.append(note or Note())
        return len(self.acts) - 1

    def not_understood(self, start: int, end: int) -> None:
        if start < end and not any(e.start == start and e.end == end for e in self.unread):
            self.unread.append(Evidence(start=start, end=end, text=self.text[start:end]))

    def cancelled(self) -> set[int]:
        return {a.cancels for a in self.acts if isinstance(a, CancelAct)}

    def latest(self, accept: Callable[[int, Act, Note], bool]) -> int | None:
        """The latest act not cancelled that ``accept`` takes (a correction counts as its root)."""
        gone = self.cancelled()
        for index in range(len(self.acts) - 1, -1, -1):
            root = self.root(index)
            if root in gone:
                continue
            if accept(index, self.acts[index], self.notes[root]):
                return index
        return None

    def root(self, index: int) -> int:
        act = self.acts[index]
        while isinstance(act, CorrectAct):
            index = act.corrects
            act = self.acts[index]
        return index

    def last_change(self) -> int | None:
        """The latest value-bearing act: a field set (or its correction) or an operation."""
        return self.latest(
            lambda _, act, __: isinstance(act, SetFieldAct | CorrectAct | OperationAct)
        )

    def last_cancellable(self) -> int | None:
        index = self.latest(
            lambda _, act, __: isinstance(
                act, SetFieldAct | CorrectAct | OperationAct | StartCaseAct
            )
        )
        return None if index is None else self.root(index)

    def plan(self) -> UserTurnPlan:
        unread = tuple(sorted(self.unread, key=lambda e: e.start))
        return UserTurnPlan(acts=tuple(self.acts), not_understood=unread)


def plan_to_json(plan: UserTurnPlan) -> str:
    """The plan as an interpreter's JSON answer: canonical, so equal plans give equal bytes."""
    return canonical_json(unstructure(plan)).decode("utf-8")
