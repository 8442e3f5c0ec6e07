"""Reading a session's own record: the user's words verbatim, the replies, the spine.

The record is what the store holds for the session (:class:`~turnframe.stores.recall.RecallRecord`):
its user turns in order and each turn's reply blocks. A user turn whose payload has no readable
text is a *skipped line* (a click has no text by nature and is not one). Receipts are the
replies that stand on committed events (``attested``); every other reply is ``observed``.

Recall's own traffic is never part of what a record says: a *recall turn* (the user asking
about another conversation, or answering a recall: "what was that thing about the pool?",
"no, the one about the ferry") asks about the past and is not it, and a recall block of a reply
(a presentation, the open question, a recalled context) quotes other sessions. Neither is a
word a cue can reach nor a word Ground may show (the stores' Find leaves them out the same way).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import attrs

from turnframe.stores.recall import RecallRecord
from turnframe.stores.records import TurnRecord

RECEIPT_PREFIX = "turnframe.receipt."
RECALL_PREFIX = "turnframe.recall."


@attrs.frozen(kw_only=True)
class Said:
    """One user turn's words, verbatim."""

    turn_id: str
    index: int  # the turn's position in the session, from 0
    text: str


@attrs.frozen(kw_only=True)
class Replied:
    turn_id: str
    text: str
    attested: bool  # a receipt: the reply stands on committed events


def is_recall_block(block: Any) -> bool:
    """A block the recall stage said (its code is one of ``turnframe.recall.*``)."""
    return isinstance(block, dict) and str(block.get("code", "")).startswith(RECALL_PREFIX)


def recall_turns(record: RecallRecord) -> tuple[str, ...]:
    """The turns in which the user was recalling: their plan holds a recall act, or their reply
    holds a recall block answering one of the turn's acts (a turn that merely moved on from a
    recall answers none: it is the conversation itself)."""
    found = []
    for turn in record.turns:
        plan = turn.plan.get("plan") if isinstance(turn.plan, dict) else None
        acts = plan.get("acts") if isinstance(plan, dict) else None
        planned = isinstance(acts, list) and any(
            isinstance(a, dict) and a.get("kind") == "recall" for a in acts
        )
        blocks = record.replies.get(turn.turn_id)
        answered = isinstance(blocks, list) and any(
            is_recall_block(b) and bool(b.get("acts")) for b in blocks
        )
        if planned or answered:
            found.append(turn.turn_id)
    return tuple(found)


def user_turns(record: RecallRecord, *, without: tuple[str, ...] = ()) -> list[Said]:
    """The user turns that carry text, in order (leaving out the turns ``without`` names)."""
    said: list[Said] = []
    for index, turn in enumerate(record.turns):
        text = _text_of(turn.payload)
        if text and turn.turn_id not in without:
            said.append(Said(turn_id=turn.turn_id, index=index, text=text))
    return said


def own_words(record: RecallRecord) -> list[Said]:
    """What the user said in the conversation itself: every user turn with text but the recall
    turns. The words a cue can reach and the only words Ground shows."""
    return user_turns(record, without=recall_turns(record))


def skipped_lines(record: RecallRecord) -> int:
    """User turns whose payload could not be read as a turn (neither text nor a click)."""
    skipped = 0
    for turn in record.turns:
        payload = turn.payload
        readable = isinstance(payload, dict) and (
            isinstance(payload.get("text"), str) or payload.get("interaction_response") is not None
        )
        skipped += 0 if readable else 1
    return skipped


def unverified_user_turns(record: RecallRecord) -> int:
    """User turns with text that the runtime never interpreted (no plan on record)."""
    return sum(1 for turn in record.turns if _text_of(turn.payload) and turn.plan is None)


def replies(record: RecallRecord) -> Iterator[Replied]:
    """The reply blocks with text, in order; never a recall block (it quotes other sessions)."""
    for turn in record.turns:
        blocks = record.replies.get(turn.turn_id)
        if not isinstance(blocks, list):
            continue
        for block in blocks:
            if is_recall_block(block):
                continue
            if isinstance(block, dict) and isinstance(block.get("text"), str) and block["text"]:
                code = str(block.get("code", ""))
                yield Replied(
                    turn_id=turn.turn_id,
                    text=block["text"],
                    attested=code.startswith(RECEIPT_PREFIX),
                )


def case_ids(record: RecallRecord) -> tuple[str, ...]:
    """The cases the session's turns were reduced onto, in first-seen order."""
    found: dict[str, None] = {}
    for turn in record.turns:
        reduction = turn.reduction if isinstance(turn.reduction, dict) else {}
        for result in reduction.get("results") or ():
            if isinstance(result, dict) and isinstance(result.get("case_id"), str):
                found[result["case_id"]] = None
    return tuple(found)


def fork_of(record: RecallRecord) -> str | None:
    """The session this one was forked from, as its own record declares it."""
    context = record.session.thread_context
    parent = context.get("fork_of") if isinstance(context, dict) else None
    return parent if isinstance(parent, str) and parent else None


def said_at(turn: TurnRecord) -> datetime:
    """When the turn was said: its own clock (the instant it was received), else when the
    store recorded it."""
    payload = turn.payload if isinstance(turn.payload, dict) else {}
    clock = payload.get("clock")
    if isinstance(clock, str):
        try:
            at = datetime.fromisoformat(clock)
        except ValueError:
            return turn.created_at
        if at.utcoffset() is not None:
            return at
    return turn.created_at


def started(record: RecallRecord) -> datetime:
    return said_at(record.turns[0]) if record.turns else record.session.created_at


def last_active(record: RecallRecord) -> datetime:
    return said_at(record.turns[-1]) if record.turns else record.session.created_at


def _text_of(payload: Any) -> str:
    if isinstance(payload, dict) and isinstance(payload.get("text"), str):
        return str(payload["text"]).strip() and str(payload["text"])
    return ""


__all__ = [
    "Replied",
    "Said",
    "case_ids",
    "fork_of",
    "is_recall_block",
    "last_active",
    "own_words",
    "recall_turns",
    "replies",
    "said_at",
    "skipped_lines",
    "started",
    "unverified_user_turns",
    "user_turns",
]
