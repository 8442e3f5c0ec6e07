"""How values become SQLite columns and rows become records.

JSON payloads are stored as given (key order kept, no whitespace), so a payload reads back equal
and re-serialises to the same bytes. Instants are stored as fixed-width UTC ISO 8601 text, so
text order is time order and comparisons can happen in SQL.
"""

from __future__ import annotations

from datetime import UTC, datetime

from turnframe.stores.rows import (
    ASSISTANT_COLUMNS,
    CASE_COLUMNS,
    EVENT_COLUMNS,
    INTERACTION_COLUMNS,
    JOURNAL_COLUMNS,
    NOT_GIVEN,
    OUTBOX_COLUMNS,
    SESSION_COLUMNS,
    TURN_COLUMNS,
    Row,
    RowReader,
    dump_json,
    load_json,
    same_content,
)


def dump_time(value: datetime) -> str:
    if value.utcoffset() is None:
        raise ValueError(f"instants must be timezone-aware, got {value!r}")
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def load_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def load_optional_time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


_rows = RowReader(load_time, load_optional_time)
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
    "NOT_GIVEN",
    "OUTBOX_COLUMNS",
    "SESSION_COLUMNS",
    "TURN_COLUMNS",
    "Row",
    "dump_json",
    "dump_time",
    "load_json",
    "load_optional_time",
    "load_time",
    "same_content",
]
