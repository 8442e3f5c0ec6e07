"""Recall's full-text rows are indexed in batches (SQLite, ADR 0025), and nothing is ever missed:
a query indexes the backlog first, a crash leaves the backlog durable, a failed batch leaves
nothing half-indexed."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from turnframe.stores import RecallQuery, RecallScope, RecallTerm, SqliteStore
from turnframe.stores.sqlite.store import LOOP_BATCH_CHARS, RECALL_BATCH_WRITES

pytestmark = pytest.mark.anyio

WORDS = ("porto", "ferry", "azulejo", "tram", "pastel")


def query(word: str) -> RecallQuery:
    return RecallQuery(terms=(RecallTerm(forms=(word,)),), scope=RecallScope.FULL_TEXT)


async def write_session(store: SqliteStore) -> str:
    """A session whose turns and replies say each of WORDS once (fewer writes than a batch)."""
    session = await store.create_session(account_id="a", workflow="tickets")
    for n, word in enumerate(WORDS):
        if n % 2:
            turn = await store.record_user_turn(
                account_id="a", session_id=session.session_id, payload={"text": f"about {n}"}
            )
            blocks = [{"kind": "text", "code": "x.y.z", "text": f"the {word} it is"}]
            await store.save_assistant_turn("a", turn.turn_id, blocks)
        else:
            await store.record_user_turn(
                account_id="a", session_id=session.session_id, payload={"text": f"the {word}"}
            )
    return session.session_id


def copy_files(path: Path, to: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{path}{suffix}").exists():
            shutil.copy(f"{path}{suffix}", f"{to}{suffix}")


def backlog(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        through, last = conn.execute(
            "SELECT through, (SELECT MAX(id) FROM recall_text) FROM recall_text_indexed"
        ).fetchone()
        return int(last or 0) - int(through)
    finally:
        conn.close()


def fts_rows(path: Path, word: str) -> int:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT COUNT(*) FROM recall_text_fts WHERE recall_text_fts MATCH ?", (f'"{word}"',)
        ).fetchone()
        return int(row[0])
    finally:
        conn.close()


async def test_turns_not_yet_indexed_when_the_process_stopped_are_found_after_it(
    tmp_path: Path,
) -> None:
    path, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    async with SqliteStore.open(path) as store:
        session_id = await write_session(store)
        # The process stops here: the files as they are now, the WAL included, are the crash.
        copy_files(path, crashed)
    assert backlog(crashed) == len(WORDS) + len(WORDS) // 2  # turns and replies, unindexed
    async with SqliteStore.open(crashed) as store:
        for word in WORDS:
            found = await store.find_recall("a", query(word))
            assert [h.session_id for h in found.hits] == [session_id], word
        counted = await store.count_recall_terms("a", terms=WORDS)
        assert counted.terms == dict.fromkeys(WORDS, 1)
    assert backlog(crashed) == 0


async def test_a_batch_that_fails_midway_leaves_nothing_indexed_and_the_next_query_indexes_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    async with SqliteStore.open(path) as store:
        session_id = await write_session(store)
        # The batch's rows are written, then moving the mark fails: the batch rolls back whole.
        await store._driver.run(
            lambda c: c.execute(
                "CREATE TEMP TRIGGER stop_mid_batch BEFORE UPDATE ON recall_text_indexed "
                "BEGIN SELECT RAISE(ABORT, 'stopped mid-batch'); END"
            )
        )
        with pytest.raises(sqlite3.IntegrityError, match="stopped mid-batch"):
            await store.find_recall("a", query("porto"))
        assert fts_rows(path, "porto") == 0
        await store._driver.run(lambda c: c.execute("DROP TRIGGER temp.stop_mid_batch"))
        for word in WORDS:
            found = await store.find_recall("a", query(word))
            assert [h.session_id for h in found.hits] == [session_id], word
            assert fts_rows(path, word) == 1, word


async def test_writes_index_the_backlog_every_batch_and_a_failing_batch_fails_no_write(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    async with SqliteStore.open(path) as store:
        await store._driver.run(
            lambda c: c.execute(
                "CREATE TEMP TRIGGER stop_mid_batch BEFORE UPDATE ON recall_text_indexed "
                "BEGIN SELECT RAISE(ABORT, 'stopped mid-batch'); END"
            )
        )
        session = await store.create_session(account_id="a", workflow="tickets")
        for n in range(RECALL_BATCH_WRITES + 2):  # every write commits, the batch does not
            await store.record_user_turn(
                account_id="a", session_id=session.session_id, payload={"text": f"stop {n}"}
            )
        assert backlog(path) == RECALL_BATCH_WRITES + 2
        await store._driver.run(lambda c: c.execute("DROP TRIGGER temp.stop_mid_batch"))
        for n in range(RECALL_BATCH_WRITES):
            await store.record_user_turn(
                account_id="a", session_id=session.session_id, payload={"text": f"go {n}"}
            )
        assert backlog(path) < RECALL_BATCH_WRITES  # a write carried the batch
        assert fts_rows(path, "stop") == RECALL_BATCH_WRITES + 2
        counted = await store.count_recall_terms("a", terms=("stop", "go"), exclude_session="x")
        assert counted.terms == {"stop": 1, "go": 1}


async def test_a_long_text_is_left_to_a_batch_on_the_connections_thread_and_is_still_found(
    tmp_path: Path,
) -> None:
    # A batch riding on a write run on the event loop's thread is bounded (ADR 0027): a text
    # longer than it may index waits for the next batch, which goes to the thread.
    path = tmp_path / "store.db"
    long_text = "lisbon " * (LOOP_BATCH_CHARS // 7 + 1)
    async with SqliteStore.open(path) as store:
        session = await store.create_session(account_id="a", workflow="tickets")
        await store.record_user_turn(
            account_id="a", session_id=session.session_id, payload={"text": long_text}
        )
        for n in range(RECALL_BATCH_WRITES):
            await store.record_user_turn(
                account_id="a", session_id=session.session_id, payload={"text": f"short {n}"}
            )
        assert store.traffic().hops == 0  # the batch due rode on a write on the loop
        assert fts_rows(path, "lisbon") == 0  # and left the long text behind
        for n in range(RECALL_BATCH_WRITES):
            await store.record_user_turn(
                account_id="a", session_id=session.session_id, payload={"text": f"more {n}"}
            )
        assert store.traffic().hops >= 1  # the next batch went to the thread, whole
        assert fts_rows(path, "lisbon") == 1
        assert fts_rows(path, "short") == RECALL_BATCH_WRITES
        found = await store.find_recall("a", query("lisbon"))
        assert [h.session_id for h in found.hits] == [session.session_id]
