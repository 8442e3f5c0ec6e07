"""What the narrator knows about a turn's acts and cases, gathered once from its inputs.

A *unit* is one act with its one result: an act of this turn's plan, or a pending act of the
card this turn's click answered. Units are described by fixed templates: ``note to “window
seat”``, ``withdraw``, ``travel date``; cases as ``Trip “Anna”``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from turnframe.execution import ExecutionReport
from turnframe.grounding.wording import case_reference, name_label, quote
from turnframe.plan import (
    Act,
    CancelAct,
    ChitchatAct,
    ConstraintAct,
    CorrectAct,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    RecallAct,
    SetFieldAct,
    StartCaseAct,
    UnnamedChangeAct,
    UserTurnPlan,
    target_of,
)
from turnframe.results import ActRef, InteractionToCreate, PlannedActResult, ReductionPlan
from turnframe.workflow import CASE_STARTED_EVENT, CaseSnapshot, EventDescriber


@attrs.frozen(kw_only=True)
class Unit:
    ref: ActRef
    act: Act | None  # None when the act itself was not given (a pending act of an unknown card)
    result: PlannedActResult
    siblings: tuple[Act, ...] = ()  # the acts the act links into (its plan or card)


@attrs.frozen(kw_only=True)
class CaseName:
    workflow: str | None = None
    label: str | None = None
    noun: str | None = None


@attrs.frozen(kw_only=True, eq=False)
class Facts:
    units: tuple[Unit, ...]
    names: Mapping[str, CaseName]
    describers: Mapping[str, EventDescriber] = attrs.field(factory=dict)
    _by_ref: dict[ActRef, Unit] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_ref", {u.ref: u for u in self.units})

    def unit(self, ref: ActRef | None) -> Unit | None:
        return None if ref is None else self._by_ref.get(ref)

    def describer(self, case_id: str) -> EventDescriber | None:
        """The workflow's own wording for the case's committed events, if it has one."""
        workflow = self.names.get(case_id, CaseName()).workflow
        return None if workflow is None else self.describers.get(workflow)

    def case_ref(self, case_id: str) -> str:
        name = self.names.get(case_id, CaseName())
        return case_reference(
            workflow=name.workflow, label=name.label, case_id=case_id, noun=name.noun
        )

    def where(self, unit: Unit) -> str:
        """`` on Trip “Anna”`` (a resolved case), `` on “Anna”`` (a label), or nothing."""
        if isinstance(unit.act, StartCaseAct):
            return ""
        if unit.result.case_id is not None:
            return " on " + self.case_ref(unit.result.case_id)
        target = None if unit.act is None else target_of(unit.act)
        if isinstance(target, LabelTarget):
            return " on " + quote(target.label)
        return ""

    def describe(self, unit: Unit) -> str:
        return what(unit) + self.where(unit)

    def describe_all(self, units: Sequence[Unit]) -> str:
        """Several acts: ``note to “x”; tag on Trip “Anna”`` (the case named once if shared)."""
        places = {self.where(u) for u in units}
        if len(places) == 1:
            return "; ".join(what(u) for u in units) + places.pop()
        return "; ".join(self.describe(u) for u in units)


def what(unit: Unit) -> str:
    act = unit.act
    if act is None:
        return f"act {unit.ref.index} ({name_label(unit.result.kind)})"
    if isinstance(act, SetFieldAct):
        if not act.value.strip():  # asked for: nothing said yet
            return f"the {name_label(act.field)}"
        return f"{name_label(act.field)} to {quote(act.value)}"
    if isinstance(act, CorrectAct):
        field = root_field(act, unit.siblings)
        head = "the correction" if field is None else name_label(field)
        return f"{head} to {quote(act.value)}"
    if isinstance(act, KeepUnchangedAct):
        return name_label(act.field)
    if isinstance(act, OperationAct):
        return name_label(act.operation)
    if isinstance(act, StartCaseAct):
        label = "" if act.label is None else " " + quote(act.label)
        return f"a new {name_label(act.workflow)}{label}"
    if isinstance(act, QuestionAct):
        return f"the question {quote(evidence_text(act))}"
    if isinstance(act, RecallAct):
        return f"the recall of {quote(act.description)}"
    if isinstance(act, UnnamedChangeAct):
        return "the change" + ("" if act.about is None else f" to the {name_label(act.about)}")
    assert isinstance(act, CancelAct | ConstraintAct | ChitchatAct)
    return quote(evidence_text(act))


def root_field(act: CorrectAct, siblings: Sequence[Act]) -> str | None:
    """The field a chain of corrections finally sets (``None`` if the chain is not given)."""
    seen: set[int] = set()
    current: Act = act
    while isinstance(current, CorrectAct) and 0 <= current.corrects < len(siblings):
        if current.corrects in seen:
            return None
        seen.add(current.corrects)
        current = siblings[current.corrects]
    return current.field if isinstance(current, SetFieldAct) else None


def evidence_text(act: Act) -> str:
    return " ".join(ev.text.strip() for ev in act.evidence)


def gather(
    *,
    plan: UserTurnPlan | None,
    reduction: ReductionPlan,
    execution: ExecutionReport | None,
    cases: Mapping[str, CaseSnapshot],
    answered: InteractionToCreate | None,
    describers: Mapping[str, EventDescriber] | None = None,
) -> Facts:
    units: list[Unit] = []
    outcome = reduction.interaction_outcome
    if outcome is not None:
        pending = answered.pending_acts if answered is not None else ()
        for r in outcome.results:
            act = pending[r.act_index] if r.act_index < len(pending) else None
            ref = ActRef(index=r.act_index, interaction_id=outcome.interaction_id)
            units.append(Unit(ref=ref, act=act, result=r, siblings=pending))
    acts = plan.acts if plan is not None else ()
    for r in reduction.results:
        act = acts[r.act_index] if r.act_index < len(acts) else None
        units.append(Unit(ref=ActRef(index=r.act_index), act=act, result=r, siblings=acts))
    return Facts(
        units=tuple(units),
        names=_names(units, reduction, execution, cases, answered),
        describers=dict(describers or {}),
    )


def _names(
    units: Sequence[Unit],
    reduction: ReductionPlan,
    execution: ExecutionReport | None,
    cases: Mapping[str, CaseSnapshot],
    answered: InteractionToCreate | None,
) -> dict[str, CaseName]:
    """Each case's workflow and label; the snapshot first, then what this turn says of it."""
    found: dict[str, CaseName] = {}

    def learn(
        case_id: str | None, workflow: str | None, label: str | None, noun: str | None = None
    ) -> None:
        if case_id is None:
            return
        known = found.get(case_id, CaseName())
        found[case_id] = CaseName(
            workflow=known.workflow or workflow,
            label=known.label or label,
            noun=known.noun or noun,
        )

    for case_id, snapshot in sorted(cases.items()):
        learn(case_id, snapshot.workflow, snapshot.label, snapshot.noun)
    for event in () if execution is None else execution.events:
        if event.name == CASE_STARTED_EVENT:
            learn(event.case_id, event.data.get("workflow"), event.data.get("label"))
    for unit in units:
        if isinstance(unit.act, StartCaseAct):
            learn(unit.result.case_id, unit.act.workflow, unit.act.label)
    for unit in units:  # without a snapshot, the label the user named the case by
        target = None if unit.act is None else target_of(unit.act)
        if isinstance(target, LabelTarget):
            learn(unit.result.case_id, None, target.label)
    for batch in reduction.batches:
        learn(batch.case_id, batch.workflow, None)
    for card in (*reduction.interactions, *([answered] if answered is not None else [])):
        for batch in card.awaiting_batches:
            learn(batch.case_id, batch.workflow, None)
        for option in card.options:
            learn(option.case_id, None, option.label)
    return found
