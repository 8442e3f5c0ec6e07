"""The command journal: admission by idempotency key and forward-only status moves."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from turnframe.lifecycle import JournalStatus
from turnframe.stores import rows
from turnframe.stores.errors import IllegalTransition, NotFound, StatusConflict
from turnframe.stores.inputs import JournalOutcome, NewJournalEntry
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, optional_json
from turnframe.stores.postgres.ops.once import insert_returning_once
from turnframe.stores.postgres.tx import Conn
from turnframe.stores.records import Admission, AdmissionVerdict, JournalRecord
from turnframe.stores.transitions import journal_may_move


async def get(conn: Conn, account_id: str, key: str) -> JournalRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.JOURNAL_COLUMNS} FROM journal "
        "WHERE account_id = $1 AND idempotency_key = $2",
        account_id,
        key,
    )
    return None if row is None else codec.journal(row)


async def of_turn(conn: Conn, account_id: str, turn_id: str) -> list[JournalRecord]:
    rows = await conn.fetch(
        f"SELECT {codec.JOURNAL_COLUMNS} FROM journal WHERE account_id = $1 AND turn_id = $2 "
        "ORDER BY pos",
        account_id,
        turn_id,
    )
    return [codec.journal(r) for r in rows]


def _verdict(stored: JournalRecord, offered: NewJournalEntry) -> AdmissionVerdict:
    if stored.content_digest != offered.content_digest:
        return AdmissionVerdict.REFUSED_DIFFERENT_COMMAND
    if stored.status.is_settled:
        return AdmissionVerdict.REPLAY_OF_SETTLED
    if stored.status is JournalStatus.OUTCOME_UNKNOWN:
        return AdmissionVerdict.REPLAY_OUTCOME_UNKNOWN
    return AdmissionVerdict.REPLAY_IN_FLIGHT


async def admit(
    conn: Conn,
    account_id: str,
    turn_id: str,
    entries: Sequence[NewJournalEntry],
    now: datetime,
) -> list[Admission]:
    """Answer each entry in order; an unknown turn is :class:`NotFound`. A key another
    transaction is admitting right now waits for it, then answers as a replay (or refusal)."""
    answers = []
    for entry in entries:
        params: list[object] = [account_id, turn_id, now]
        row = await insert_returning_once(
            conn, insert_sql(entry, params, "$1", "$2", "$3"), turn_id, *params
        )
        answers.append(await answer(conn, account_id, entry, row))
    return answers


def insert_sql(
    entry: NewJournalEntry, params: list[object], account: str, turn: str, now: str
) -> str:
    """The ``INSERT … ON CONFLICT DO NOTHING RETURNING`` that admits ``entry``, its values
    appended to ``params`` (``account``, ``turn`` and ``now`` name parameters already there)."""
    values = [
        account,
        *_params(params, entry.idempotency_key, entry.command_id),
        turn,
        *_params(params, entry.case_id, entry.expected_revision, entry.content_digest),
        *_params(params, dump_json(entry.payload), entry.status.value),
        "NULL",
        now,
        now,
    ]
    return (
        f"INSERT INTO journal ({codec.JOURNAL_COLUMNS}) VALUES ({', '.join(values)}) "
        f"ON CONFLICT DO NOTHING RETURNING {codec.JOURNAL_COLUMNS}"
    )


def _params(params: list[object], *values: object) -> list[str]:
    start = len(params)
    params.extend(values)
    return [f"${start + i + 1}" for i in range(len(values))]


async def answer(
    conn: Conn, account_id: str, entry: NewJournalEntry, inserted: rows.Row | None
) -> Admission:
    """The answer to ``entry`` after its insert: fresh with the ``inserted`` row, else as the
    entry stored under its key (a replay or a refusal)."""
    if inserted is not None:
        return Admission(verdict=AdmissionVerdict.FRESH, entry=codec.journal(inserted))
    stored = await get(conn, account_id, entry.idempotency_key)
    assert stored is not None  # the conflict was on this very key
    return Admission(verdict=_verdict(stored, entry), entry=stored)


async def move(
    conn: Conn, account_id: str, outcome: JournalOutcome, now: datetime
) -> JournalRecord:
    """CAS one entry's status forward; the outcome is stored with the move when given."""
    key = outcome.idempotency_key
    if not journal_may_move(outcome.expected, outcome.status):
        raise IllegalTransition("status", key, outcome.expected.value, outcome.status.value)
    row = await conn.fetchrow(
        "UPDATE journal SET status = $1, outcome = COALESCE($2, outcome), updated_at = $3 "
        "WHERE account_id = $4 AND idempotency_key = $5 AND status = $6 "
        f"RETURNING {codec.JOURNAL_COLUMNS}",
        outcome.status.value,
        optional_json(outcome.outcome),
        now,
        account_id,
        key,
        outcome.expected.value,
    )
    if row is not None:
        return codec.journal(row)
    found = await get(conn, account_id, key)
    if found is None:
        raise NotFound("journal entry", key)
    raise StatusConflict("journal entry", key, outcome.expected.value, found.status.value)
