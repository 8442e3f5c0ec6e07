"""The protocol's state Λ, persisted with the session between turns.

It lives in the session's stored thread context (key ``recall``), written in the same
transaction as the turn's response: when a presentation is delivered its state is durable, so a
crash, a restart or a resume in another process continues the protocol where it stood. A turn
that crashes before its response is stored leaves the previous state, and is replayed from it.

``memory`` also keeps the contexts the user identified (newest last, a few at most): recalled
context may inform later answers of the session; it is never evidence for an act.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

import attrs
import cattrs

from turnframe._converter import converter
from turnframe.recall.assemble import Edge, SkippedLink
from turnframe.recall.cue import Unit, VagueRecall
from turnframe.stores.recall import RecallScope

MAX_ATTEMPTS = 3
KEPT_CONTEXTS = 8


class Phase(enum.StrEnum):
    """Where the protocol waits for the user."""

    ASKED = "asked"  # the open question is out: the next turn is its answer
    EXPANSION = "expansion"  # the store-expansion card is out: expand or stop
    PRESENTED = "presented"  # a grounded candidate is shown: identified, corrected, withdrawn


@attrs.frozen(kw_only=True)
class Shown:
    """A grounded member as it was presented: the record's own words and where they are."""

    session_id: str
    turn_id: str
    excerpt: str
    locator: str
    resume: str | None
    resumes: str | None = None
    fork_of: str | None = None
    started_at: datetime | None = None
    partial_source: bool = False


@attrs.frozen(kw_only=True)
class Presentation:
    """Λ.presented: the grounded recognizable (its members), and the adjacent candidates."""

    unit: Unit
    members: tuple[Shown, ...]
    adjacent: tuple[Shown, ...] = ()
    joined: tuple[Edge, ...] = ()
    skipped: tuple[SkippedLink, ...] = ()

    @property
    def head(self) -> Shown:
        return self.members[0]


@attrs.frozen(kw_only=True)
class RecallState:
    phase: Phase
    recall: VagueRecall
    attempts: int = 0
    scope: RecallScope = RecallScope.SPINE
    presented: Presentation | None = None
    rejected: tuple[str, ...] = ()  # sessions the user turned down: not found again
    card_id: str | None = None  # the open store-expansion card
    dropped: tuple[str, ...] = ()  # records that could not be opened (named once)

    def attempts_left(self, maximum: int = MAX_ATTEMPTS) -> int:
        return max(0, maximum - self.attempts)


@attrs.frozen(kw_only=True)
class RecalledContext:
    """What an identification made session text: the members' words, locators and handles."""

    unit: Unit
    members: tuple[Shown, ...]
    identified_in: str  # the turn in which the user identified it


@attrs.frozen(kw_only=True)
class RecallMemory:
    state: RecallState | None = None
    recalled: tuple[RecalledContext, ...] = ()

    def remember(self, context: RecalledContext) -> RecallMemory:
        kept = (*self.recalled, context)[-KEPT_CONTEXTS:]
        return RecallMemory(state=None, recalled=kept)


def load_memory(stored: Any) -> RecallMemory:
    """The memory stored with the session; an unreadable one is empty (nothing pending)."""
    if not isinstance(stored, dict):
        return RecallMemory()
    try:
        memory: RecallMemory = converter.structure(stored, RecallMemory)
    except (cattrs.BaseValidationError, ValueError, TypeError, KeyError, AttributeError):
        return RecallMemory()
    return memory


def dump_memory(memory: RecallMemory) -> dict[str, Any] | None:
    if memory.state is None and not memory.recalled:
        return None
    data: dict[str, Any] = converter.unstructure(memory)
    return data


def recalled_contexts(thread_context: Any) -> tuple[RecalledContext, ...]:
    """The contexts the user identified in a session, oldest first, from the session's stored
    thread context (``SessionRecord.thread_context``): what later answers may draw on. Never
    evidence for an act."""
    stored = thread_context.get("recall") if isinstance(thread_context, dict) else None
    return load_memory(stored).recalled


def pending(stored: Any) -> str | None:
    """What the protocol waits for (``asked``, ``expansion``, ``presented``), or None: what
    the interpreter is told so it can read the next turn's disposition."""
    state = load_memory(stored).state
    return None if state is None else state.phase.value


__all__ = [
    "KEPT_CONTEXTS",
    "MAX_ATTEMPTS",
    "Phase",
    "Presentation",
    "RecallMemory",
    "RecallState",
    "RecalledContext",
    "Shown",
    "dump_memory",
    "load_memory",
    "pending",
    "recalled_contexts",
]
