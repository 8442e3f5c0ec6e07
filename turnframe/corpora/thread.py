"""Session-thread context: a bounded FIFO of one summary per turn.

The session owns it and persists it with the session through the one converter
(``converter.unstructure(thread)`` / ``converter.structure(data, ThreadContext)``), so a
restarted actor or a resumed session keeps it. It is a value: :meth:`ThreadContext.push` returns
a new context, evicting the oldest summary beyond ``capacity``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import attrs

from turnframe.corpora.answer import STRONG_SOURCES, GroundedAnswer, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.keys import normalise_key
from turnframe.errors import TurnframeError

#: Default number of turns the thread remembers.
MAX_THREAD_TURNS = 8

#: Turns that anchor nothing: skipped when looking back for a subject.
UNGROUNDED_SOURCES = frozenset({GroundingSource.OOV, GroundingSource.NONE})


class ThreadOrderError(TurnframeError):
    """A summary was pushed for a turn older than the thread's latest."""

    code = "turnframe.thread.out_of_order"


@attrs.frozen(kw_only=True)
class TurnSummary:
    """What one turn was about: structural fields only, never the surface text."""

    turn_index: int = attrs.field(validator=attrs.validators.ge(0))
    intent: IntentTag
    subject: str
    grounding_source: GroundingSource
    chain_id: str | None = None
    corpus_id: str | None = None


def _fits(instance: ThreadContext, _: object, value: tuple[TurnSummary, ...]) -> None:
    if len(value) > instance.capacity:
        raise ValueError(f"{len(value)} summaries exceed the thread capacity {instance.capacity}")


@attrs.frozen(kw_only=True)
class ThreadContext:
    capacity: int = attrs.field(default=MAX_THREAD_TURNS, validator=attrs.validators.ge(1))
    summaries: tuple[TurnSummary, ...] = attrs.field(default=(), validator=_fits)

    def push(self, summary: TurnSummary) -> ThreadContext:
        """Append ``summary``; the oldest falls out beyond capacity.

        Pushing the latest turn again replaces its summary, so a regenerated response (recovery,
        narration retry) leaves the thread as one push would.
        """
        kept = self.summaries
        if kept and summary.turn_index <= kept[-1].turn_index:
            if summary.turn_index != kept[-1].turn_index:
                raise ThreadOrderError(
                    f"turn {summary.turn_index} is older than the thread's latest turn "
                    f"{kept[-1].turn_index}",
                    hint="push one summary per turn, in turn order",
                )
            kept = kept[:-1]
        return attrs.evolve(self, summaries=(*kept, summary)[-self.capacity :])

    def recent_for_subject(
        self,
        subject: str,
        *,
        skip: Collection[GroundingSource] = UNGROUNDED_SOURCES,
        before_turn: int | None = None,
    ) -> TurnSummary | None:
        """The most recent summary about ``subject`` (case and spacing ignored), skipping the
        ``skip`` tiers (ungrounded turns by default) and turns from ``before_turn`` on."""
        key = normalise_key(subject)
        if not key:
            return None
        for summary in reversed(self.summaries):
            if before_turn is not None and summary.turn_index >= before_turn:
                continue
            if summary.grounding_source in skip:
                continue
            if normalise_key(summary.subject) == key:
                return summary
        return None

    def recent_subjects(
        self, *, skip: Collection[GroundingSource] = UNGROUNDED_SOURCES
    ) -> tuple[str, ...]:
        """The distinct subjects of the thread, most recent first, without empty subjects and
        the ``skip`` tiers."""
        seen: dict[str, None] = {}
        for summary in reversed(self.summaries):
            if summary.grounding_source not in skip and summary.subject:
                seen.setdefault(summary.subject, None)
        return tuple(seen)


def summarise_turn(turn_index: int, answers: Sequence[GroundedAnswer]) -> TurnSummary:
    """The one summary of a turn: its first pack/teaching answer, else its first answer."""
    chosen = next((a for a in answers if a.grounding_source in STRONG_SOURCES), None)
    if chosen is None and answers:
        chosen = answers[0]
    if chosen is None:
        return TurnSummary(
            turn_index=turn_index,
            intent=IntentTag.OTHER,
            subject="",
            grounding_source=GroundingSource.NONE,
        )
    corpus_id = chosen.corpus_ids[0] if chosen.corpus_ids else chosen.pack_id
    return TurnSummary(
        turn_index=turn_index,
        intent=chosen.intent,
        subject=chosen.subject,
        grounding_source=chosen.grounding_source,
        chain_id=chosen.chain_ids[0] if chosen.chain_ids else None,
        corpus_id=corpus_id,
    )
