"""Helpers for the grounding tests: a question act's request, grounded against the shipped
corpora and the test workflow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnframe.corpora import CorpusRegistry, ThreadContext, default_registry
from turnframe.grounding import Answer, ground
from turnframe.plan import Act
from turnframe.results import ActRef, GroundingRequest
from turnframe.testing import TRIP_WORKFLOW, make_turn, span, trip_case
from turnframe.workflow import CaseSnapshot, Workflow

SHIPPED = default_registry()
BOB_CASE = trip_case("case-bob", "Bob", 2, destination="Paris", passengers=2)


def ask(
    text: str,
    *,
    fragment: str | None = None,
    kind: str = "question",
    question: str | None = None,
    hypothetical: bool = False,
    description: str | None = None,
    case: CaseSnapshot | None = None,
    workflow: Workflow[Any] | None = TRIP_WORKFLOW,
    registry: CorpusRegistry | None = SHIPPED,
    thread: ThreadContext | None = None,
    anaphora: bool = False,
    turn_index: int = 0,
    supposed: Sequence[Act] = (),
    act_index: int = 0,
) -> Answer:
    """Ground one request whose evidence is ``fragment`` (the whole text by default)."""
    request = GroundingRequest(
        act=ActRef(index=act_index),
        kind=kind,
        evidence=span(text, fragment if fragment is not None else text),
        question=question,
        description=description,
        case_id=None if case is None else case.case_id,
        hypothetical=hypothetical,
    )
    return ground(
        request,
        turn=make_turn(text),
        workflow=workflow,
        case=case,
        registry=registry,
        thread=thread,
        anaphora=anaphora,
        turn_index=turn_index,
        supposed=supposed,
    )
