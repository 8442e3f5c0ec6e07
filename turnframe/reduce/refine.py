"""Workflow refinements: a workflow's own same-turn rules, after the default ones.

A refinement sees the acts still undecided on its workflow's cases and may hold some back
(``needs_clarification`` or ``rejected`` with the workflow's reason). It can never decide that
an act runs: anything it does not hold back goes on through the default rules and policies, so
the defaults are refined, never bypassed. A refinement that names an act it was not shown is a
bug in the workflow and raises :class:`RefinementError`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from turnframe.errors import TurnframeError
from turnframe.reduce.work import ACTION_KINDS, Work
from turnframe.results import ActStatus
from turnframe.workflow import ActOnCase, Workflow


class RefinementError(TurnframeError):
    code = "turnframe.workflow.bad_refinement"


def apply_refinements(work: Work) -> None:
    views: dict[str, list[tuple[int, ActOnCase]]] = defaultdict(list)
    workflows: dict[str, Workflow[Any]] = {}
    for entry in work.entries:
        if entry.kind not in ACTION_KINDS or entry.root != entry.pos:
            continue  # a correction is decided with the change it corrects
        if not work.undecided(entry.pos) or entry.place is None:
            continue
        workflow = work.workflow_of(entry.place)
        if workflow is None or not workflow.refinements:
            continue
        case_id = entry.place.case_id
        case = work.ctx.cases.get(case_id) if case_id is not None else None
        workflows[workflow.name] = workflow
        views[workflow.name].append(
            (entry.pos, ActOnCase(act_index=entry.ref.index, act=entry.act, case=case))
        )
    for name, view in views.items():
        shown = {a.act_index: pos for pos, a in view}
        acts = tuple(a for _, a in view)
        for refinement in workflows[name].refinements:
            for hold in refinement(acts):
                pos = shown.get(hold.act_index)
                if pos is None:
                    raise RefinementError(
                        f"workflow {name!r}: a refinement held back act {hold.act_index}, "
                        "which it was not shown",
                        hint="hold back only acts from the sequence the refinement receives",
                    )
                if not work.undecided(pos):
                    continue  # an earlier refinement of this turn held it back already
                status = ActStatus.NEEDS_CLARIFICATION if hold.clarify else ActStatus.REJECTED
                for member in work.chains.get(pos, [pos]):
                    if work.undecided(member):
                        work.decide(member, status, hold.reason.code, pos, rejection=hold.reason)
