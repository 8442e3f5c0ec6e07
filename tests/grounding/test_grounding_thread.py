"""Thread summaries of a turn's answers, and answers as values."""

from __future__ import annotations

from grounding_kit import BOB_CASE, ask

from turnframe._converter import structure, unstructure
from turnframe.corpora import GroundingSource, IntentTag
from turnframe.grounding import Answer, summarise_for_thread


def test_a_turn_without_answers_has_no_thread_summary() -> None:
    assert summarise_for_thread(3, []) is None


def test_a_knowledge_answer_is_summarised_with_its_chain() -> None:
    summary = summarise_for_thread(0, [ask("Why does light reveal truth?")])
    assert summary is not None
    assert (summary.intent, summary.subject, summary.chain_id) == (
        IntentTag.CAUSE,
        "light",
        "cause_light_reveals_truth",
    )


def test_the_first_corpus_answer_wins_over_a_case_answer() -> None:
    case_answer = ask("What's the status?", question="status", case=BOB_CASE)
    summary = summarise_for_thread(2, [case_answer, ask("Tell me about truth.", act_index=1)])
    assert summary is not None
    assert (summary.turn_index, summary.subject) == (2, "truth")


def test_a_case_answer_is_summarised_by_its_question_name() -> None:
    summary = summarise_for_thread(1, [ask("What's the status?", question="status", case=BOB_CASE)])
    assert summary is not None
    assert (summary.intent, summary.subject, summary.grounding_source) == (
        IntentTag.OTHER,
        "status",
        GroundingSource.CASE,
    )


def test_an_answer_survives_the_one_converter() -> None:
    answer = ask("Tell me about truth.")
    assert structure(unstructure(answer), Answer) == answer
