"""Conditional acts: "if the discount is still valid, apply it; otherwise leave it".

A condition is decided once, from the case state at reduction time and the turn's clock, by the
workflow's own predicate. The branch not taken is ``no_change`` with the stable reason
``turnframe.act.condition_not_met`` (its detail names the condition and what it was), so the
reply says why nothing happened; a condition the workflow does not declare is ``rejected``.
"""

from __future__ import annotations

from typing import Any

from turnframe.plan import OperationAct, SetFieldAct
from turnframe.reduce.work import Work
from turnframe.results import ACT_CONDITION_NOT_MET, ACT_UNKNOWN_CONDITION, ActStatus
from turnframe.workflow import ParseContext, Workflow


def conditions_hold(work: Work, workflow: Workflow[Any], pos: int, state: Any) -> bool:
    """Whether the act at ``pos`` may go on; if not, it is decided here."""
    act = work.root_act(pos)
    condition = act.condition if isinstance(act, OperationAct | SetFieldAct) else None
    if condition is None:
        return True
    declared = workflow.condition(condition.name)
    if declared is None:
        detail = f"no condition {condition.name!r} on {workflow.name}"
        work.decide(pos, ActStatus.REJECTED, ACT_UNKNOWN_CONDITION, pos, detail=detail)
        return False
    truth = bool(declared.holds(state, ParseContext.of(work.ctx.turn)))
    if truth is condition.holds:
        return True
    said = "holds" if truth else "does not hold"
    detail = f"{condition.name.replace('_', ' ')} {said}"
    work.decide(pos, ActStatus.NO_CHANGE, ACT_CONDITION_NOT_MET, pos, detail=detail)
    return False
