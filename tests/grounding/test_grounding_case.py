"""Workflow questions answered from the case state, and the explicit no-source answers."""

from __future__ import annotations

from datetime import date
from typing import Any

import attrs
import pytest
from grounding_kit import BOB_CASE, ask

from turnframe.corpora import GroundingSource
from turnframe.grounding import (
    ANSWER_CASE_QUESTION,
    ANSWER_NO_SOURCE,
    ANSWER_RECALL_UNSUPPORTED,
    GroundingError,
    Provenance,
    QuestionFailedError,
)
from turnframe.testing import TRIP_WORKFLOW, trip_case
from turnframe.workflow import Question, Workflow


def _with_question(question: Question[Any]) -> Workflow[Any]:
    return attrs.evolve(TRIP_WORKFLOW, questions=(*TRIP_WORKFLOW.questions, question))


def test_a_workflow_question_is_answered_from_the_case_state() -> None:
    answer = ask("What's the status?", question="status", case=BOB_CASE)
    assert (answer.code, answer.text) == (ANSWER_CASE_QUESTION, "Trip “Bob” — status: draft.")
    assert answer.grounding_source is GroundingSource.CASE


def test_a_case_answer_names_the_case_and_revision_it_read() -> None:
    answer = ask("What's the status?", question="status", case=BOB_CASE)
    assert answer.provenance == Provenance(
        case_id="case-bob", case_revision=2, workflow="trip", question="status"
    )


def test_a_date_value_is_shown_in_iso_form() -> None:
    case = trip_case("case-x", "Xena", 1, travel_date=date(2026, 1, 16))
    answer = ask("When do I travel?", question="travel_date", case=case)
    assert answer.text == "Trip “Xena” — travel date: 2026-01-16."


def test_an_unset_value_reads_not_set() -> None:
    answer = ask("When do I travel?", question="travel_date", case=BOB_CASE)
    assert answer.text == "Trip “Bob” — travel date: not set."


def test_a_list_value_is_joined_with_commas() -> None:
    answer = ask("What is missing?", question="missing_fields", case=BOB_CASE)
    assert answer.text == "Trip “Bob” — missing fields: travel_date."


def test_a_sentence_returned_by_the_workflow_is_used_verbatim() -> None:
    said = "The discount is valid until 2026-12-31."
    workflow = _with_question(Question(name="discount", answer=lambda s: said))
    answer = ask("Is the discount valid?", question="discount", case=BOB_CASE, workflow=workflow)
    assert answer.text == said


def test_a_question_may_be_named_by_its_alias() -> None:
    workflow = _with_question(Question(name="seats", answer=lambda s: 2, aliases=("party size",)))
    answer = ask("How many?", question="party size", case=BOB_CASE, workflow=workflow)
    assert answer.text == "Trip “Bob” — seats: 2."


def test_an_undeclared_workflow_question_says_there_is_no_source() -> None:
    answer = ask("Is the discount valid?", question="discount", case=BOB_CASE)
    assert answer.code == ANSWER_NO_SOURCE
    assert answer.text == "No source: the trip workflow has no question “discount”."


def test_a_workflow_question_without_a_case_says_there_is_no_source() -> None:
    answer = ask("What's the status?", question="status")
    assert answer.code == ANSWER_NO_SOURCE
    assert "“What's the status?”" in answer.text


def test_a_case_of_another_workflow_is_refused_as_a_wiring_error() -> None:
    other = attrs.evolve(TRIP_WORKFLOW, name="ticket")
    with pytest.raises(GroundingError):
        ask("What's the status?", question="status", case=BOB_CASE, workflow=other)


def test_a_question_that_raises_becomes_a_typed_error() -> None:
    workflow = _with_question(Question(name="boom", answer=lambda s: 1 // 0))
    with pytest.raises(QuestionFailedError) as raised:
        ask("Boom?", question="boom", case=BOB_CASE, workflow=workflow)
    assert raised.value.code == "turnframe.grounding.question_failed"


def test_a_recall_says_recall_is_not_supported_yet_and_names_what_was_meant() -> None:
    answer = ask(
        "Remember what we said about hotels?",
        kind="recall",
        description="what we said about hotels",
    )
    assert answer.code == ANSWER_RECALL_UNSUPPORTED
    assert answer.text == (
        "Recall is not supported yet: I cannot look up “what we said about hotels”."
    )
