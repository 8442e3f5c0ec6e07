"""The thread summary of a turn's answers, for the session to push onto its thread context."""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.corpora import GroundedAnswer, IntentTag, TurnSummary, summarise_turn
from turnframe.grounding.answer import Answer


def summarise_for_thread(turn_index: int, answers: Sequence[Answer]) -> TurnSummary | None:
    """One summary for the turn (by corpora's ``summarise_turn``), or ``None`` without answers.

    A turn that asked nothing leaves the thread as it is, so action-only turns do not evict the
    questions the anaphora prefix may recall. Answers from the case are summarised with intent
    ``other`` and their question's name as subject; they are never recalled (not pack/teaching).
    """
    if not answers:
        return None
    return summarise_turn(turn_index, [_as_grounded(a) for a in answers])


def _as_grounded(answer: Answer) -> GroundedAnswer:
    return GroundedAnswer(
        intent=answer.intent if answer.intent is not None else IntentTag.OTHER,
        subject=answer.subject
        if answer.subject is not None
        else (answer.provenance.question or ""),
        grounding_source=answer.grounding_source,
        surface=answer.text,
        pack_id=answer.provenance.pack_id,
        corpus_ids=answer.provenance.corpus_ids,
        chain_ids=answer.provenance.chain_ids,
        recalled_turn=answer.recalled_turn,
    )
