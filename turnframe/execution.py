"""What execution did: one outcome per command batch, with the events it committed.

The ExecutionGate produces an :class:`ExecutionReport`; the narrator may claim only what a
``committed`` outcome's events say (committed events decide claims).
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from turnframe.results import Rejection

# -- stable reasons for batch outcomes --------------------------------------------------------
BATCH_COMMITTED = "turnframe.batch.committed"
BATCH_REJECTED_BY_WORKFLOW = "turnframe.batch.rejected_by_workflow"
BATCH_REVISION_CONFLICT = "turnframe.batch.revision_conflict"
BATCH_STORE_FAILURE = "turnframe.batch.store_failure"
BATCH_AWAITING_CONFIRMATION = "turnframe.batch.awaiting_confirmation"
BATCH_DECLINED = "turnframe.batch.declined"
BATCH_KEY_REUSED = "turnframe.batch.key_reused"
BATCH_ALREADY_SETTLED = "turnframe.batch.already_settled"


class BatchStatus(enum.StrEnum):
    COMMITTED = "committed"
    FAILED = "failed"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    DECLINED = "declined"


@attrs.frozen(kw_only=True)
class CommittedEvent:
    """A domain event as the store committed it (``seq`` is the global sequence)."""

    seq: int
    case_id: str
    revision: int
    name: str
    data: dict[str, Any]
    command_id: str | None = None


@attrs.frozen(kw_only=True)
class OutboxNote:
    """An external effect committed to the outbox with its batch (sent after the commit)."""

    effect_id: str
    channel: str
    idempotency_key: str


@attrs.frozen(kw_only=True)
class BatchOutcome:
    batch_id: str
    case_id: str
    status: BatchStatus
    reason: str
    command_ids: tuple[str, ...]
    events: tuple[CommittedEvent, ...] = ()
    new_revision: int | None = None
    rejection: Rejection | None = None
    effects: tuple[OutboxNote, ...] = ()
    replayed: bool = False  # settled by an earlier attempt of this turn; nothing ran again


@attrs.frozen(kw_only=True)
class ExecutionReport:
    outcomes: tuple[BatchOutcome, ...] = ()
    #: The commit bundle stored the turn's reply too (ADR 0022): the turn is ``delivered``.
    reply_stored: bool = False

    @property
    def events(self) -> tuple[CommittedEvent, ...]:
        return tuple(e for o in self.outcomes for e in o.events)

    def outcome_of_command(self, command_id: str) -> BatchOutcome | None:
        for outcome in self.outcomes:
            if command_id in outcome.command_ids:
                return outcome
        return None
