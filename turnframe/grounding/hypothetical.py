"""Hypothetical questions ("what would happen if I withdrew it?"): explained, never done.

The explanation comes from the workflow's declaration only: that the operation (or field)
exists, whether it would ask for confirmation first, whether it is destructive, a submission, or
notifies an external system. What the question supposes is found, in this order:

1. the acts the reducer rejected as inside this question (``supposed``; see
   :func:`supposed_acts`), which is how an interpreter marks "withdrew it" inside the question;
2. the request's ``question``, when it names an operation or field of the workflow;
3. an operation whose name or alias occurs as words in the question's text.

Nothing found gives an explicit no-source answer. Every text ends with ``Nothing was done.``
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from turnframe.corpora import GroundingSource
from turnframe.grounding.answer import Answer, Provenance
from turnframe.grounding.case import check_case, no_source, workflow_ref
from turnframe.grounding.codes import ANSWER_HYPOTHETICAL
from turnframe.grounding.wording import case_reference, name_label, quote
from turnframe.plan import Act, OperationAct, SetFieldAct, StartCaseAct, UserTurnPlan
from turnframe.policy import CommandPolicy, needs_confirmation
from turnframe.results import ACT_INSIDE_HYPOTHETICAL, GroundingRequest, ReductionPlan
from turnframe.workflow import CaseSnapshot, Workflow

NOTHING_DONE = "Nothing was done."

# What a hypothetical supposes: ("operation" | "field" | "start_case", name).
Supposition = tuple[str, str]


def supposed_acts(
    request: GroundingRequest, plan: UserTurnPlan, reduction: ReductionPlan
) -> tuple[Act, ...]:
    """The acts of ``plan`` the reducer rejected because they stand inside this question."""
    return tuple(
        plan.acts[r.act_index]
        for r in reduction.results
        if r.reason == ACT_INSIDE_HYPOTHETICAL and r.decided_by == request.act
    )


def explain_hypothetical(
    request: GroundingRequest,
    asked: str,
    *,
    workflow: Workflow[Any] | None,
    case: CaseSnapshot | None,
    supposed: Sequence[Act],
) -> Answer:
    if case is not None:
        check_case(request, workflow, case)
    if workflow is None:
        text = f"{NOTHING_DONE} No source explains {quote(asked)}: no workflow was named."
        return no_source(request, text)
    suppositions = _suppositions(request, asked, workflow, supposed)
    if not suppositions:
        text = (
            f"{NOTHING_DONE} No source explains {quote(asked)}: "
            f"{workflow_ref(workflow)} declares nothing it names."
        )
        return no_source(request, text, workflow=workflow.name)
    on_case = "" if case is None else " on " + _case_ref(case)
    sentences = [_sentence(kind, name, workflow, on_case) for kind, name in suppositions]
    operations = [name for kind, name in suppositions if kind == "operation"]
    fields = [name for kind, name in suppositions if kind == "field"]
    return Answer(
        act_index=request.act.index,
        interaction_id=request.act.interaction_id,
        code=ANSWER_HYPOTHETICAL,
        text=" ".join([*sentences, NOTHING_DONE]),
        grounding_source=GroundingSource.CASE,
        provenance=Provenance(
            case_id=None if case is None else case.case_id,
            case_revision=None if case is None else case.revision,
            workflow=workflow.name,
            operation=operations[0] if operations else None,
            field=fields[0] if fields else None,
        ),
    )


def _suppositions(
    request: GroundingRequest, asked: str, workflow: Workflow[Any], supposed: Sequence[Act]
) -> list[Supposition]:
    found: list[Supposition] = []
    for act in supposed:
        if isinstance(act, OperationAct):
            found.append(("operation", act.operation))
        elif isinstance(act, SetFieldAct):
            found.append(("field", act.field))
        elif isinstance(act, StartCaseAct):
            found.append(("start_case", act.workflow))
    if found:
        return list(dict.fromkeys(found))
    named = request.question
    if named is not None and workflow.operation(named) is not None:
        return [("operation", named)]
    if named is not None and workflow.field(named) is not None:
        return [("field", named)]
    text = asked.casefold()
    return [
        ("operation", op.name)
        for op in workflow.operations
        if any(_says(text, phrase) for phrase in (op.name, name_label(op.name), *op.aliases))
    ][:1]


def _says(text: str, phrase: str) -> bool:
    return re.search(rf"\b{re.escape(phrase.casefold())}\b", text) is not None


def _sentence(kind: str, name: str, workflow: Workflow[Any], on_case: str) -> str:
    if kind == "start_case":
        confirm = _confirmation(workflow.start_policy, is_destructive=False)
        return f"Hypothetically, starting a new {name_label(name)} would {confirm}."
    if kind == "field":
        field = workflow.field(name)
        if field is None:
            return f"Hypothetically, {quote(name)} is not a field of {workflow_ref(workflow)}."
        confirm = _confirmation(field.policy, is_destructive=False)
        return f"Hypothetically, setting {name_label(name)}{on_case} would {confirm}."
    op = workflow.operation(name)
    if op is None:
        return f"Hypothetically, {quote(name)} is not an operation of {workflow_ref(workflow)}."
    confirm = _confirmation(op.policy, is_destructive=op.is_destructive)
    traits = ["it is destructive" if op.is_destructive else "it is not destructive"]
    if op.is_submission:
        traits.append("it is a submission")
    if op.effect is not None:
        traits.append("it notifies an external system")
    return f"Hypothetically, {name_label(name)}{on_case} would {confirm}; {'; '.join(traits)}."


def _confirmation(policy: CommandPolicy, *, is_destructive: bool) -> str:
    if needs_confirmation(policy, is_destructive=is_destructive):
        return "first ask for your confirmation"
    return "run without asking for confirmation"


def _case_ref(case: CaseSnapshot) -> str:
    return case_reference(
        workflow=case.workflow, label=case.label, case_id=case.case_id, noun=case.noun
    )
