"""What a store returns: one frozen record per kind of row, and the small status vocabularies.

Payloads are JSON values (plain dicts and lists the pipeline gets from the one converter). A
record's payload is decoded afresh on every read, so mutating it never touches the store.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any, TypeAlias

import attrs

from turnframe.lifecycle import JournalStatus, TurnPhase

#: A JSON value: dict, list, str, int, float, bool or None (nested).
Json: TypeAlias = Any


class InteractionStatus(enum.StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"
    EXPIRED = "expired"


class OutboxStatus(enum.StrEnum):
    """``pending`` rows wait to be claimed; ``claimed`` rows are leased to one dispatcher."""

    PENDING = "pending"
    CLAIMED = "claimed"
    COMPLETED = "completed"
    PERMANENT_FAILED = "permanent_failed"
    OUTCOME_UNKNOWN = "outcome_unknown"


class OutboxResult(enum.StrEnum):
    """How a sender classified one send of an external effect."""

    COMPLETED = "completed"
    RETRYABLE = "retryable"
    PERMANENT_FAILED = "permanent_failed"
    OUTCOME_UNKNOWN = "outcome_unknown"


class AdmissionVerdict(enum.StrEnum):
    """The journal's answer to one command offered for admission."""

    #: New key: the entry was inserted.
    FRESH = "fresh"
    #: Same key and content, already committed or failed: use the stored outcome, run nothing.
    REPLAY_OF_SETTLED = "replay_of_settled"
    #: Same key and content, pending / executing / awaiting confirmation: resume it by key.
    REPLAY_IN_FLIGHT = "replay_in_flight"
    #: Same key and content whose external effect has an unknown outcome: reconcile, never rerun.
    REPLAY_OUTCOME_UNKNOWN = "replay_outcome_unknown"
    #: Same key, different content: refused, nothing inserted for this entry.
    REFUSED_DIFFERENT_COMMAND = "refused_different_command"


@attrs.frozen(kw_only=True)
class SessionRecord:
    account_id: str
    session_id: str
    workflow: str
    created_at: datetime
    thread_context: Json
    last_turn_id: str | None


@attrs.frozen(kw_only=True)
class SessionLease:
    """A worker's lease on a live session: while it lasts, only ``worker_id`` serves the session.

    ``acquired_at`` is when this worker's hold began (a renewal keeps it); ``taken_over`` says the
    lease was taken from ``previous_worker``, whose lease had expired: that worker may have died
    mid-turn, so the new holder recovers the session's unfinished turns from their phase markers.
    """

    account_id: str
    session_id: str
    worker_id: str
    acquired_at: datetime
    expires_at: datetime
    taken_over: bool = False
    previous_worker: str | None = None
    #: How many holders the session's lease has had, this one included (a renewal keeps it):
    #: every write for the session checks it, so a worker that lost the lease writes nothing.
    epoch: int = 0


@attrs.frozen(kw_only=True)
class TurnRecord:
    """A user turn, its durable phase marker and its write-once plan and reduction payloads."""

    account_id: str
    turn_id: str
    session_id: str
    payload: Json
    phase: TurnPhase
    plan: Json | None
    reduction: Json | None
    created_at: datetime
    phase_changed_at: datetime


@attrs.frozen(kw_only=True)
class InteractionRecord:
    """A card shown to the user; ``blocking`` cards are at most one open per case."""

    account_id: str
    interaction_id: str
    turn_id: str
    case_id: str | None
    blocking: bool
    status: InteractionStatus
    payload: Json
    resolution: Json | None
    created_at: datetime
    resolved_at: datetime | None


@attrs.frozen(kw_only=True)
class JournalRecord:
    account_id: str
    idempotency_key: str
    command_id: str
    turn_id: str
    case_id: str | None
    expected_revision: int | None
    content_digest: str
    payload: Json
    status: JournalStatus
    outcome: Json | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen(kw_only=True)
class Admission:
    """One entry's admission answer and the journal row as stored after admission."""

    verdict: AdmissionVerdict
    entry: JournalRecord

    @property
    def refused(self) -> bool:
        return self.verdict is AdmissionVerdict.REFUSED_DIFFERENT_COMMAND


@attrs.frozen(kw_only=True)
class CaseRecord:
    account_id: str
    case_id: str
    workflow: str
    label: str
    state: Json
    revision: int
    created_at: datetime
    updated_at: datetime


@attrs.frozen(kw_only=True)
class EventRecord:
    """An immutable domain event; ``seq`` increases monotonically across the whole store."""

    seq: int
    event_id: str
    account_id: str
    case_id: str
    revision: int
    type: str
    payload: Json
    turn_id: str
    command_id: str | None
    recorded_at: datetime


@attrs.frozen(kw_only=True)
class OutboxRecord:
    account_id: str
    effect_id: str
    idempotency_key: str
    turn_id: str
    case_id: str | None
    command_id: str | None
    payload: Json
    status: OutboxStatus
    attempts: int
    available_at: datetime
    claim_token: str | None
    lease_expires_at: datetime | None
    outcome: Json | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen(kw_only=True)
class AssistantTurnRecord:
    """The response blocks of a turn exactly as given; ``blocks_json`` is the stored text."""

    account_id: str
    turn_id: str
    blocks: Json
    blocks_json: str
    meta: Json | None
    created_at: datetime


@attrs.frozen(kw_only=True)
class SealReceipt:
    """What one seal transaction stored: the turn's cards and its journal admissions."""

    interactions: tuple[InteractionRecord, ...]
    admissions: tuple[Admission, ...]


@attrs.frozen(kw_only=True)
class BundleReceipt:
    """What one commit bundle wrote, with the store-assigned event sequence numbers."""

    events: tuple[EventRecord, ...]
    cases: tuple[CaseRecord, ...]
    outbox: tuple[OutboxRecord, ...]
    phase: TurnPhase | None


@attrs.frozen(kw_only=True)
class TurnStart:
    """What a session reads as a turn starts, in one read (ADR 0022): the turn as stored (None:
    not recorded yet, a live turn) and, when it is still to be interpreted (not recorded, or
    ``received``), every case of the account (what the interpreter is shown and what the
    reducer reads), else None."""

    turn: TurnRecord | None
    cases: tuple[CaseRecord, ...] | None
