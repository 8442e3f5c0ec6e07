"""The command journal: admission by idempotency key and forward-only status moves."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from turnframe.lifecycle import JournalStatus
from turnframe.stores.errors import IllegalTransition, NotFound, StatusConflict
from turnframe.stores.inputs import JournalOutcome, NewJournalEntry
from turnframe.stores.records import Admission, AdmissionVerdict, JournalRecord
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_json
from turnframe.stores.sqlite.ops.once import insert_once
from turnframe.stores.transitions import journal_may_move


def get(conn: sqlite3.Connection, account_id: str, key: str) -> JournalRecord | None:
    row = conn.execute(
        f"SELECT {codec.JOURNAL_COLUMNS} FROM journal WHERE account_id = ? AND idempotency_key = ?",
        (account_id, key),
    ).fetchone()
    return None if row is None else codec.journal(row)


def of_turn(conn: sqlite3.Connection, account_id: str, turn_id: str) -> list[JournalRecord]:
    rows = conn.execute(
        f"SELECT {codec.JOURNAL_COLUMNS} FROM journal WHERE account_id = ? AND turn_id = ? "
        "ORDER BY rowid",
        (account_id, turn_id),
    ).fetchall()
    return [codec.journal(r) for r in rows]


def _verdict(stored: JournalRecord, offered: NewJournalEntry) -> AdmissionVerdict:
    if stored.content_digest != offered.content_digest:
        return AdmissionVerdict.REFUSED_DIFFERENT_COMMAND
    if stored.status.is_settled:
        return AdmissionVerdict.REPLAY_OF_SETTLED
    if stored.status is JournalStatus.OUTCOME_UNKNOWN:
        return AdmissionVerdict.REPLAY_OUTCOME_UNKNOWN
    return AdmissionVerdict.REPLAY_IN_FLIGHT


def admit(
    conn: sqlite3.Connection,
    account_id: str,
    turn_id: str,
    entries: Sequence[NewJournalEntry],
    now: str,
) -> list[Admission]:
    """Answer each entry in order; an unknown turn is :class:`NotFound`."""
    answers = []
    for entry in entries:
        row = (
            account_id,
            entry.idempotency_key,
            entry.command_id,
            turn_id,
            entry.case_id,
            entry.expected_revision,
            entry.content_digest,
            dump_json(entry.payload),
            entry.status.value,
            None,
            now,
            now,
        )
        inserted = insert_once(
            conn,
            f"INSERT INTO journal ({codec.JOURNAL_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            row,
            turn_id,
        )
        if inserted:
            answers.append(Admission(verdict=AdmissionVerdict.FRESH, entry=codec.journal(row)))
            continue
        stored = get(conn, account_id, entry.idempotency_key)
        assert stored is not None
        answers.append(Admission(verdict=_verdict(stored, entry), entry=stored))
    return answers


def move(conn: sqlite3.Connection, account_id: str, outcome: JournalOutcome, now: str) -> None:
    """CAS one entry's status forward; the outcome is stored with the move when given."""
    key = outcome.idempotency_key
    if not journal_may_move(outcome.expected, outcome.status):
        raise IllegalTransition("status", key, outcome.expected.value, outcome.status.value)
    outcome_json = None if outcome.outcome is None else dump_json(outcome.outcome)
    cur = conn.execute(
        "UPDATE journal SET status = ?, outcome = COALESCE(?, outcome), updated_at = ? "
        "WHERE account_id = ? AND idempotency_key = ? AND status = ?",
        (outcome.status.value, outcome_json, now, account_id, key, outcome.expected.value),
    )
    if cur.rowcount == 1:
        return
    found = get(conn, account_id, key)
    if found is None:
        raise NotFound("journal entry", key)
    raise StatusConflict("journal entry", key, outcome.expected.value, found.status.value)
