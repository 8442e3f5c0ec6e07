"""Format conformance: the seed's thread-context scenarios, restated for turnframe's thread.

Each test restates a scenario of the seed project's thread-context test file. turnframe's
``ThreadContext`` is a value (``push`` returns a new thread) that the session stores through the
one converter; the runtime scenarios run a session over the seed-format fixture corpora.
"""

from __future__ import annotations

import attrs
import pytest
import seed_format_kit as kit

from turnframe._converter import structure, unstructure
from turnframe.corpora import (
    MAX_THREAD_TURNS,
    GroundingSource,
    IntentTag,
    ThreadContext,
    TurnSummary,
)

both_backends = pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])

TEACHING, PACK, OOV = GroundingSource.TEACHING, GroundingSource.PACK, GroundingSource.OOV


def _summary(
    turn: int,
    subject: str,
    source: GroundingSource = TEACHING,
    *,
    intent: IntentTag = IntentTag.CAUSE,
) -> TurnSummary:
    return TurnSummary(turn_index=turn, intent=intent, subject=subject, grounding_source=source)


def _thread(*summaries: TurnSummary, capacity: int = MAX_THREAD_TURNS) -> ThreadContext:
    thread = ThreadContext(capacity=capacity)
    for summary in summaries:
        thread = thread.push(summary)
    return thread


def test_a_turn_summary_is_frozen() -> None:
    summary = _summary(0, "leaf")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        summary.subject = "other"  # type: ignore[misc]


def test_a_turn_summary_round_trips_with_empty_chain_and_corpus() -> None:
    summary = _summary(3, "gardener", PACK, intent=IntentTag.DEFINITION)
    data = unstructure(summary)
    assert (data["turn_index"], data["subject"], data["grounding_source"]) == (
        3,
        "gardener",
        "pack",
    )
    assert (data["chain_id"], data["corpus_id"]) == (None, None)
    assert structure(data, TurnSummary) == summary


def test_the_default_capacity_is_eight_turns() -> None:
    assert ThreadContext().capacity == MAX_THREAD_TURNS == 8


@pytest.mark.parametrize("capacity", [0, -1])
def test_a_capacity_below_one_is_refused(capacity: int) -> None:
    with pytest.raises(ValueError):
        ThreadContext(capacity=capacity)


def test_summaries_keep_the_order_they_were_pushed_in() -> None:
    thread = _thread(*(_summary(i, f"s{i}") for i in range(3)), capacity=4)
    assert [(s.turn_index, s.subject) for s in thread.summaries] == [
        (0, "s0"),
        (1, "s1"),
        (2, "s2"),
    ]


def test_beyond_capacity_the_oldest_summaries_are_evicted() -> None:
    thread = _thread(*(_summary(i, f"s{i}") for i in range(5)), capacity=3)
    assert [s.turn_index for s in thread.summaries] == [2, 3, 4]


def test_a_new_thread_is_empty() -> None:
    assert ThreadContext().summaries == ()


def test_the_most_recent_summary_on_a_subject_is_found() -> None:
    thread = _thread(
        _summary(0, "leaf"),
        _summary(1, "soil"),
        _summary(2, "leaf", PACK, intent=IntentTag.DEFINITION),
    )
    found = thread.recent_for_subject("leaf")
    assert found is not None and (found.turn_index, found.intent) == (2, IntentTag.DEFINITION)


def test_ungrounded_turns_are_skipped_when_looking_back() -> None:
    thread = _thread(_summary(0, "leaf"), _summary(1, "leaf", OOV, intent=IntentTag.DEFINITION))
    found = thread.recent_for_subject("leaf")
    assert found is not None and found.turn_index == 0


def test_ungrounded_turns_can_be_included_when_looking_back() -> None:
    thread = _thread(_summary(0, "leaf"), _summary(1, "leaf", OOV, intent=IntentTag.DEFINITION))
    found = thread.recent_for_subject("leaf", skip=())
    assert found is not None and found.turn_index == 1


@pytest.mark.parametrize("asked", ["LEAF", "Leaf", " leaf "])
def test_looking_back_ignores_case_and_spacing(asked: str) -> None:
    assert _thread(_summary(0, "leaf")).recent_for_subject(asked) is not None


def test_looking_back_for_an_absent_subject_finds_nothing() -> None:
    assert ThreadContext().recent_for_subject("anything") is None
    assert _thread(_summary(0, "x")).recent_for_subject("y") is None


def test_recent_subjects_are_distinct_and_most_recent_first() -> None:
    thread = _thread(
        _summary(0, "leaf"),
        _summary(1, "soil"),
        _summary(2, "leaf", PACK, intent=IntentTag.DEFINITION),
    )
    assert thread.recent_subjects() == ("leaf", "soil")


def test_recent_subjects_leave_out_empty_and_ungrounded_turns() -> None:
    thread = _thread(
        _summary(0, "", GroundingSource.NONE, intent=IntentTag.OTHER),
        _summary(1, "meteorology", OOV, intent=IntentTag.DEFINITION),
        _summary(2, "leaf"),
    )
    assert thread.recent_subjects() == ("leaf",)


# -- the runtime pushes one summary per turn --------------------------------------------------


@both_backends
@pytest.mark.anyio
async def test_a_pack_turn_pushes_its_intent_subject_and_tier() -> None:
    [summary] = (await kit.chat("What is leaf?", anaphora=False)).thread.summaries
    assert (summary.intent, summary.subject, summary.grounding_source) == (
        IntentTag.DEFINITION,
        "leaf",
        PACK,
    )


@both_backends
@pytest.mark.anyio
async def test_a_why_question_pushes_the_teaching_chain_and_its_corpus() -> None:
    [summary] = (await kit.chat("Why does leaf exist?", anaphora=False)).thread.summaries
    assert (summary.grounding_source, summary.chain_id, summary.corpus_id) == (
        TEACHING,
        "cause_leaf_catches_sun",
        "garden_chains_v1",
    )


@both_backends
@pytest.mark.anyio
async def test_an_unknown_subject_pushes_an_oov_summary_without_a_chain() -> None:
    [summary] = (await kit.chat("What is meteorology?", anaphora=False)).thread.summaries
    assert (summary.intent, summary.subject, summary.grounding_source, summary.chain_id) == (
        IntentTag.DEFINITION,
        "meteorology",
        OOV,
        None,
    )


@pytest.mark.anyio
async def test_the_thread_grows_one_summary_per_turn_numbered_like_the_turns() -> None:
    run = await kit.chat(
        "What is leaf?", "What is gardener?", "What is meteorology?", anaphora=False
    )
    assert [(s.turn_index, s.subject) for s in run.thread.summaries] == [
        (0, "leaf"),
        (1, "gardener"),
        (2, "meteorology"),
    ]


@pytest.mark.anyio
async def test_the_runtime_thread_keeps_the_last_eight_turns() -> None:
    run = await kit.chat(*["What is leaf?"] * (MAX_THREAD_TURNS + 3), anaphora=False)
    assert [s.turn_index for s in run.thread.summaries] == list(range(3, MAX_THREAD_TURNS + 3))
