"""Rows to records, shared by every SQL store: the column lists and one reader.

The stores differ only in how an instant comes back (SQLite: ISO 8601 text; PostgreSQL: an
aware datetime), so a :class:`RowReader` is made once per store with those two functions.
Payloads are JSON text in both, read with :func:`load_json`. A payload the caller has just
written is passed in (``NOT_GIVEN`` otherwise) instead of being decoded again.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

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


class Row(Protocol):
    """A selected row: a tuple (sqlite3) or a record (asyncpg), indexed by column position."""

    def __getitem__(self, index: int, /) -> Any: ...


NOT_GIVEN: Any = object()


#: One encoder and one scanner for every payload: ``json.dumps`` and ``json.loads`` build an
#: encoder or go through two more Python calls each time, and a turn writes and reads a dozen.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_DECODER: Any = json.JSONDecoder()
_SCAN: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(_DECODER)


def dump_json(value: Json) -> str:
    return _ENCODER.encode(value)


def load_json(text: str | None) -> Json:
    if text is None:
        return None
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)  # not plain JSON from the start: json's own answer and error
    if end != len(text):
        return json.loads(text)  # anything after the value (blanks, or an error): the same
    return value


def same_content(stored: str | None, new: Json) -> bool:
    """Whether a stored payload holds the same content as ``new`` (key order ignored).

    An equality check, not an identity: any JSON the store holds compares, including numbers
    beyond what a digest (RFC 8785) accepts."""
    return stored is not None and _sorted_json(json.loads(stored)) == _sorted_json(new)


def _sorted_json(value: Json) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


SESSION_COLUMNS = "account_id, id, workflow, created_at, thread_context, last_turn_id"
TURN_COLUMNS = (
    "account_id, id, session_id, payload, phase, plan, reduction, created_at, phase_changed_at"
)
INTERACTION_COLUMNS = (
    "account_id, id, turn_id, case_id, blocking, status, payload, resolution, created_at, "
    "resolved_at"
)
JOURNAL_COLUMNS = (
    "account_id, idempotency_key, command_id, turn_id, case_id, expected_revision, "
    "content_digest, payload, status, outcome, created_at, updated_at"
)
CASE_COLUMNS = "account_id, id, workflow, label, state, revision, created_at, updated_at"
EVENT_COLUMNS = (
    "seq, id, account_id, case_id, revision, type, payload, turn_id, command_id, recorded_at"
)
OUTBOX_COLUMNS = (
    "account_id, id, idempotency_key, turn_id, case_id, command_id, payload, status, attempts, "
    "available_at, claim_token, lease_expires_at, outcome, created_at, updated_at"
)
ASSISTANT_COLUMNS = "account_id, turn_id, blocks, meta, created_at"


class RowReader:
    """Records from rows selected with the column lists above."""

    def __init__(
        self,
        time: Callable[[Any], datetime],
        optional_time: Callable[[Any], datetime | None],
    ) -> None:
        self._time = time
        self._optional_time = optional_time

    def session(self, row: Row) -> SessionRecord:
        return SessionRecord(
            account_id=row[0],
            session_id=row[1],
            workflow=row[2],
            created_at=self._time(row[3]),
            thread_context=load_json(row[4]),
            last_turn_id=row[5],
        )

    def turn(self, row: Row, *, payload: Any = NOT_GIVEN, plan: Any = NOT_GIVEN) -> TurnRecord:
        return TurnRecord(
            account_id=row[0],
            turn_id=row[1],
            session_id=row[2],
            payload=load_json(row[3]) if payload is NOT_GIVEN else payload,
            phase=TurnPhase(row[4]),
            plan=load_json(row[5]) if plan is NOT_GIVEN else plan,
            reduction=load_json(row[6]),
            created_at=self._time(row[7]),
            phase_changed_at=self._time(row[8]),
        )

    def interaction(self, row: Row) -> InteractionRecord:
        return InteractionRecord(
            account_id=row[0],
            interaction_id=row[1],
            turn_id=row[2],
            case_id=row[3],
            blocking=bool(row[4]),
            status=InteractionStatus(row[5]),
            payload=load_json(row[6]),
            resolution=load_json(row[7]),
            created_at=self._time(row[8]),
            resolved_at=self._optional_time(row[9]),
        )

    def journal(self, row: Row) -> JournalRecord:
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
            created_at=self._time(row[10]),
            updated_at=self._time(row[11]),
        )

    def case(self, row: Row) -> CaseRecord:
        return CaseRecord(
            account_id=row[0],
            case_id=row[1],
            workflow=row[2],
            label=row[3],
            state=load_json(row[4]),
            revision=row[5],
            created_at=self._time(row[6]),
            updated_at=self._time(row[7]),
        )

    def event(self, row: Row) -> EventRecord:
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
            recorded_at=self._time(row[9]),
        )

    def outbox(self, row: Row) -> OutboxRecord:
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
            available_at=self._time(row[9]),
            claim_token=row[10],
            lease_expires_at=self._optional_time(row[11]),
            outcome=load_json(row[12]),
            created_at=self._time(row[13]),
            updated_at=self._time(row[14]),
        )

    def assistant_turn(
        self, row: Row, *, blocks: Any = NOT_GIVEN, meta: Any = NOT_GIVEN
    ) -> AssistantTurnRecord:
        return AssistantTurnRecord(
            account_id=row[0],
            turn_id=row[1],
            blocks=load_json(row[2]) if blocks is NOT_GIVEN else blocks,
            blocks_json=row[2],
            meta=load_json(row[3]) if meta is NOT_GIVEN else meta,
            created_at=self._time(row[4]),
        )
