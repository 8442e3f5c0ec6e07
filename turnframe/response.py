"""What a turn answers: ordered response blocks, stored exactly as returned.

Blocks are deterministic: the same turn, results, events and answers give the same blocks with
the same ids, so a regenerated response (recovery, narration retry) matches byte for byte.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from turnframe.execution import CommittedEvent
from turnframe.lifecycle import TurnPhase
from turnframe.results import PlannedActResult


class BlockKind(enum.StrEnum):
    RECEIPT = "receipt"  # only from committed events
    NOTICE = "notice"  # what did not happen, or not yet, and why
    CARD = "card"  # a persisted interaction the user can click
    ANSWER = "answer"  # a grounded answer to a question
    TEXT = "text"  # chitchat and other plain replies


@attrs.frozen(kw_only=True)
class Block:
    block_id: str
    kind: BlockKind
    code: str
    text: str
    acts: tuple[int, ...] = ()
    data: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class TurnResponse:
    session_id: str
    turn_id: str
    phase: TurnPhase
    blocks: tuple[Block, ...]
    results: tuple[PlannedActResult, ...] = ()
    events: tuple[CommittedEvent, ...] = ()
