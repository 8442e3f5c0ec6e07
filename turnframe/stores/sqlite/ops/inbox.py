"""The turn inbox and worker claims (ADR 0018), and the lease fence every fenced write passes.

The inbox is the ``turns`` table: a submitted turn is a turn in phase ``received``. A claim is
one write transaction (``BEGIN IMMEDIATE`` holds the database, so two processes never claim one
session): it picks sessions with unfinished turns and no live lease, leases them to the worker
under a new epoch and logs each grant.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TypeVar

from turnframe.lifecycle import TurnPhase
from turnframe.stores.fencing import FenceTarget
from turnframe.stores.inbox import LeaseEvent, LeaseLogEntry
from turnframe.stores.records import SessionLease, TurnRecord
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import load_optional_time, load_time
from turnframe.stores.sqlite.ops.leases import log

T = TypeVar("T")

# Spelled out (not parameters) so the planner can use the partial index ``turns_unfinished``.
_UNFINISHED = "phase NOT IN ({})".format(
    ", ".join(f"'{phase.value}'" for phase in TurnPhase if phase.is_terminal)
)


def pending(conn: sqlite3.Connection, account_id: str, session_id: str) -> list[TurnRecord]:
    rows = conn.execute(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = ? AND session_id = ? "
        f"AND {_UNFINISHED} ORDER BY rowid",
        (account_id, session_id),
    ).fetchall()
    return [codec.turn(row) for row in rows]


def claim(
    conn: sqlite3.Connection,
    worker_id: str,
    now: str,
    expires_at: str,
    limit: int,
    workflows: Sequence[str] | None,
) -> list[SessionLease]:
    only = ""
    params: list[object] = [now, worker_id]
    if workflows is not None:
        only = " AND s.workflow IN ({})".format(", ".join("?" for _ in workflows))
        params += list(workflows)
    rows = conn.execute(
        "SELECT s.account_id, s.id, s.lease_worker, s.lease_epoch FROM sessions s JOIN ("
        f"SELECT account_id, session_id, MIN(rowid) AS oldest FROM turns WHERE {_UNFINISHED} "
        "GROUP BY account_id, session_id"
        ") u ON u.account_id = s.account_id AND u.session_id = s.id "
        "WHERE (s.lease_worker IS NULL OR (s.lease_expires_at <= ? AND s.lease_worker <> ?))"
        f"{only} ORDER BY u.oldest LIMIT ?",
        (*params, limit),
    ).fetchall()
    leases = []
    for account_id, session_id, previous, epoch in rows:
        epoch = int(epoch) + 1
        conn.execute(
            "UPDATE sessions SET lease_worker = ?, lease_acquired_at = ?, lease_expires_at = ?, "
            "lease_epoch = ? WHERE account_id = ? AND id = ?",
            (worker_id, now, expires_at, epoch, account_id, session_id),
        )
        event = LeaseEvent.ACQUIRED if previous is None else LeaseEvent.TAKEN_OVER
        log(conn, account_id, session_id, worker_id, epoch, event, now, expires_at, previous)
        leases.append(
            SessionLease(
                account_id=account_id,
                session_id=session_id,
                worker_id=worker_id,
                acquired_at=load_time(now),
                expires_at=load_time(expires_at),
                taken_over=previous is not None,
                previous_worker=previous,
                epoch=epoch,
            )
        )
    return leases


def lease_log(
    conn: sqlite3.Connection, account_id: str | None, session_id: str | None
) -> list[LeaseLogEntry]:
    clauses, params = [], []
    for column, value in (("account_id", account_id), ("session_id", session_id)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = conn.execute(
        "SELECT seq, account_id, session_id, worker_id, epoch, event, at, expires_at, "
        f"previous_worker FROM lease_log{where} ORDER BY seq",
        params,
    ).fetchall()
    return [
        LeaseLogEntry(
            seq=r[0],
            account_id=r[1],
            session_id=r[2],
            worker_id=r[3],
            epoch=r[4],
            event=LeaseEvent(r[5]),
            at=load_time(r[6]),
            expires_at=load_optional_time(r[7]),
            previous_worker=r[8],
        )
        for r in rows
    ]


def _fence_row(conn: sqlite3.Connection, target: FenceTarget) -> tuple[str, str | None, int] | None:
    a = target.account_id
    if target.session_id is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM sessions s "
            "WHERE s.account_id = ? AND s.id = ?"
        )
        key = target.session_id
    elif target.turn_id is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM turns t JOIN sessions s "
            "ON s.account_id = t.account_id AND s.id = t.session_id "
            "WHERE t.account_id = ? AND t.id = ?"
        )
        key = target.turn_id
    elif target.interaction_id is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM interactions i "
            "JOIN turns t ON t.account_id = i.account_id AND t.id = i.turn_id "
            "JOIN sessions s ON s.account_id = t.account_id AND s.id = t.session_id "
            "WHERE i.account_id = ? AND i.id = ?"
        )
        key = target.interaction_id
    elif target.journal_key is not None:
        sql = (
            "SELECT s.id, s.lease_worker, s.lease_epoch FROM journal j "
            "JOIN turns t ON t.account_id = j.account_id AND t.id = j.turn_id "
            "JOIN sessions s ON s.account_id = t.account_id AND s.id = t.session_id "
            "WHERE j.account_id = ? AND j.idempotency_key = ?"
        )
        key = target.journal_key
    else:
        return None
    row = conn.execute(sql, (a, key)).fetchone()
    return None if row is None else (row[0], row[1], int(row[2]))


def fenced(
    body: Callable[[sqlite3.Connection], T], target: FenceTarget
) -> Callable[[sqlite3.Connection], T]:
    """``body`` behind the lease fence: the check runs first, in the same transaction."""

    def guarded(conn: sqlite3.Connection) -> T:
        found = _fence_row(conn, target)
        if found is not None:  # an unknown row: the body answers NotFound itself
            target.judge(*found)
        return body(conn)

    return guarded
