"""How values become PostgreSQL parameters and rows become records.

JSON payloads go into ``json`` columns (not ``jsonb``): PostgreSQL keeps a ``json`` value's text
as given, so key order and bytes survive a reload, as in the SQLite store (the same
``dump_json``). Instants are ``timestamptz``; asyncpg hands back aware UTC datetimes.
Every table has a ``pos`` identity column so lists come back in insertion order.
"""

from __future__ import annotations

from datetime import datetime

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores.postgres.tx import Row
from turnframe.stores.records import (
    AssistantTurnRecord,
    CaseRecord,
    EventRecord,
    InteractionRecord,
    InteractionStatus,
    JournalRecord,
    Json,
    OutboxRecord,
    OutboxStatus,
    SessionRecord,
    TurnRecord,
)
from turnframe.stores.sqlite.codec import dump_json, load_json, same_content

__all__ = ["dump_json", "instant", "load_json", "optional_json", "same_content"]


def instant(value: datetime) -> datetime:
    """An instant for a ``timestamptz`` parameter; a naive datetime is refused, not guessed."""
    if value.utcoffset() is None:
        raise ValueError(f"instants must be timezone-aware, got {value!r}")
    return value


def optional_json(value: Json | None) -> str | None:
    return None if value is None else dump_json(value)


SESSION_COLUMNS = "account_id, id, workflow, created_at, thread_context, last_turn_id"


def session(row: Row) -> SessionRecord:
    return SessionRecord(
        account_id=row[0],
        session_id=row[1],
        workflow=row[2],
        created_at=row[3],
        thread_context=load_json(row[4]),
        last_turn_id=row[5],
    )


TURN_COLUMNS = (
    "account_id, id, session_id, payload, phase, plan, reduction, created_at, phase_changed_at"
)


def turn(row: Row) -> TurnRecord:
    return TurnRecord(
        account_id=row[0],
        turn_id=row[1],
        session_id=row[2],
        payload=load_json(row[3]),
        phase=TurnPhase(row[4]),
        plan=load_json(row[5]),
        reduction=load_json(row[6]),
        created_at=row[7],
        phase_changed_at=row[8],
    )


INTERACTION_COLUMNS = (
    "account_id, id, turn_id, case_id, blocking, status, payload, resolution, created_at, "
    "resolved_at"
)


def interaction(row: Row) -> InteractionRecord:
    return InteractionRecord(
        account_id=row[0],
        interaction_id=row[1],
        turn_id=row[2],
        case_id=row[3],
        blocking=bool(row[4]),
        status=InteractionStatus(row[5]),
        payload=load_json(row[6]),
        resolution=load_json(row[7]),
        created_at=row[8],
        resolved_at=row[9],
    )


JOURNAL_COLUMNS = (
    "account_id, idempotency_key, command_id, turn_id, case_id, expected_revision, "
    "content_digest, payload, status, outcome, created_at, updated_at"
)


def journal(row: Row) -> JournalRecord:
    return JournalRecord(
        account_id=row[0],
        idempotency_key=row[1],
        command_id=row[2],
        turn_id=row[3],
        case_id=row[4],
        expected_revision=row[5],
        content_digest=row[6],
        payload=load_json(row[7]),
        status=JournalStatus(row[8]),
        outcome=load_json(row[9]),
        created_at=row[10],
        updated_at=row[11],
    )


CASE_COLUMNS = "account_id, id, workflow, label, state, revision, created_at, updated_at"


def case(row: Row) -> CaseRecord:
    return CaseRecord(
        account_id=row[0],
        case_id=row[1],
        workflow=row[2],
        label=row[3],
        state=load_json(row[4]),
        revision=row[5],
        created_at=row[6],
        updated_at=row[7],
    )


EVENT_COLUMNS = (
    "seq, id, account_id, case_id, revision, type, payload, turn_id, command_id, recorded_at"
)


def event(row: Row) -> EventRecord:
    return EventRecord(
        seq=row[0],
        event_id=row[1],
        account_id=row[2],
        case_id=row[3],
        revision=row[4],
        type=row[5],
        payload=load_json(row[6]),
        turn_id=row[7],
        command_id=row[8],
        recorded_at=row[9],
    )


OUTBOX_COLUMNS = (
    "account_id, id, idempotency_key, turn_id, case_id, command_id, payload, status, attempts, "
    "available_at, claim_token, lease_expires_at, outcome, created_at, updated_at"
)


def outbox(row: Row) -> OutboxRecord:
    return OutboxRecord(
        account_id=row[0],
        effect_id=row[1],
        idempotency_key=row[2],
        turn_id=row[3],
        case_id=row[4],
        command_id=row[5],
        payload=load_json(row[6]),
        status=OutboxStatus(row[7]),
        attempts=row[8],
        available_at=row[9],
        claim_token=row[10],
        lease_expires_at=row[11],
        outcome=load_json(row[12]),
        created_at=row[13],
        updated_at=row[14],
    )


ASSISTANT_COLUMNS = "account_id, turn_id, blocks, meta, created_at"


def assistant_turn(row: Row) -> AssistantTurnRecord:
    return AssistantTurnRecord(
        account_id=row[0],
        turn_id=row[1],
        blocks=load_json(row[2]),
        blocks_json=row[2],
        meta=load_json(row[3]),
        created_at=row[4],
    )
