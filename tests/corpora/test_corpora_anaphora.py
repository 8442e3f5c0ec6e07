from __future__ import annotations

from turnframe.corpora import (
    CorpusRegistry,
    GroundingSource,
    IntentTag,
    ThreadContext,
    TurnSummary,
    compose,
    thread_anaphora_prefix,
)


def _turn(
    turn: int,
    subject: str,
    intent: IntentTag,
    source: GroundingSource = GroundingSource.TEACHING,
    chain_id: str | None = "cause_light_reveals_truth",
) -> TurnSummary:
    return TurnSummary(
        turn_index=turn,
        intent=intent,
        subject=subject,
        grounding_source=source,
        chain_id=chain_id if source is GroundingSource.TEACHING else None,
    )


def _thread(*turns: TurnSummary) -> ThreadContext:
    thread = ThreadContext()
    for turn in turns:
        thread = thread.push(turn)
    return thread


def _prefix(
    thread: ThreadContext,
    subject: str = "light",
    intent: IntentTag = IntentTag.DEFINITION,
    source: GroundingSource = GroundingSource.PACK,
) -> str | None:
    return thread_anaphora_prefix(thread, subject=subject, intent=intent, source=source)


def test_a_prior_teaching_turn_is_recalled_by_its_chain() -> None:
    thread = _thread(_turn(0, "light", IntentTag.CAUSE))
    assert _prefix(thread) == "(Recalling turn 0: chain cause_light_reveals_truth.) "


def test_a_prior_pack_turn_is_recalled_as_pack_grounded() -> None:
    thread = _thread(_turn(3, "light", IntentTag.DEFINITION, GroundingSource.PACK))
    prefix = _prefix(thread, intent=IntentTag.NARRATIVE, source=GroundingSource.TEACHING)
    assert prefix == "(Recalling turn 3: light grounded pack.) "


def test_no_prefix_when_the_prior_turn_had_the_same_intent() -> None:
    thread = _thread(_turn(0, "light", IntentTag.DEFINITION, GroundingSource.PACK))
    assert _prefix(thread) is None


def test_no_prefix_when_the_current_answer_is_not_pack_or_teaching_grounded() -> None:
    thread = _thread(_turn(0, "light", IntentTag.CAUSE))
    assert _prefix(thread, source=GroundingSource.OOV) is None


def test_no_prefix_when_the_prior_turn_on_the_subject_was_weakly_grounded() -> None:
    thread = _thread(_turn(0, "light", IntentTag.CAUSE, GroundingSource.OOV))
    assert _prefix(thread) is None


def test_no_prefix_when_the_prior_turn_was_about_another_subject() -> None:
    thread = _thread(_turn(0, "truth", IntentTag.CAUSE))
    assert _prefix(thread) is None


def test_no_prefix_without_a_prior_turn() -> None:
    assert _prefix(ThreadContext()) is None


def test_the_most_recent_prior_turn_on_the_subject_wins() -> None:
    thread = _thread(
        _turn(0, "light", IntentTag.CAUSE),
        _turn(1, "light", IntentTag.NARRATIVE, GroundingSource.PACK),
        _turn(2, "truth", IntentTag.CAUSE),
    )
    assert _prefix(thread) == "(Recalling turn 1: light grounded pack.) "


def test_a_same_intent_revisit_is_not_skipped_to_recall_an_older_turn() -> None:
    thread = _thread(
        _turn(0, "light", IntentTag.CAUSE),
        _turn(1, "light", IntentTag.DEFINITION, GroundingSource.PACK),
    )
    assert _prefix(thread) is None


def test_subjects_match_regardless_of_case() -> None:
    thread = _thread(_turn(0, "Light", IntentTag.CAUSE))
    assert _prefix(thread, subject="light") is not None


def test_anaphora_off_leaves_the_surface_as_it_is_without_a_thread(
    shipped: CorpusRegistry,
) -> None:
    thread = _thread(_turn(0, "light", IntentTag.CAUSE))
    off = compose(IntentTag.DEFINITION, "light", shipped, thread=thread, anaphora=False)
    assert off == compose(IntentTag.DEFINITION, "light", shipped)


def test_the_current_turns_own_summary_is_never_recalled(shipped: CorpusRegistry) -> None:
    thread = _thread(_turn(5, "light", IntentTag.CAUSE))
    answer = compose(
        IntentTag.DEFINITION, "light", shipped, thread=thread, anaphora=True, turn_index=5
    )
    assert answer.recalled_turn is None
