"""A hot case: a turn that is reduced but not sealed gets a fresh reduction (ADR 0018).

Before the seal nothing has executed, so a reduction made on a case revision that another turn
has since moved may be replaced by one reduced again from the same plan. Only in phase
``reduced``, only with no journal entry (the seal has not happened; the turn row is locked, as
admission locks it), and only over the reduction the caller read (compare-and-swap).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TypeVar

import asyncpg

from turnframe.lifecycle import TurnPhase
from turnframe.stores.contention import CaseContended, CaseGuard
from turnframe.stores.errors import NotFound, PhaseConflict, StatusConflict
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, load_json
from turnframe.stores.postgres.tx import Conn
from turnframe.stores.records import Json, TurnRecord

T = TypeVar("T")


async def renew_reduction(
    conn: Conn, account_id: str, turn_id: str, expected: Json, reduction: Json
) -> TurnRecord:
    row = await conn.fetchrow(
        "SELECT phase, reduction FROM turns WHERE account_id = $1 AND id = $2 FOR UPDATE",
        account_id,
        turn_id,
    )
    if row is None:
        raise NotFound("turn", turn_id)
    if row[0] != TurnPhase.REDUCED.value:
        raise PhaseConflict(turn_id, TurnPhase.REDUCED.value, row[0])
    sealed = await conn.fetchval(
        "SELECT 1 FROM journal WHERE account_id = $1 AND turn_id = $2 LIMIT 1", account_id, turn_id
    )
    if sealed is not None or row[1] is None or load_json(row[1]) != expected:
        raise StatusConflict("reduction of turn", turn_id, "unsealed and as read", "changed")
    found = await conn.fetchrow(
        f"UPDATE turns SET reduction = $1 WHERE account_id = $2 AND id = $3 "
        f"RETURNING {codec.TURN_COLUMNS}",
        dump_json(reduction),
        account_id,
        turn_id,
    )
    assert found is not None
    return codec.turn(found)


async def check_guard(conn: Conn, guard: CaseGuard, now: datetime) -> None:
    """Raise :class:`CaseContended` unless every guarded case is at its expected revision and
    free of other turns. The case row is locked (``FOR NO KEY UPDATE NOWAIT``) first, in a
    statement of its own, so two turns sealing on one case check one after the other and the
    second's next statement (a fresh snapshot) sees the first's commands; a row locked by
    another turn is a busy case at once."""
    a, turn_id = guard.account_id, guard.turn_id
    for case_id, revision in guard.expectations:
        try:
            current = await conn.fetchval(
                "SELECT revision FROM cases WHERE account_id = $1 AND id = $2 "
                "FOR NO KEY UPDATE NOWAIT",
                a,
                case_id,
            )
        except asyncpg.exceptions.LockNotAvailableError:
            # Another turn is sealing or committing on the case right now: answer at once
            # (the turn waits outside any transaction) instead of queueing on the row while
            # holding its own session's row, which its lease renewal needs.
            raise CaseContended(turn_id, case_id, busy=True) from None
        busy = await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM case_claims WHERE account_id = $1 AND case_id = $2 "
            "AND turn_id <> $3 AND expires_at > $4) OR EXISTS (SELECT 1 FROM journal "
            "WHERE account_id = $1 AND case_id = $2 AND turn_id <> $3 "
            "AND status IN ('pending', 'executing'))",
            a,
            case_id,
            turn_id,
            now,
        )
        if busy:
            raise CaseContended(turn_id, case_id, busy=True)
        if (0 if current is None else int(current)) != revision:
            raise CaseContended(turn_id, case_id, busy=False)


def guarded(
    body: Callable[[Conn], Awaitable[T]], guard: CaseGuard, now: datetime
) -> Callable[[Conn], Awaitable[T]]:
    async def run(conn: Conn) -> T:
        await check_guard(conn, guard, now)
        return await body(conn)

    return run


async def claim_case(
    conn: Conn, account_id: str, case_id: str, turn_id: str, now: datetime, expires_at: datetime
) -> bool:
    """Hold the case for ``turn_id`` (a fresh claim, a renewal, or one whose holder lapsed);
    False while another turn's claim is live."""
    status = await conn.execute(
        "INSERT INTO case_claims (account_id, case_id, turn_id, expires_at) "
        "VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, case_id) DO UPDATE SET "
        "turn_id = EXCLUDED.turn_id, expires_at = EXCLUDED.expires_at "
        "WHERE case_claims.turn_id = EXCLUDED.turn_id OR case_claims.expires_at <= $5",
        account_id,
        case_id,
        turn_id,
        expires_at,
        now,
    )
    return status.endswith(" 1")


async def release_case_claims(conn: Conn, account_id: str, turn_id: str) -> None:
    await conn.execute(
        "DELETE FROM case_claims WHERE account_id = $1 AND turn_id = $2", account_id, turn_id
    )
