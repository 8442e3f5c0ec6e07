"""How values become SQLite columns and rows become records.

JSON payloads are stored as given (key order kept, no whitespace), so a payload reads back equal
and re-serialises to the same bytes. Instants are stored as fixed-width UTC ISO 8601 text, so
text order is time order and comparisons can happen in SQL.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from turnframe.hashing import canonical_json
from turnframe.lifecycle import JournalStatus, TurnPhase
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

Row = tuple[Any, ...]


def dump_json(value: Json) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def load_json(text: str | None) -> Json:
    return None if text is None else json.loads(text)


def same_content(stored: str | None, new: Json) -> bool:
    """Whether a stored payload holds the same content as ``new`` (key order ignored)."""
    return stored is not None and canonical_json(json.loads(stored)) == canonical_json(new)


def dump_time(value: datetime) -> str:
    if value.utcoffset() is None:
        raise ValueError(f"instants must be timezone-aware, got {value!r}")
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def load_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def load_optional_time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


SESSION_COLUMNS = "account_id, id, workflow, created_at, thread_context, last_turn_id"


def session(row: Row) -> SessionRecord:
    return SessionRecord(
        account_id=row[0],
        session_id=row[1],
        workflow=row[2],
        created_at=load_time(row[3]),
        thread_context=load_json(row[4]),
        last_turn_id=row[5],
    )


TURN_COLUMNS = (
    "account_id, id, session_id, payload, phase, plan, reduction, created_at, phase_changed_at"
)


NOT_GIVEN: Any = object()


def turn(row: Row, *, payload: Any = NOT_GIVEN, plan: Any = NOT_GIVEN) -> TurnRecord:
    """A turn record from its row; a payload the caller just wrote is passed in, not decoded
    again from the text it was encoded to."""
    return TurnRecord(
        account_id=row[0],
        turn_id=row[1],
        session_id=row[2],
        payload=load_json(row[3]) if payload is NOT_GIVEN else payload,
        phase=TurnPhase(row[4]),
        plan=load_json(row[5]) if plan is NOT_GIVEN else plan,
        reduction=load_json(row[6]),
        created_at=load_time(row[7]),
        phase_changed_at=load_time(row[8]),
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
        created_at=load_time(row[8]),
        resolved_at=load_optional_time(row[9]),
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
        created_at=load_time(row[10]),
        updated_at=load_time(row[11]),
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
        created_at=load_time(row[6]),
        updated_at=load_time(row[7]),
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
        recorded_at=load_time(row[9]),
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
        available_at=load_time(row[9]),
        claim_token=row[10],
        lease_expires_at=load_optional_time(row[11]),
        outcome=load_json(row[12]),
        created_at=load_time(row[13]),
        updated_at=load_time(row[14]),
    )


ASSISTANT_COLUMNS = "account_id, turn_id, blocks, meta, created_at"


def assistant_turn(
    row: Row, *, blocks: Any = NOT_GIVEN, meta: Any = NOT_GIVEN
) -> AssistantTurnRecord:
    return AssistantTurnRecord(
        account_id=row[0],
        turn_id=row[1],
        blocks=load_json(row[2]) if blocks is NOT_GIVEN else blocks,
        blocks_json=row[2],
        meta=load_json(row[3]) if meta is NOT_GIVEN else meta,
        created_at=load_time(row[4]),
    )
