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

from turnframe.lifecycle import TurnPhase
from turnframe.stores.errors import NotFound
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.tx import Conn, row_count
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
        "SELECT lease_worker, lease_acquired_at, lease_expires_at FROM sessions "
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
    await conn.execute(
        "UPDATE sessions SET lease_worker = $1, lease_acquired_at = $2, lease_expires_at = $3 "
        "WHERE account_id = $4 AND id = $5",
        worker_id,
        granted.acquired_at,
        granted.expires_at,
        account_id,
        session_id,
    )
    return granted


async def release(conn: Conn, account_id: str, session_id: str, worker_id: str) -> bool:
    status = await conn.execute(
        "UPDATE sessions SET lease_worker = NULL, lease_acquired_at = NULL, "
        "lease_expires_at = NULL WHERE account_id = $1 AND id = $2 AND lease_worker = $3",
        account_id,
        session_id,
        worker_id,
    )
    if row_count(status) == 1:
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
