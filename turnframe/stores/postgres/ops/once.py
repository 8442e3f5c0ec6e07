"""Insert a write-once row keyed by a turn."""

from __future__ import annotations

import asyncpg

from turnframe.stores.errors import NotFound
from turnframe.stores.postgres.tx import Conn, Row


async def insert_returning_once(conn: Conn, sql: str, turn_id: str, *params: object) -> Row | None:
    """Run an ``INSERT … ON CONFLICT DO NOTHING RETURNING …`` keyed by a turn: the row if it
    inserted, None if the key was taken. The turn foreign key turns a missing (or another
    account's) turn into :class:`NotFound`."""
    try:
        return await conn.fetchrow(sql, *params)
    except asyncpg.exceptions.ForeignKeyViolationError as exc:
        raise NotFound("turn", turn_id) from exc
