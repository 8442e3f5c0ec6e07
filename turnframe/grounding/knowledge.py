"""Knowledge questions: classified by the corpora intent rules, answered from reviewed corpora.

The answer's text is the composed surface, byte for byte (anaphora prefix included). A question
no reviewed entry answers (no subject, intent ``other``, no registry) gets an explicit
no-source answer naming what was asked.
"""

from __future__ import annotations

from turnframe.corpora import (
    CorpusRegistry,
    GroundingSource,
    IntentTag,
    ThreadContext,
    classify_question,
    compose,
)
from turnframe.grounding.answer import Answer, Provenance
from turnframe.grounding.codes import (
    ANSWER_KNOWLEDGE,
    ANSWER_NO_SOURCE,
    ANSWER_RECALL_UNSUPPORTED,
    ANSWER_UNKNOWN_SUBJECT,
)
from turnframe.grounding.wording import quote
from turnframe.results import GroundingRequest


def answer_knowledge(
    request: GroundingRequest,
    asked: str,
    *,
    registry: CorpusRegistry | None,
    thread: ThreadContext | None,
    anaphora: bool,
    turn_index: int,
) -> Answer:
    question = classify_question(asked)
    if question.intent is IntentTag.RECALL:
        return recall_unsupported(request, asked)
    if registry is None:
        grounded = None
    else:
        grounded = compose(
            question.intent,
            question.subject,
            registry,
            thread=thread,
            anaphora=anaphora,
            turn_index=turn_index,
        )
    if grounded is None or grounded.surface is None:
        return Answer(
            act_index=request.act.index,
            interaction_id=request.act.interaction_id,
            code=ANSWER_NO_SOURCE,
            text=f"No reviewed source answers {quote(asked)}.",
            grounding_source=GroundingSource.NONE,
            intent=question.intent,
            subject=question.subject,
        )
    oov = grounded.grounding_source is GroundingSource.OOV
    return Answer(
        act_index=request.act.index,
        interaction_id=request.act.interaction_id,
        code=ANSWER_UNKNOWN_SUBJECT if oov else ANSWER_KNOWLEDGE,
        text=grounded.surface,
        grounding_source=grounded.grounding_source,
        provenance=Provenance(
            pack_id=grounded.pack_id,
            corpus_ids=grounded.corpus_ids,
            chain_ids=grounded.chain_ids,
        ),
        intent=grounded.intent,
        subject=grounded.subject,
        recalled_turn=grounded.recalled_turn,
    )


def recall_unsupported(request: GroundingRequest, described: str) -> Answer:
    """Recall of an earlier conversation does not exist yet; say so, naming what was meant."""
    return Answer(
        act_index=request.act.index,
        interaction_id=request.act.interaction_id,
        code=ANSWER_RECALL_UNSUPPORTED,
        text=f"Recall is not supported yet: I cannot look up {quote(described)}.",
        grounding_source=GroundingSource.NONE,
        intent=IntentTag.RECALL,
    )
