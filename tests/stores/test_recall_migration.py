"""Turns written before the recall migration are findable after it (SQLite)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from turnframe.stores import RecallQuery, RecallScope, RecallTerm, SqliteStore
from turnframe.stores.sqlite.schema import MIGRATIONS

#: The migration that brought recall (found by what it creates, whatever its number).
RECALL_VERSION = next(v for v, steps in MIGRATIONS if any("recall_text" in s for s in steps))

pytestmark = pytest.mark.anyio

_RECALL_OBJECTS = [
    ("TRIGGER", "recall_text_of_turn"),
    ("TRIGGER", "recall_text_of_reply"),
    ("TRIGGER", "recall_index_added"),
    ("TRIGGER", "recall_index_removed"),
    ("TRIGGER", "recall_index_rewritten"),
    ("TABLE", "recall_text_fts"),
    ("TABLE", "recall_text"),
    ("TABLE", "recall_index_fts"),
    ("TABLE", "recall_index"),
    ("TABLE", "recall_identifiers"),
]


#: Tables and columns of the migrations after recall's: dropped too, so the file is as it was
#: before it.
_LATER = " ".join(s for v, steps in MIGRATIONS if v > RECALL_VERSION for s in steps)
_LATER_TABLES = re.findall(r"CREATE TABLE (\w+)", _LATER)
_LATER_COLUMNS = re.findall(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", _LATER)
_LATER_INDEXES = re.findall(r"CREATE (?:UNIQUE )?INDEX (\w+)", _LATER)


def _back_to_before_recall(path: Path) -> None:
    conn = sqlite3.connect(path)
    for name in reversed(_LATER_INDEXES):
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    for name in reversed(_LATER_TABLES):
        conn.execute(f"DROP TABLE {name}")
    for table, column in reversed(_LATER_COLUMNS):
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    for kind, name in _RECALL_OBJECTS:
        conn.execute(f"DROP {kind} {name}")
    conn.execute("DELETE FROM schema_version WHERE version >= ?", (RECALL_VERSION,))
    conn.commit()
    conn.close()


async def test_turns_and_replies_written_before_the_recall_migration_are_searchable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    async with SqliteStore.open(path) as store:
        session = await store.create_session(account_id="a", workflow="tickets")
        first = await store.record_user_turn(
            account_id="a", session_id=session.session_id, payload={"text": "the Porto hotel"}
        )
        await store.record_user_turn(
            account_id="a", session_id=session.session_id, payload={"text": "and a ferry"}
        )
        blocks = [{"kind": "text", "code": "x.y.z", "text": "the azulejo museum"}]
        await store.save_assistant_turn("a", first.turn_id, blocks)
    _back_to_before_recall(path)
    async with SqliteStore.open(path) as store:
        def query(word: str, scope: RecallScope) -> RecallQuery:
            return RecallQuery(terms=(RecallTerm(forms=(word,)),), scope=scope)

        spine = await store.find_recall("a", query("porto", RecallScope.SPINE))
        assert [h.session_id for h in spine.hits] == [session.session_id]
        for word in ("ferry", "azulejo"):
            assert (await store.find_recall("a", query(word, RecallScope.SPINE))).hits == ()
            found = await store.find_recall("a", query(word, RecallScope.FULL_TEXT))
            assert [h.session_id for h in found.hits] == [session.session_id]
