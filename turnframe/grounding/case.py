"""Answers from the case: a workflow's read-only question, read from the case state.

The text is the workflow's own sentence when its question returns one (a ``str`` ending with
``.``, ``!`` or ``?``, used verbatim), otherwise ``<Case> — <question>: <value>.`` with the value
shown by :func:`~turnframe.grounding.wording.format_value`.
"""

from __future__ import annotations

from typing import Any

from turnframe.corpora import GroundingSource
from turnframe.grounding.answer import Answer, GroundingError, Provenance, QuestionFailedError
from turnframe.grounding.codes import ANSWER_CASE_QUESTION, ANSWER_NO_SOURCE
from turnframe.grounding.wording import (
    case_reference,
    format_value,
    is_sentence,
    name_label,
    quote,
)
from turnframe.results import GroundingRequest
from turnframe.workflow import CaseSnapshot, Question, Workflow


def answer_case_question(
    request: GroundingRequest,
    name: str,
    asked: str,
    *,
    workflow: Workflow[Any] | None,
    case: CaseSnapshot | None,
) -> Answer:
    """Answer the workflow question ``name`` on ``case``; ``asked`` is the user's question."""
    if case is None:
        text = f"No source: {quote(asked)} is about a case, and no case was named."
        return no_source(request, text, question=name)
    check_case(request, workflow, case)
    assert workflow is not None  # check_case refuses a case without its workflow
    question = find_question(workflow, name)
    if question is None:
        text = f"No source: {workflow_ref(workflow)} has no question {quote(name)}."
        return no_source(request, text, question=name, workflow=workflow.name)
    try:
        value = question.answer(case.state)
    except Exception as exc:
        raise QuestionFailedError(
            f"workflow {workflow.name!r}: question {question.name!r} raised {exc!r} "
            f"on case {case.case_id!r} at revision {case.revision}",
            hint="a question must return a value for every state; fix the workflow",
        ) from exc
    return Answer(
        act_index=request.act.index,
        interaction_id=request.act.interaction_id,
        code=ANSWER_CASE_QUESTION,
        text=_case_text(case, question, value),
        grounding_source=GroundingSource.CASE,
        provenance=Provenance(
            case_id=case.case_id,
            case_revision=case.revision,
            workflow=workflow.name,
            question=question.name,
        ),
    )


def _case_text(case: CaseSnapshot, question: Question[Any], value: Any) -> str:
    if is_sentence(value):
        return str(value).strip()
    ref = case_reference(
        workflow=case.workflow, label=case.label, case_id=case.case_id, noun=case.noun
    )
    return f"{ref} \u2014 {name_label(question.name)}: {format_value(value)}."


def find_question(workflow: Workflow[Any], name: str) -> Question[Any] | None:
    """The question by its name, else by one of its aliases (case ignored)."""
    found = workflow.question(name)
    if found is not None:
        return found
    wanted = name.casefold()
    return next(
        (q for q in workflow.questions if wanted in (a.casefold() for a in q.aliases)), None
    )


def check_case(
    request: GroundingRequest, workflow: Workflow[Any] | None, case: CaseSnapshot
) -> None:
    """Refuse a case that is not the one the request names, or not of the given workflow."""
    if request.case_id is not None and request.case_id != case.case_id:
        raise GroundingError(
            f"act {request.act.index} asks about case {request.case_id!r}, "
            f"but case {case.case_id!r} was given",
            hint="pass the snapshot of the case the grounding request names",
        )
    if workflow is None or workflow.name != case.workflow:
        given = None if workflow is None else workflow.name
        raise GroundingError(
            f"case {case.case_id!r} belongs to workflow {case.workflow!r}, but {given!r} was given",
            hint="pass the workflow of the case",
        )


def workflow_ref(workflow: Workflow[Any]) -> str:
    return f"the {name_label(workflow.name)} workflow"


def no_source(
    request: GroundingRequest,
    text: str,
    *,
    question: str | None = None,
    workflow: str | None = None,
) -> Answer:
    """The explicit answer when nothing may answer: it names what was asked, never silence."""
    return Answer(
        act_index=request.act.index,
        interaction_id=request.act.interaction_id,
        code=ANSWER_NO_SOURCE,
        text=text,
        grounding_source=GroundingSource.NONE,
        provenance=Provenance(case_id=request.case_id, workflow=workflow, question=question),
    )
