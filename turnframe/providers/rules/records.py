"""A record is never guessed from words inside a value.

"set the note to call Ana back", "change my email to rui.costa@…": a name of a record's
customer inside the value being set is what the value says, not which record to change. When
the only mentions of an act's record lie inside the turn's values, the session has not named the
record: unless it is the session's focus (or the only record there is), the act's target
becomes unknown and the reducer asks which record is meant (``needs_clarification``).
"""

from __future__ import annotations

import attrs

from turnframe.plan import LabelTarget, OperationAct, SetFieldAct
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.targets import Targets

Span = tuple[int, int]


def unnamed_records(plan: PlanBuilder, targets: Targets, focus: str | None) -> None:
    """Make unknown every act's record that the turn names only inside its values."""
    if len({label.casefold() for label in targets.labels}) <= 1:
        return
    values = _value_spans(plan)
    if not values:
        return
    mentioned: dict[str, list[Span]] = {}
    for m in targets.mentions(0, len(plan.text)):
        mentioned.setdefault(m.label, []).append((m.start, m.end))
    for index, act in enumerate(plan.acts):
        if not isinstance(act, SetFieldAct | OperationAct):
            continue
        target = act.target
        if not isinstance(target, LabelTarget) or not target.label or target.label == focus:
            continue
        spots = mentioned.get(target.label, [])
        if spots and all(_inside(spot, values) for spot in spots):
            plan.acts[index] = attrs.evolve(act, target=LabelTarget(label=""))


def _value_spans(plan: PlanBuilder) -> list[Span]:
    """Where the turn's free-text values stand in the text (found inside their evidence)."""
    spans: list[Span] = []
    for act in plan.acts:
        if isinstance(act, SetFieldAct):
            said = [act.value]
        elif isinstance(act, OperationAct):
            said = list(act.args.values())
        else:
            continue
        for value in said:
            value = value.strip()
            if len(value) < 3:
                continue
            for ev in act.evidence:
                at = ev.text.find(value)
                if at >= 0:
                    spans.append((ev.start + at, ev.start + at + len(value)))
                    break
    return spans


def _inside(spot: Span, spans: list[Span]) -> bool:
    return any(s <= spot[0] and spot[1] <= e for s, e in spans)
