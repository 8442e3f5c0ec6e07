"""A hot case: a turn that is reduced but not sealed gets a fresh reduction (ADR 0018).

Before the seal nothing has executed, so a reduction made on a case revision that another turn
has since moved may be replaced by one reduced again from the same plan. Only in phase
``reduced``, only with no journal entry (the seal has not happened), and only over the
reduction the caller read (compare-and-swap on the payload).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from turnframe.lifecycle import TurnPhase
from turnframe.stores.contention import CaseContended, CaseGuard
from turnframe.stores.errors import NotFound, PhaseConflict, StatusConflict
from turnframe.stores.records import Json, TurnRecord
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_json, load_json

T = TypeVar("T")


def renew_reduction(
    conn: sqlite3.Connection, account_id: str, turn_id: str, expected: Json, reduction: Json
) -> TurnRecord:
    row = conn.execute(
        "SELECT phase, reduction FROM turns WHERE account_id = ? AND id = ?", (account_id, turn_id)
    ).fetchone()
    if row is None:
        raise NotFound("turn", turn_id)
    if row[0] != TurnPhase.REDUCED.value:
        raise PhaseConflict(turn_id, TurnPhase.REDUCED.value, row[0])
    sealed = conn.execute(
        "SELECT 1 FROM journal WHERE account_id = ? AND turn_id = ? LIMIT 1", (account_id, turn_id)
    ).fetchone()
    if sealed is not None or row[1] is None or load_json(row[1]) != expected:
        raise StatusConflict("reduction of turn", turn_id, "unsealed and as read", "changed")
    conn.execute(
        "UPDATE turns SET reduction = ? WHERE account_id = ? AND id = ?",
        (dump_json(reduction), account_id, turn_id),
    )
    found = conn.execute(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = ? AND id = ?",
        (account_id, turn_id),
    ).fetchone()
    return codec.turn(found)


def check_guard(conn: sqlite3.Connection, guard: CaseGuard, now: str) -> None:
    """Raise :class:`CaseContended` unless every guarded case is at its expected revision and
    free of other turns (no live claim, no unsettled admitted command)."""
    a, turn_id = guard.account_id, guard.turn_id
    for case_id, revision in guard.expectations:
        claimed = conn.execute(
            "SELECT 1 FROM case_claims WHERE account_id = ? AND case_id = ? AND turn_id <> ? "
            "AND expires_at > ?",
            (a, case_id, turn_id, now),
        ).fetchone()
        busy = claimed is not None or (
            conn.execute(
                "SELECT 1 FROM journal WHERE account_id = ? AND case_id = ? AND turn_id <> ? "
                "AND status IN ('pending', 'executing') LIMIT 1",
                (a, case_id, turn_id),
            ).fetchone()
            is not None
        )
        if busy:
            raise CaseContended(turn_id, case_id, busy=True)
        row = conn.execute(
            "SELECT revision FROM cases WHERE account_id = ? AND id = ?", (a, case_id)
        ).fetchone()
        if (0 if row is None else int(row[0])) != revision:
            raise CaseContended(turn_id, case_id, busy=False)


def guarded(
    body: Callable[[sqlite3.Connection], T], guard: CaseGuard, now: str
) -> Callable[[sqlite3.Connection], T]:
    def run(conn: sqlite3.Connection) -> T:
        check_guard(conn, guard, now)
        return body(conn)

    return run


def claim_case(
    conn: sqlite3.Connection,
    account_id: str,
    case_id: str,
    turn_id: str,
    now: str,
    expires_at: str,
) -> bool:
    """Hold the case for ``turn_id`` (a fresh claim, a renewal, or one whose holder lapsed);
    False while another turn's claim is live."""
    cur = conn.execute(
        "INSERT INTO case_claims (account_id, case_id, turn_id, expires_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (account_id, case_id) DO UPDATE SET turn_id = excluded.turn_id, "
        "expires_at = excluded.expires_at "
        "WHERE case_claims.turn_id = excluded.turn_id OR case_claims.expires_at <= ?",
        (account_id, case_id, turn_id, expires_at, now),
    )
    return cur.rowcount == 1


def release_case_claims(conn: sqlite3.Connection, account_id: str, turn_id: str) -> None:
    conn.execute(
        "DELETE FROM case_claims WHERE account_id = ? AND turn_id = ?", (account_id, turn_id)
    )
