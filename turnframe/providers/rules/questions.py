"""Questions: hypothetical, about the case (one of the workflow's questions), recall, knowledge.

- "what would happen if I closed it?" is hypothetical: a question act, never an action.
- "is the warranty still valid?" names a workflow question when every content word of one of
  its phrases (its name or an alias) is in the clause; the most specific phrase wins.
- "do you remember the plumber we talked about?" is a recall (``classify_question`` says so).
- Everything else — "Tell me about warranties", "What is a callout fee?" — is a knowledge
  question with no workflow question named: the grounding stage answers it from the reviewed
  corpora (it classifies the evidence text with the same intent rules).
"""

from __future__ import annotations

import re

import attrs

from turnframe.corpora import IntentTag, classify_question
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary, tokens

QUESTION_OPENING = re.compile(
    r"(?:what|what['\u2019]?s|whats|when|where|which|who|whom|whose|why|how|is|are|was|were"
    r"|am|do|does|did|can|could|will|would|should|shall|may|might|must|has|have|had"
    r"|isn['\u2019]?t|aren['\u2019]?t|tell\s+me|let\s+me\s+know|describe|explain|define"
    r"|(?:give|show)\s+me\s+an?\s+(?:example|instance)|example\s+of|remember|recall)(?!\w)",
    ICASE,
)
HYPOTHETICAL = re.compile(
    r"(?:what\s+(?:would|will|could|might)\s+happen\s+if|what\s+happens\s+if|what\s+if"
    r"|suppose|supposing|hypothetically|imagine|would\s+.+\s+if|if\s+(?:i|we)\s+.+\s+what)"
    r"(?!\w)",
    ICASE,
)
_DEFINITE = re.compile(
    r"(?:what\s+(?:is|are|was|were)|what['\u2019]?s|whats)\s+(?:the|my|our|its|this|their)\s", ICASE
)


@attrs.frozen(kw_only=True)
class QuestionReading:
    question: str | None = None
    hypothetical: bool = False
    recall: str | None = None  # the recall's description
    about_case: bool = False  # a workflow question or a hypothetical: it needs a target


def looks_like_question(body: str, asked: bool) -> bool:
    return asked or QUESTION_OPENING.match(body) is not None


def workflow_question(body: str, vocab: Vocabulary) -> str | None:
    said = tokens(body)
    for name, needed in vocab.questions:
        if needed <= said:
            return name
    return None


def read_question(body: str, vocab: Vocabulary) -> QuestionReading:
    if HYPOTHETICAL.match(body):
        return QuestionReading(hypothetical=True, about_case=True)
    classified = classify_question(body)
    if classified.intent is IntentTag.RECALL:
        return QuestionReading(recall=classified.subject or body)
    knowledge = classified.intent in (IntentTag.NARRATIVE, IntentTag.EXAMPLE) or (
        classified.intent is IntentTag.DEFINITION and not _DEFINITE.match(body)
    )
    if not knowledge:
        name = workflow_question(body, vocab)
        if name is not None:
            return QuestionReading(question=name, about_case=True)
    return QuestionReading()
