"""Session leases: which worker serves a live session, held in three columns of its row.

The store's single writer runs each body whole, so reading the lease and writing it back is
already atomic here; the decision itself is :func:`turnframe.stores.transitions.lease_grant`.
"""

from __future__ import annotations

import sqlite3

import attrs

from turnframe.lifecycle import TurnPhase
from turnframe.stores.errors import NotFound
from turnframe.stores.records import SessionLease, SessionRecord
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_time, load_optional_time, load_time
from turnframe.stores.transitions import lease_grant

# Spelled out (not parameters) so the planner can use the partial index ``turns_unfinished``.
_UNFINISHED = "phase NOT IN ({})".format(
    ", ".join(f"'{phase.value}'" for phase in TurnPhase if phase.is_terminal)
)
_S_COLUMNS = ", ".join(f"s.{c.strip()}" for c in codec.SESSION_COLUMNS.split(","))


def acquire(
    conn: sqlite3.Connection,
    account_id: str,
    session_id: str,
    worker_id: str,
    now: str,
    expires_at: str,
) -> SessionLease | None:
    row = conn.execute(
        "SELECT lease_worker, lease_acquired_at, lease_expires_at, lease_epoch FROM sessions "
        "WHERE account_id = ? AND id = ?",
        (account_id, session_id),
    ).fetchone()
    if row is None:
        raise NotFound("session", session_id)
    granted = lease_grant(
        account_id=account_id,
        session_id=session_id,
        holder=row[0],
        held_since=load_optional_time(row[1]),
        held_until=load_optional_time(row[2]),
        worker_id=worker_id,
        now=load_time(now),
        expires_at=load_time(expires_at),
    )
    if granted is None:
        return None
    renewal = row[0] == worker_id
    epoch = int(row[3]) if renewal else int(row[3]) + 1
    conn.execute(
        "UPDATE sessions SET lease_worker = ?, lease_acquired_at = ?, lease_expires_at = ?, "
        "lease_epoch = ? WHERE account_id = ? AND id = ?",
        (
            worker_id,
            dump_time(granted.acquired_at),
            expires_at,
            epoch,
            account_id,
            session_id,
        ),
    )
    event = "renewed" if renewal else ("taken_over" if granted.taken_over else "acquired")
    log(conn, account_id, session_id, worker_id, epoch, event, now, expires_at, row[0])
    return attrs.evolve(granted, epoch=epoch)


def log(
    conn: sqlite3.Connection,
    account_id: str,
    session_id: str,
    worker_id: str,
    epoch: int,
    event: str,
    at: str,
    expires_at: str | None,
    previous: str | None,
) -> None:
    """One line of the append-only lease log (ADR 0018)."""
    conn.execute(
        "INSERT INTO lease_log (account_id, session_id, worker_id, epoch, event, at, "
        "expires_at, previous_worker) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            account_id,
            session_id,
            worker_id,
            epoch,
            event,
            at,
            expires_at,
            previous if previous != worker_id else None,
        ),
    )


def release(
    conn: sqlite3.Connection, account_id: str, session_id: str, worker_id: str, now: str
) -> bool:
    cur = conn.execute(
        "UPDATE sessions SET lease_worker = NULL, lease_acquired_at = NULL, "
        "lease_expires_at = NULL WHERE account_id = ? AND id = ? AND lease_worker = ? "
        "RETURNING lease_epoch",
        (account_id, session_id, worker_id),
    )
    released = cur.fetchall()
    if released:
        log(conn, account_id, session_id, worker_id, released[0][0], "released", now, None, None)
        return True
    found = conn.execute(
        "SELECT 1 FROM sessions WHERE account_id = ? AND id = ?", (account_id, session_id)
    ).fetchone()
    if found is None:
        raise NotFound("session", session_id)
    return False


def claimable(conn: sqlite3.Connection, now: str, limit: int) -> list[SessionRecord]:
    """Sessions with unfinished turns and no live lease, by their oldest unfinished turn."""
    rows = conn.execute(
        f"SELECT {_S_COLUMNS} FROM sessions s JOIN ("
        f"SELECT account_id, session_id, MIN(rowid) AS oldest FROM turns WHERE {_UNFINISHED} "
        "GROUP BY account_id, session_id"
        ") u ON u.account_id = s.account_id AND u.session_id = s.id "
        "WHERE s.lease_worker IS NULL OR s.lease_expires_at <= ? "
        "ORDER BY u.oldest LIMIT ?",
        (now, limit),
    ).fetchall()
    return [codec.session(row) for row in rows]
