"""The outbox: rows written with the domain state, leased to one dispatcher, settled once.

Many dispatchers on many machines claim from one table: a claim locks the rows it takes with
``FOR UPDATE SKIP LOCKED``, so concurrent claims pass each other by instead of queueing, and
never lease one row twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg

from turnframe._ids import new_id
from turnframe.stores.errors import (
    IllegalTransition,
    KeyReused,
    LeaseLost,
    NotFound,
    StatusConflict,
)
from turnframe.stores.inputs import NewOutboxEffect
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, instant, optional_json
from turnframe.stores.postgres.tx import Conn, Row, row_count, where
from turnframe.stores.records import Json, OutboxRecord, OutboxResult, OutboxStatus
from turnframe.stores.transitions import OUTBOX_STATUS_AFTER, RECONCILED_RESULTS

_PENDING = OutboxStatus.PENDING.value
_CLAIMED = OutboxStatus.CLAIMED.value
_UNKNOWN = OutboxStatus.OUTCOME_UNKNOWN.value
#: The outcome of a row whose claim expired mid-send, for a sender without idempotency keys.
_EXPIRED = {"reason": "turnframe.outbox.claim_expired"}
_O_COLUMNS = ", ".join(f"o.{c.strip()}" for c in codec.OUTBOX_COLUMNS.split(","))


async def insert(
    conn: Conn, account_id: str, turn_id: str, effect: NewOutboxEffect, now: datetime
) -> OutboxRecord:
    available = now if effect.available_at is None else instant(effect.available_at)
    try:
        row = await conn.fetchrow(
            f"INSERT INTO outbox ({codec.OUTBOX_COLUMNS}) VALUES "
            "($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, NULL, NULL, NULL, $10, $10) "
            "ON CONFLICT (account_id, idempotency_key) DO NOTHING "
            f"RETURNING {codec.OUTBOX_COLUMNS}",
            account_id,
            new_id("obx_"),
            effect.idempotency_key,
            turn_id,
            effect.case_id,
            effect.command_id,
            dump_json(effect.payload),
            _PENDING,
            available,
            now,
        )
    except asyncpg.exceptions.ForeignKeyViolationError as exc:
        raise NotFound("turn", turn_id) from exc
    if row is None:
        raise KeyReused("outbox effect", effect.idempotency_key)
    return codec.outbox(row)


async def get(conn: Conn, account_id: str, effect_id: str) -> OutboxRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox WHERE account_id = $1 AND id = $2",
        account_id,
        effect_id,
    )
    return None if row is None else codec.outbox(row)


async def claim(
    conn: Conn,
    account_id: str | None,
    claim_token: str,
    now: datetime,
    lease_expires_at: datetime,
    limit: int,
) -> list[OutboxRecord]:
    """Lease up to ``limit`` ready rows, oldest first, skipping rows another claim holds."""
    ready, params = where(
        "status = $1 AND available_at <= $2", [_PENDING, now], account_id=account_id
    )
    params += [limit, _CLAIMED, claim_token, lease_expires_at]
    n = len(params)
    rows = await conn.fetch(
        f"WITH ready AS (SELECT account_id, id, pos FROM outbox{ready} "
        f"ORDER BY available_at, pos LIMIT ${n - 3} FOR UPDATE SKIP LOCKED) "
        f"UPDATE outbox o SET status = ${n - 2}, claim_token = ${n - 1}, "
        f"lease_expires_at = ${n}, attempts = o.attempts + 1, updated_at = $2 "
        "FROM ready WHERE o.account_id = ready.account_id AND o.id = ready.id "
        f"RETURNING {_O_COLUMNS}, o.pos",
        *params,
    )
    return [codec.outbox(r) for r in sorted(rows, key=_oldest_first)]


def _oldest_first(row: Row) -> tuple[datetime, int]:
    return row[9], row[len(row) - 1]  # available_at, pos


async def _locked(conn: Conn, account_id: str, effect_id: str) -> OutboxRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox WHERE account_id = $1 AND id = $2 FOR UPDATE",
        account_id,
        effect_id,
    )
    return None if row is None else codec.outbox(row)


async def _set_result(
    conn: Conn,
    account_id: str,
    effect_id: str,
    result: OutboxResult,
    outcome: Json | None,
    available_at: datetime,
    now: datetime,
) -> OutboxRecord:
    row = await conn.fetchrow(
        "UPDATE outbox SET status = $1, outcome = COALESCE($2, outcome), claim_token = NULL, "
        "lease_expires_at = NULL, available_at = $3, updated_at = $4 "
        f"WHERE account_id = $5 AND id = $6 RETURNING {codec.OUTBOX_COLUMNS}",
        OUTBOX_STATUS_AFTER[result].value,
        optional_json(outcome),
        available_at,
        now,
        account_id,
        effect_id,
    )
    assert row is not None  # the caller holds the row locked
    return codec.outbox(row)


async def settle(
    conn: Conn,
    account_id: str,
    effect_id: str,
    claim_token: str,
    result: OutboxResult,
    outcome: Json | None,
    retry_at: datetime | None,
    now: datetime,
) -> OutboxRecord:
    row = await _locked(conn, account_id, effect_id)
    if row is None:
        raise NotFound("outbox effect", effect_id)
    if row.status is not OutboxStatus.CLAIMED or row.claim_token != claim_token:
        raise LeaseLost(effect_id)
    retrying = result is OutboxResult.RETRYABLE
    available = (retry_at or now) if retrying else row.available_at
    return await _set_result(conn, account_id, effect_id, result, outcome, available, now)


async def reconcile(
    conn: Conn,
    account_id: str,
    effect_id: str,
    result: OutboxResult,
    outcome: Json | None,
    now: datetime,
) -> OutboxRecord:
    if result not in RECONCILED_RESULTS:
        raise IllegalTransition("outbox status", effect_id, _UNKNOWN, result.value)
    row = await _locked(conn, account_id, effect_id)
    if row is None:
        raise NotFound("outbox effect", effect_id)
    if row.status is not OutboxStatus.OUTCOME_UNKNOWN:
        raise StatusConflict("outbox effect", effect_id, _UNKNOWN, row.status.value)
    available = now if result is OutboxResult.RETRYABLE else row.available_at
    return await _set_result(conn, account_id, effect_id, result, outcome, available, now)


async def release_expired(conn: Conn, now: datetime, resend: Sequence[str] | None) -> int:
    """Expired claims: back to pending for the ``resend`` channels (all when None), else
    ``outcome_unknown`` (the send may have happened; reconciliation decides)."""
    status = await conn.execute(
        "UPDATE outbox SET status = CASE WHEN $4::text[] IS NULL "
        "OR payload->>'channel' = ANY($4::text[]) THEN $1 ELSE $5 END, "
        "outcome = CASE WHEN $4::text[] IS NULL OR payload->>'channel' = ANY($4::text[]) "
        "THEN outcome ELSE $6::json END, "
        "claim_token = NULL, lease_expires_at = NULL, "
        "updated_at = $2 WHERE status = $3 AND lease_expires_at <= $2",
        _PENDING,
        now,
        _CLAIMED,
        None if resend is None else list(resend),
        _UNKNOWN,
        dump_json(_EXPIRED),
    )
    return row_count(status)


async def list_outbox(
    conn: Conn,
    account_id: str | None,
    status: OutboxStatus | None,
    turn_id: str | None,
) -> list[OutboxRecord]:
    sql, params = where(
        "TRUE",
        [],
        account_id=account_id,
        status=None if status is None else str(status),
        turn_id=turn_id,
    )
    rows = await conn.fetch(f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox{sql} ORDER BY pos", *params)
    return [codec.outbox(r) for r in rows]
