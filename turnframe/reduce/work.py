"""The reducer's working set for one call: entries, their places, and the results so far.

Internal to :mod:`turnframe.reduce`. It is mutable only inside one ``reduce`` call; nothing
escapes but the frozen ReductionPlan built from it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import attrs

from turnframe.plan import (
    Act,
    CorrectAct,
    KeepUnchangedAct,
    NewCaseTarget,
    OperationAct,
    SetFieldAct,
    StartCaseAct,
    Target,
)
from turnframe.reduce.context import ReductionContext
from turnframe.results import (
    ActRef,
    ActStatus,
    CommandBatch,
    GroundingRequest,
    InteractionToCreate,
    PlannedActResult,
    Rejection,
)
from turnframe.workflow import Workflow

ACTION_KINDS = frozenset({"set_field", "correct", "operation", "start_case"})

EXACT = "exact"
NEW = "new"
AMBIGUOUS = "ambiguous"
UNKNOWN = "unknown"


@attrs.frozen(kw_only=True)
class Place:
    """Where an act's target resolved to."""

    outcome: str
    case_id: str | None = None
    candidates: tuple[str, ...] = ()
    raw: Target | None = None
    start_pos: int | None = None  # for a new case: the position of its start_case act

    @property
    def key(self) -> Hashable:
        """The identity used to match acts on one target (keep, conflicts, constraints)."""
        return self.case_id if self.case_id is not None else ("raw", self.raw)

    @property
    def keys(self) -> tuple[Hashable, ...]:
        """Every identity this place may stand for (an ambiguous place: each candidate too)."""
        return (self.key, *self.candidates)


@attrs.define
class Entry:
    pos: int
    ref: ActRef
    act: Act
    from_text: bool
    root: int
    place: Place | None = None

    @property
    def kind(self) -> str:
        return self.act.kind


@attrs.define
class Cursor:
    """A case as the simulation has it: its state and the revision its next batch expects."""

    workflow: Workflow[Any]
    state: Any
    revision: int


@attrs.define
class Work:
    ctx: ReductionContext
    entries: list[Entry]
    offset: int  # entries before this are pending acts of the answered select-target card
    results: list[PlannedActResult | None]
    chains: dict[int, list[int]] = attrs.field(factory=dict)  # set_field root -> members
    cursors: dict[str, Cursor] = attrs.field(factory=dict)
    claims: set[tuple[Hashable, str]] = attrs.field(factory=set)
    batches: list[CommandBatch] = attrs.field(factory=list)
    interactions: list[InteractionToCreate] = attrs.field(factory=list)
    grounding: list[GroundingRequest] = attrs.field(factory=list)
    units: dict[int, int] = attrs.field(factory=dict)  # entry position -> the plan's unit
    expired: list[str] = attrs.field(factory=list)  # open cards this turn's words disowned

    @property
    def account_id(self) -> str:
        return self.ctx.turn.account_id

    @property
    def turn_id(self) -> str:
        return self.ctx.turn.turn_id

    def undecided(self, pos: int) -> bool:
        return self.results[pos] is None

    def decide(
        self,
        pos: int,
        status: ActStatus,
        reason: str,
        by: int | None,
        *,
        case_id: str | None = None,
        command_ids: tuple[str, ...] = (),
        interaction_id: str | None = None,
        rejection: Rejection | None = None,
        detail: str | None = None,
    ) -> None:
        if self.results[pos] is not None:
            raise AssertionError(f"act at position {pos} was decided twice")
        entry = self.entries[pos]
        self.results[pos] = PlannedActResult(
            act_index=entry.ref.index,
            kind=entry.kind,
            status=status,
            reason=reason,
            decided_by=None if by is None else self.entries[by].ref,
            case_id=case_id if case_id is not None else self.case_of(pos),
            command_ids=command_ids,
            interaction_id=interaction_id,
            rejection=rejection,
            detail=detail,
        )

    def case_of(self, pos: int) -> str | None:
        place = self.entries[pos].place
        return None if place is None else place.case_id

    def root_act(self, pos: int) -> Act:
        return self.entries[self.entries[pos].root].act

    def field_of(self, pos: int) -> str | None:
        act = self.root_act(pos)
        if isinstance(act, SetFieldAct | KeepUnchangedAct):
            return act.field
        return None

    def value_of(self, pos: int) -> str:
        act = self.entries[pos].act
        if isinstance(act, CorrectAct | SetFieldAct):
            return act.value
        raise AssertionError(f"act at position {pos} carries no value")

    def subject_of(self, pos: int) -> str | None:
        """What an action touches on its case: ``field:<name>`` or ``operation:<name>``."""
        act = self.root_act(pos)
        if isinstance(act, SetFieldAct | KeepUnchangedAct):
            return f"field:{act.field}"
        if isinstance(act, OperationAct):
            return f"operation:{act.operation}"
        if isinstance(act, StartCaseAct):
            return "start_case"
        return None

    def workflow_of(self, place: Place) -> Workflow[Any] | None:
        if place.outcome == EXACT and place.case_id is not None:
            snapshot = self.ctx.cases.get(place.case_id)
            return None if snapshot is None else self.ctx.workflows.get(snapshot.workflow)
        if place.outcome == NEW and place.start_pos is not None:
            start = self.entries[place.start_pos].act
            assert isinstance(start, StartCaseAct)
            return self.ctx.workflows.get(start.workflow)
        return None

    def possible_workflows(self, place: Place) -> list[Workflow[Any]]:
        """Every workflow an act might run under: for guarding, never for executing."""
        exact = self.workflow_of(place)
        if exact is not None:
            return [exact]
        found = [self.ctx.cases[c].workflow for c in place.candidates if c in self.ctx.cases]
        names = sorted(set(found)) if found else sorted(self.ctx.workflows)
        return [self.ctx.workflows[n] for n in names if n in self.ctx.workflows]


def new_case_target_pos(work: Work, target: Target | None) -> int | None:
    if isinstance(target, NewCaseTarget):
        return work.offset + target.start_act
    return None
