"""Stable codes of grounded answers; an answer block carries its answer's code.

Logs, tests, clients and the narrator match on these codes, never on the answer's text. Every
block code (answers, receipts, notices, cards, texts) is listed in :mod:`turnframe.narration.codes`.
"""

from __future__ import annotations

#: A workflow's read-only question answered from the case state.
ANSWER_CASE_QUESTION = "turnframe.answer.case_question"
#: A knowledge question answered from the reviewed corpora (pack or teaching grounded).
ANSWER_KNOWLEDGE = "turnframe.answer.knowledge"
#: A knowledge question about a subject no registered pack knows: the OOV invitation.
ANSWER_UNKNOWN_SUBJECT = "turnframe.answer.unknown_subject"
#: A hypothetical question, explained from the workflow's declaration; nothing was done.
ANSWER_HYPOTHETICAL = "turnframe.answer.hypothetical"
#: Nothing the runtime may answer from (no case, no workflow question, no reviewed entry).
ANSWER_NO_SOURCE = "turnframe.answer.no_source"
#: A vague recall of an earlier conversation; the recall protocol does not exist yet.
ANSWER_RECALL_UNSUPPORTED = "turnframe.answer.recall_unsupported"

ANSWER_CODES: frozenset[str] = frozenset(
    value for name, value in dict(globals()).items() if name.startswith("ANSWER_")
)
