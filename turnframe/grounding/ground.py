"""``ground(request, …) -> Answer``: one answer for one question or recall, never silence.

Dispatch, in order:

- a recall → ``recall_unsupported`` (the recall protocol does not exist yet);
- a hypothetical question → explained from the workflow's declaration, never done;
- a question naming a workflow question → answered from the case state;
- any other question → classified by the corpora intent rules and answered from reviewed
  corpora (a RECALL intent → ``recall_unsupported``);
- whatever none of these can answer → an explicit ``no_source`` answer naming what was asked.

Pure: every input is a value, and the same inputs give the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnframe.corpora import CorpusRegistry, ThreadContext
from turnframe.grounding.answer import Answer, GroundingError
from turnframe.grounding.case import answer_case_question
from turnframe.grounding.hypothetical import explain_hypothetical
from turnframe.grounding.knowledge import answer_knowledge, recall_unsupported
from turnframe.messages import UserTurn
from turnframe.plan import Act
from turnframe.results import GroundingRequest
from turnframe.workflow import CaseSnapshot, Workflow


def ground(
    request: GroundingRequest,
    *,
    turn: UserTurn,
    workflow: Workflow[Any] | None,
    case: CaseSnapshot | None,
    registry: CorpusRegistry | None,
    thread: ThreadContext | None,
    anaphora: bool,
    turn_index: int,
    supposed: Sequence[Act] = (),
) -> Answer:
    """Answer ``request``.

    ``case`` is the snapshot of the case the request names (after this turn's commits, so the
    answer says what is true now), ``workflow`` its workflow. ``thread`` and ``turn_index`` feed
    the anaphora prefix; ``turn_index`` is this turn's index in the session. ``supposed`` are the
    acts the reducer rejected as inside a hypothetical question (see ``supposed_acts``).
    """
    asked = asked_text(request, turn)
    if request.kind == "recall":
        return recall_unsupported(request, request.description or asked)
    if request.kind != "question":
        raise GroundingError(
            f"act {request.act.index}: unknown grounding request kind {request.kind!r}",
            hint="a grounding request is a 'question' or a 'recall'",
        )
    if request.hypothetical:
        return explain_hypothetical(request, asked, workflow=workflow, case=case, supposed=supposed)
    if request.question is not None:
        return answer_case_question(request, request.question, asked, workflow=workflow, case=case)
    return answer_knowledge(
        request,
        asked,
        registry=registry,
        thread=thread,
        anaphora=anaphora,
        turn_index=turn_index,
    )


def asked_text(request: GroundingRequest, turn: UserTurn) -> str:
    """What the user asked: the request's evidence spans, joined by a space (else the turn)."""
    cited = " ".join(ev.text.strip() for ev in request.evidence if ev.text.strip())
    return cited or turn.text.strip()
