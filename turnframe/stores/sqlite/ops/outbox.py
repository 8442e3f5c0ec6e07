"""The outbox: rows written with the domain state, leased to one dispatcher, settled once."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from turnframe._ids import new_id
from turnframe.stores.errors import (
    IllegalTransition,
    KeyReused,
    LeaseLost,
    NotFound,
    StatusConflict,
)
from turnframe.stores.inputs import NewOutboxEffect
from turnframe.stores.records import Json, OutboxRecord, OutboxResult, OutboxStatus
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_json, dump_time
from turnframe.stores.transitions import OUTBOX_STATUS_AFTER, RECONCILED_RESULTS

_PENDING = OutboxStatus.PENDING.value
_CLAIMED = OutboxStatus.CLAIMED.value
_UNKNOWN = OutboxStatus.OUTCOME_UNKNOWN.value
#: The outcome of a row whose claim expired mid-send, for a sender without idempotency keys.
_EXPIRED = {"reason": "turnframe.outbox.claim_expired"}


def insert(
    conn: sqlite3.Connection, account_id: str, turn_id: str, effect: NewOutboxEffect, now: str
) -> OutboxRecord:
    taken = conn.execute(
        "SELECT 1 FROM outbox WHERE account_id = ? AND idempotency_key = ?",
        (account_id, effect.idempotency_key),
    ).fetchone()
    if taken is not None:
        raise KeyReused("outbox effect", effect.idempotency_key)
    available = now if effect.available_at is None else dump_time(effect.available_at)
    row = (
        account_id,
        new_id("obx_"),
        effect.idempotency_key,
        turn_id,
        effect.case_id,
        effect.command_id,
        dump_json(effect.payload),
        _PENDING,
        0,
        available,
        None,
        None,
        None,
        now,
        now,
    )
    conn.execute(
        f"INSERT INTO outbox ({codec.OUTBOX_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row,
    )
    return codec.outbox(row)


def get(conn: sqlite3.Connection, account_id: str, effect_id: str) -> OutboxRecord | None:
    row = conn.execute(
        f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox WHERE account_id = ? AND id = ?",
        (account_id, effect_id),
    ).fetchone()
    return None if row is None else codec.outbox(row)


def claim(
    conn: sqlite3.Connection,
    account_id: str | None,
    claim_token: str,
    now: str,
    lease_expires_at: str,
    limit: int,
) -> list[OutboxRecord]:
    sql = "SELECT account_id, id FROM outbox WHERE status = ? AND available_at <= ?"
    params: list[str | int] = [_PENDING, now]
    if account_id is not None:
        sql += " AND account_id = ?"
        params.append(account_id)
    ready = conn.execute(sql + " ORDER BY available_at, rowid LIMIT ?", [*params, limit]).fetchall()
    claimed = []
    for acct, effect_id in ready:
        conn.execute(
            "UPDATE outbox SET status = ?, claim_token = ?, lease_expires_at = ?, "
            "attempts = attempts + 1, updated_at = ? WHERE account_id = ? AND id = ?",
            (_CLAIMED, claim_token, lease_expires_at, now, acct, effect_id),
        )
        found = get(conn, acct, effect_id)
        assert found is not None
        claimed.append(found)
    return claimed


def _set_result(
    conn: sqlite3.Connection,
    account_id: str,
    effect_id: str,
    result: OutboxResult,
    outcome: Json | None,
    available_at: str,
    now: str,
) -> OutboxRecord:
    outcome_json = None if outcome is None else dump_json(outcome)
    conn.execute(
        "UPDATE outbox SET status = ?, outcome = COALESCE(?, outcome), claim_token = NULL, "
        "lease_expires_at = NULL, available_at = ?, updated_at = ? "
        "WHERE account_id = ? AND id = ?",
        (OUTBOX_STATUS_AFTER[result].value, outcome_json, available_at, now, account_id, effect_id),
    )
    found = get(conn, account_id, effect_id)
    assert found is not None
    return found


def settle(
    conn: sqlite3.Connection,
    account_id: str,
    effect_id: str,
    claim_token: str,
    result: OutboxResult,
    outcome: Json | None,
    retry_at: str | None,
    now: str,
) -> OutboxRecord:
    row = get(conn, account_id, effect_id)
    if row is None:
        raise NotFound("outbox effect", effect_id)
    if row.status is not OutboxStatus.CLAIMED or row.claim_token != claim_token:
        raise LeaseLost(effect_id)
    retrying = result is OutboxResult.RETRYABLE
    available = (retry_at or now) if retrying else dump_time(row.available_at)
    return _set_result(conn, account_id, effect_id, result, outcome, available, now)


def reconcile(
    conn: sqlite3.Connection,
    account_id: str,
    effect_id: str,
    result: OutboxResult,
    outcome: Json | None,
    now: str,
) -> OutboxRecord:
    if result not in RECONCILED_RESULTS:
        raise IllegalTransition("outbox status", effect_id, _UNKNOWN, result.value)
    row = get(conn, account_id, effect_id)
    if row is None:
        raise NotFound("outbox effect", effect_id)
    if row.status is not OutboxStatus.OUTCOME_UNKNOWN:
        raise StatusConflict("outbox effect", effect_id, _UNKNOWN, row.status.value)
    available = now if result is OutboxResult.RETRYABLE else dump_time(row.available_at)
    return _set_result(conn, account_id, effect_id, result, outcome, available, now)


def release_expired(conn: sqlite3.Connection, now: str, resend: Sequence[str] | None) -> int:
    """Expired claims: back to pending for the ``resend`` channels (all when None), else
    ``outcome_unknown`` (the send may have happened; reconciliation decides)."""
    if resend is None:
        back = "1"
        params: list[str] = []
    else:
        back = "json_extract(payload, '$.channel') IN ({})".format(", ".join("?" for _ in resend))
        params = list(resend)
    cur = conn.execute(
        f"UPDATE outbox SET status = CASE WHEN {back} THEN ? ELSE ? END, "
        "outcome = CASE WHEN " + back + " THEN outcome ELSE ? END, "
        "claim_token = NULL, lease_expires_at = NULL, "
        "updated_at = ? WHERE status = ? AND lease_expires_at <= ?",
        (*params, _PENDING, _UNKNOWN, *params, dump_json(_EXPIRED), now, _CLAIMED, now),
    )
    return cur.rowcount


def list_outbox(
    conn: sqlite3.Connection,
    account_id: str | None,
    status: OutboxStatus | None,
    turn_id: str | None,
) -> list[OutboxRecord]:
    clauses: list[str] = []
    params: list[str] = []
    for column, value in (("account_id", account_id), ("status", status), ("turn_id", turn_id)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(str(value))
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = conn.execute(
        f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox{where} ORDER BY rowid", params
    ).fetchall()
    return [codec.outbox(r) for r in rows]
