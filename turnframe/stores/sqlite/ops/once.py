"""Insert a write-once row keyed by a turn."""

from __future__ import annotations

import sqlite3

from turnframe.stores.errors import NotFound


def insert_once(
    conn: sqlite3.Connection, sql: str, params: tuple[object, ...], turn_id: str
) -> bool:
    """Run an ``INSERT … ON CONFLICT DO NOTHING`` keyed by a turn: True if it inserted. The
    turn foreign key turns a missing (or another account's) turn into :class:`NotFound`."""
    try:
        return conn.execute(sql, params).rowcount == 1
    except sqlite3.IntegrityError as exc:
        if "FOREIGN KEY" in str(exc):
            raise NotFound("turn", turn_id) from exc
        raise
