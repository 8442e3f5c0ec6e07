from __future__ import annotations

import pytest
from cattrs import ClassValidationError

from turnframe._converter import structure, unstructure
from turnframe.corpora import (
    GroundedAnswer,
    GroundingSource,
    IntentTag,
    ThreadContext,
    ThreadOrderError,
    TurnSummary,
    summarise_turn,
)


def _summary(turn: int, subject: str = "light") -> TurnSummary:
    return TurnSummary(
        turn_index=turn,
        intent=IntentTag.CAUSE,
        subject=subject,
        grounding_source=GroundingSource.TEACHING,
        chain_id="cause_light_reveals_truth",
        corpus_id="cognition_chains_v1",
    )


def _filled(turns: int) -> ThreadContext:
    thread = ThreadContext()
    for turn in range(turns):
        thread = thread.push(_summary(turn))
    return thread


def test_the_thread_keeps_the_last_eight_turns_and_evicts_the_oldest_first() -> None:
    thread = _filled(9)
    assert [s.turn_index for s in thread.summaries] == list(range(1, 9))


def test_pushing_returns_a_new_thread_and_leaves_the_old_one_unchanged() -> None:
    thread = _filled(1)
    thread.push(_summary(1))
    assert len(thread.summaries) == 1


def test_pushing_the_latest_turn_again_replaces_its_summary() -> None:
    thread = _filled(2).push(_summary(1, subject="truth"))
    assert [(s.turn_index, s.subject) for s in thread.summaries] == [(0, "light"), (1, "truth")]


def test_pushing_an_older_turn_is_refused() -> None:
    with pytest.raises(ThreadOrderError):
        _filled(3).push(_summary(1))


def test_the_thread_survives_a_round_trip_through_the_one_converter() -> None:
    thread = _filled(3)
    data = unstructure(thread)
    assert data["summaries"][0]["grounding_source"] == "teaching"
    assert structure(data, ThreadContext) == thread


def test_a_stored_thread_with_more_summaries_than_its_capacity_is_refused() -> None:
    data = unstructure(_filled(8))
    data["capacity"] = 4
    with pytest.raises(ClassValidationError) as raised:
        structure(data, ThreadContext)
    assert "exceed the thread capacity 4" in str(raised.value.exceptions[0])


def test_a_turn_is_summarised_by_its_first_pack_or_teaching_answer() -> None:
    oov = GroundedAnswer(
        intent=IntentTag.DEFINITION,
        subject="zork",
        grounding_source=GroundingSource.OOV,
        surface="…",
    )
    pack = GroundedAnswer(
        intent=IntentTag.DEFINITION,
        subject="light",
        grounding_source=GroundingSource.PACK,
        surface="…",
        pack_id="en_core_cognition_v1",
    )
    summary = summarise_turn(4, [oov, pack])
    assert (summary.turn_index, summary.subject, summary.corpus_id) == (
        4,
        "light",
        "en_core_cognition_v1",
    )


def test_a_turn_without_questions_is_summarised_as_ungrounded() -> None:
    summary = summarise_turn(2, [])
    assert (summary.intent, summary.grounding_source) == (IntentTag.OTHER, GroundingSource.NONE)


def test_a_grounded_answer_round_trips_through_the_one_converter() -> None:
    answer = GroundedAnswer(
        intent=IntentTag.NARRATIVE,
        subject="truth",
        grounding_source=GroundingSource.TEACHING,
        surface="truth — …",
        pack_id="en_core_cognition_v1",
        corpus_ids=("cognition_chains_v1",),
        chain_ids=("cause_truth_grounds_knowledge",),
        recalled_turn=0,
    )
    assert structure(unstructure(answer), GroundedAnswer) == answer
