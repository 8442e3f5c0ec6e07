"""The turn inbox and worker claims (ADR 0018), and the lease fence every fenced write passes.

The inbox is the ``turns`` table: a submitted turn is a turn in phase ``received``, announced on
the ``turnframe_inbox`` channel (delivered when its transaction commits). A claim is ONE
statement: it scans sessions with unfinished turns and no live lease, locks what it picks with
``FOR UPDATE SKIP LOCKED`` (two workers scanning at once pass each other by instead of queueing),
leases them to the worker under a new epoch and logs each grant.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar

from turnframe.lifecycle import TurnPhase
from turnframe.stores.fencing import FenceTarget
from turnframe.stores.inbox import INBOX_CHANNEL, LeaseEvent, LeaseLogEntry
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.ops import turns
from turnframe.stores.postgres.tx import Conn, where
from turnframe.stores.records import Json, SessionLease, TurnRecord

T = TypeVar("T")

# Spelled out (not a parameter) so the planner can use the partial index ``turns_unfinished``.
_UNFINISHED = "phase NOT IN ({})".format(
    ", ".join(f"'{phase.value}'" for phase in TurnPhase if phase.is_terminal)
)


async def submit(
    conn: Conn,
    account_id: str,
    session_id: str,
    turn_id: str | None,
    payload: Json,
    now: datetime,
    idempotency_key: str | None,
) -> TurnRecord:
    record = await turns.record_user_turn(
        conn, account_id, session_id, turn_id, payload, now, idempotency_key
    )
    await conn.execute("SELECT pg_notify($1, $2)", INBOX_CHANNEL, session_id)
    return record


async def pending(conn: Conn, account_id: str, session_id: str) -> list[TurnRecord]:
    rows = await conn.fetch(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = $1 AND session_id = $2 "
        f"AND {_UNFINISHED} ORDER BY pos",
        account_id,
        session_id,
    )
    return [codec.turn(r) for r in rows]


async def claim(
    conn: Conn,
    worker_id: str,
    now: datetime,
    expires_at: datetime,
    limit: int,
    workflows: Sequence[str] | None,
) -> list[SessionLease]:
    rows = await conn.fetch(
        "WITH picked AS ("
        "SELECT s.account_id, s.id, s.lease_worker AS previous FROM sessions s JOIN ("
        f"SELECT account_id, session_id, MIN(pos) AS oldest FROM turns WHERE {_UNFINISHED} "
        "GROUP BY account_id, session_id"
        ") u ON u.account_id = s.account_id AND u.session_id = s.id "
        "WHERE (s.lease_worker IS NULL OR (s.lease_expires_at <= $1 AND s.lease_worker <> $3)) "
        "AND ($5::text[] IS NULL OR s.workflow = ANY($5::text[])) "
        "ORDER BY u.oldest LIMIT $4 FOR UPDATE OF s SKIP LOCKED"
        "), claimed AS ("
        "UPDATE sessions s SET lease_worker = $3, lease_acquired_at = $1, "
        "lease_expires_at = $2, lease_epoch = s.lease_epoch + 1 "
        "FROM picked p WHERE s.account_id = p.account_id AND s.id = p.id "
        "RETURNING s.account_id, s.id, s.lease_epoch, p.previous"
        "), logged AS ("
        "INSERT INTO lease_log (account_id, session_id, worker_id, epoch, event, at, "
        "expires_at, previous_worker) SELECT account_id, id, $3, lease_epoch, "
        "CASE WHEN previous IS NULL THEN 'acquired' ELSE 'taken_over' END, $1, $2, previous "
        "FROM claimed"
        ") SELECT account_id, id, lease_epoch, previous FROM claimed",
        now,
        expires_at,
        worker_id,
        limit,
        None if workflows is None else list(workflows),
    )
    return [
        SessionLease(
            account_id=r[0],
            session_id=r[1],
            worker_id=worker_id,
            acquired_at=now,
            expires_at=expires_at,
            taken_over=r[3] is not None,
            previous_worker=r[3],
            epoch=int(r[2]),
        )
        for r in rows
    ]


async def lease_log(
    conn: Conn, account_id: str | None, session_id: str | None
) -> list[LeaseLogEntry]:
    sql, params = where("TRUE", [], account_id=account_id, session_id=session_id)
    rows = await conn.fetch(
        "SELECT seq, account_id, session_id, worker_id, epoch, event, at, expires_at, "
        f"previous_worker FROM lease_log{sql} ORDER BY seq",
        *params,
    )
    return [
        LeaseLogEntry(
            seq=r[0],
            account_id=r[1],
            session_id=r[2],
            worker_id=r[3],
            epoch=r[4],
            event=LeaseEvent(r[5]),
            at=r[6],
            expires_at=r[7],
            previous_worker=r[8],
        )
        for r in rows
    ]


_LOCK = " FOR NO KEY UPDATE OF s"


async def _fence_row(conn: Conn, target: FenceTarget) -> tuple[str, str | None, int] | None:
    if target.session_id is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM sessions s "
            "WHERE s.account_id = $1 AND s.id = $2"
        )
        key = target.session_id
    elif target.turn_id is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM turns t JOIN sessions s "
            "ON s.account_id = t.account_id AND s.id = t.session_id "
            "WHERE t.account_id = $1 AND t.id = $2"
        )
        key = target.turn_id
    elif target.interaction_id is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM interactions i "
            "JOIN turns t ON t.account_id = i.account_id AND t.id = i.turn_id "
            "JOIN sessions s ON s.account_id = t.account_id AND s.id = t.session_id "
            "WHERE i.account_id = $1 AND i.id = $2"
        )
        key = target.interaction_id
    elif target.journal_key is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM journal j "
            "JOIN turns t ON t.account_id = j.account_id AND t.id = j.turn_id "
            "JOIN sessions s ON s.account_id = t.account_id AND s.id = t.session_id "
            "WHERE j.account_id = $1 AND j.idempotency_key = $2"
        )
        key = target.journal_key
    else:
        return None
    row = await conn.fetchrow(sql + _LOCK, target.account_id, key)
    return None if row is None else (row[0], row[1], int(row[2]))


def fenced(
    body: Callable[[Conn], Awaitable[T]], target: FenceTarget
) -> Callable[[Conn], Awaitable[T]]:
    """``body`` behind the lease fence: the check runs first, in the same transaction, and
    holds the session row until it commits (a takeover's ``FOR UPDATE`` waits for it)."""

    async def guarded(conn: Conn) -> T:
        found = await _fence_row(conn, target)
        if found is not None:  # an unknown row: the body answers NotFound itself
            target.judge(*found)
        return await body(conn)

    return guarded
