"""Thread anaphora: a structural backreference to an earlier turn on the same subject.

It fires only when the current answer is pack or teaching grounded and the most recent earlier
strong (pack/teaching) turn on the same subject had a *different* intent: a same-intent revisit
would repeat that turn's surface. Shapes (fields only, no prose)::

    (Recalling turn N: chain <chain_id>.)          the recalled turn was teaching grounded
    (Recalling turn N: <subject> grounded pack.)   the recalled turn was pack grounded
"""

from __future__ import annotations

from turnframe.corpora.answer import STRONG_SOURCES, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.keys import normalise_key
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
    if source not in STRONG_SOURCES or not subject:
        return None
    key = normalise_key(subject)
    for summary in reversed(thread.summaries):
        if before_turn is not None and summary.turn_index >= before_turn:
            continue
        if summary.grounding_source in STRONG_SOURCES and normalise_key(summary.subject) == key:
            if summary.intent is intent:
                return None
            if summary.grounding_source is GroundingSource.TEACHING and not summary.chain_id:
                return None
            return summary
    return None


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
    return prefix_for(recalled)


def prefix_for(recalled: TurnSummary) -> str:
    if recalled.grounding_source is GroundingSource.TEACHING:
        return f"(Recalling turn {recalled.turn_index}: chain {recalled.chain_id}.) "
    return f"(Recalling turn {recalled.turn_index}: {recalled.subject} grounded pack.) "
