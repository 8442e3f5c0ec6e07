"""Thread anaphora: a structural backreference to an earlier turn on the same subject.

The earlier turn is the most recent one on the same subject that was not ungrounded (``oov`` or
``none`` turns are skipped, as in the seed project). The prefix fires only when that turn and the
current answer are both pack or teaching grounded and their intents differ: a same-intent revisit
would repeat that turn's surface, and an older turn is not searched for instead. Shapes (fields
only, no prose)::

    (Recalling turn N: chain <chain_id>.)          the recalled turn was teaching grounded
    (Recalling turn N: <subject> grounded pack.)   the recalled turn was pack grounded
                                                   (or teaching grounded without a chain id:
                                                   "<subject> grounded teaching")
"""

from __future__ import annotations

from turnframe.corpora.answer import STRONG_SOURCES, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.thread import ThreadContext, TurnSummary


def recalled_summary(
    thread: ThreadContext,
    *,
    subject: str,
    intent: IntentTag,
    source: GroundingSource,
    before_turn: int | None = None,
) -> TurnSummary | None:
    """The earlier turn an answer would recall, or ``None`` when no prefix fires."""
    if source not in STRONG_SOURCES:
        return None
    prior = thread.recent_for_subject(subject, before_turn=before_turn)
    if prior is None or prior.grounding_source not in STRONG_SOURCES or prior.intent is intent:
        return None
    return prior


def thread_anaphora_prefix(
    thread: ThreadContext,
    *,
    subject: str,
    intent: IntentTag,
    source: GroundingSource,
    before_turn: int | None = None,
) -> str | None:
    """The prefix (with its trailing space) to put before the current surface, if any."""
    recalled = recalled_summary(
        thread, subject=subject, intent=intent, source=source, before_turn=before_turn
    )
    if recalled is None:
        return None
    return prefix_for(recalled, subject)


def prefix_for(recalled: TurnSummary, subject: str) -> str:
    """The prefix recalling ``recalled`` for an answer about ``subject``."""
    if recalled.grounding_source is GroundingSource.TEACHING and recalled.chain_id:
        return f"(Recalling turn {recalled.turn_index}: chain {recalled.chain_id}.) "
    return (
        f"(Recalling turn {recalled.turn_index}: {subject.strip()} grounded "
        f"{recalled.grounding_source.value}.) "
    )
