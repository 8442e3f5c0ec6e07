"""The pure half of the GroundingActor: one :class:`Answer` for each question or recall.

::

    answer = ground(request, turn=turn, workflow=workflow, case=case, registry=registry,
                    thread=thread, anaphora=False, turn_index=3)
    summary = summarise_for_thread(3, [answer])        # push it onto the session's thread

A workflow question is answered from the case state, a knowledge question from reviewed corpora
(the composed surface byte for byte), a hypothetical question from the workflow's declaration
without doing anything; anything else gets an explicit no-source answer, never silence.
"""

from __future__ import annotations

from turnframe.grounding.answer import Answer, GroundingError, Provenance, QuestionFailedError
from turnframe.grounding.codes import (
    ANSWER_CASE_QUESTION,
    ANSWER_CODES,
    ANSWER_HYPOTHETICAL,
    ANSWER_KNOWLEDGE,
    ANSWER_NO_SOURCE,
    ANSWER_RECALL_UNSUPPORTED,
    ANSWER_UNKNOWN_SUBJECT,
)
from turnframe.grounding.ground import asked_text, ground
from turnframe.grounding.hypothetical import supposed_acts
from turnframe.grounding.thread import summarise_for_thread

__all__ = [
    "ANSWER_CASE_QUESTION",
    "ANSWER_CODES",
    "ANSWER_HYPOTHETICAL",
    "ANSWER_KNOWLEDGE",
    "ANSWER_NO_SOURCE",
    "ANSWER_RECALL_UNSUPPORTED",
    "ANSWER_UNKNOWN_SUBJECT",
    "Answer",
    "GroundingError",
    "Provenance",
    "QuestionFailedError",
    "asked_text",
    "ground",
    "summarise_for_thread",
    "supposed_acts",
]
