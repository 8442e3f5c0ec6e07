"""How values become PostgreSQL parameters and rows become records.

JSON payloads go into ``json`` columns (not ``jsonb``): PostgreSQL keeps a ``json`` value's text
as given, so key order and bytes survive a reload, as in the SQLite store (the same
``dump_json``). Instants are ``timestamptz``; asyncpg hands back aware UTC datetimes.
Every table has a ``pos`` identity column so lists come back in insertion order.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from turnframe.stores.records import Json
from turnframe.stores.rows import (
    ASSISTANT_COLUMNS,
    CASE_COLUMNS,
    EVENT_COLUMNS,
    INTERACTION_COLUMNS,
    JOURNAL_COLUMNS,
    OUTBOX_COLUMNS,
    SESSION_COLUMNS,
    TURN_COLUMNS,
    RowReader,
    dump_json,
    load_json,
    same_content,
)


def instant(value: datetime) -> datetime:
    """An instant for a ``timestamptz`` parameter; a naive datetime is refused, not guessed."""
    if value.utcoffset() is None:
        raise ValueError(f"instants must be timezone-aware, got {value!r}")
    return value


def optional_json(value: Json | None) -> str | None:
    return None if value is None else dump_json(value)


_BIGINT = 2**63


def sendable(params: Iterable[object]) -> bool:
    """Whether PostgreSQL takes every one of ``params`` as it is: integers within ``bigint``,
    text without NUL. A statement folding several writes sends its values only then, so a
    value PostgreSQL refuses is refused where the one-by-one statements would meet it."""
    for value in params:
        if type(value) is int and not -_BIGINT <= value < _BIGINT:
            return False
        if type(value) is str and "\x00" in value:
            return False
    return True


def _as_given(value: Any) -> Any:
    return value  # asyncpg returns timestamptz as aware datetimes already


_rows = RowReader(_as_given, _as_given)
session = _rows.session
turn = _rows.turn
interaction = _rows.interaction
journal = _rows.journal
case = _rows.case
event = _rows.event
outbox = _rows.outbox
assistant_turn = _rows.assistant_turn

__all__ = [
    "ASSISTANT_COLUMNS",
    "CASE_COLUMNS",
    "EVENT_COLUMNS",
    "INTERACTION_COLUMNS",
    "JOURNAL_COLUMNS",
    "OUTBOX_COLUMNS",
    "SESSION_COLUMNS",
    "TURN_COLUMNS",
    "dump_json",
    "instant",
    "load_json",
    "optional_json",
    "same_content",
]
