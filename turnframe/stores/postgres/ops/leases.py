"""Session leases: which worker serves a live session, held in three columns of its row.

Many workers on many machines lease from one table. Acquiring locks the session row
(``SELECT … FOR UPDATE``) before deciding, so two workers racing for one session queue on the
row and the second sees the first's lease: exactly one wins. The decision itself is
:func:`turnframe.stores.transitions.lease_grant`, shared with the SQLite store. The scan for
claimable sessions locks what it returns with ``FOR UPDATE SKIP LOCKED``: it passes by sessions
being acquired (or scanned) at that moment instead of queueing behind them.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from turnframe.lifecycle import TurnPhase
from turnframe.stores.errors import NotFound
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.tx import Conn
from turnframe.stores.records import SessionLease, SessionRecord
from turnframe.stores.transitions import lease_grant

# Spelled out (not a parameter) so the planner can use the partial index ``turns_unfinished``.
_UNFINISHED = "phase NOT IN ({})".format(
    ", ".join(f"'{phase.value}'" for phase in TurnPhase if phase.is_terminal)
)
_S_COLUMNS = ", ".join(f"s.{c.strip()}" for c in codec.SESSION_COLUMNS.split(","))


async def acquire(
    conn: Conn,
    account_id: str,
    session_id: str,
    worker_id: str,
    now: datetime,
    expires_at: datetime,
) -> SessionLease | None:
    row = await conn.fetchrow(
        "SELECT lease_worker, lease_acquired_at, lease_expires_at, lease_epoch FROM sessions "
        "WHERE account_id = $1 AND id = $2 FOR UPDATE",
        account_id,
        session_id,
    )
    if row is None:
        raise NotFound("session", session_id)
    granted = lease_grant(
        account_id=account_id,
        session_id=session_id,
        holder=row[0],
        held_since=row[1],
        held_until=row[2],
        worker_id=worker_id,
        now=now,
        expires_at=expires_at,
    )
    if granted is None:
        return None
    renewal = row[0] == worker_id
    epoch = int(row[3]) if renewal else int(row[3]) + 1
    await conn.execute(
        "UPDATE sessions SET lease_worker = $1, lease_acquired_at = $2, lease_expires_at = $3, "
        "lease_epoch = $4 WHERE account_id = $5 AND id = $6",
        worker_id,
        granted.acquired_at,
        granted.expires_at,
        epoch,
        account_id,
        session_id,
    )
    event = "renewed" if renewal else ("taken_over" if granted.taken_over else "acquired")
    await log(conn, account_id, session_id, worker_id, epoch, event, now, expires_at, row[0])
    return attrs.evolve(granted, epoch=epoch)


async def log(
    conn: Conn,
    account_id: str,
    session_id: str,
    worker_id: str,
    epoch: int,
    event: str,
    at: datetime,
    expires_at: datetime | None,
    previous: str | None,
) -> None:
    """One line of the append-only lease log (ADR 0018)."""
    await conn.execute(
        "INSERT INTO lease_log (account_id, session_id, worker_id, epoch, event, at, "
        "expires_at, previous_worker) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        account_id,
        session_id,
        worker_id,
        epoch,
        event,
        at,
        expires_at,
        previous if previous != worker_id else None,
    )


async def release(
    conn: Conn, account_id: str, session_id: str, worker_id: str, now: datetime
) -> bool:
    epoch = await conn.fetchval(
        "UPDATE sessions SET lease_worker = NULL, lease_acquired_at = NULL, "
        "lease_expires_at = NULL WHERE account_id = $1 AND id = $2 AND lease_worker = $3 "
        "RETURNING lease_epoch",
        account_id,
        session_id,
        worker_id,
    )
    if epoch is not None:
        await log(conn, account_id, session_id, worker_id, epoch, "released", now, None, None)
        return True
    found = await conn.fetchval(
        "SELECT 1 FROM sessions WHERE account_id = $1 AND id = $2", account_id, session_id
    )
    if found is None:
        raise NotFound("session", session_id)
    return False


async def claimable(conn: Conn, now: datetime, limit: int) -> list[SessionRecord]:
    """Sessions with unfinished turns and no live lease, by their oldest unfinished turn,
    locked (``SKIP LOCKED``) until the caller's transaction ends."""
    rows = await conn.fetch(
        f"SELECT {_S_COLUMNS} FROM sessions s JOIN ("
        f"SELECT account_id, session_id, MIN(pos) AS oldest FROM turns WHERE {_UNFINISHED} "
        "GROUP BY account_id, session_id"
        ") u ON u.account_id = s.account_id AND u.session_id = s.id "
        "WHERE s.lease_worker IS NULL OR s.lease_expires_at <= $1 "
        "ORDER BY u.oldest LIMIT $2 FOR UPDATE OF s SKIP LOCKED",
        now,
        limit,
    )
    return [codec.session(row) for row in rows]
