"""Recall: the derived index entries, their identifiers, and full-text search (FTS5).

Every full-text match is the outer loop of its join (``CROSS JOIN`` fixes SQLite's join order):
left to the planner, it may scan the account's rows and run the match once per row.

A query is one statement: every cue term (with its variants) and identifier contributes the
sessions it reaches (a term at most its ``term_reach`` newest matching rows per source: a word
that common orders nothing), each (session, term) counted once with the term's weight; the best
``limit`` sessions by score (ties: the newest id first) come back with every place they
matched. Spine scope reads index entries, identifiers and first user turns; full-text scope
adds every later turn and every reply. A term's reach counts the rows it reads, whatever their
part (so a spine-scope query reads as few rows as a full-text one: the bound is on work), and
the scope then keeps the parts it searches. The sessions the query excludes (the current one,
those the user turned down) are left out before the reach, so they spend none of it; recall
turns and replies holding recall blocks are left out of the text rows after it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from turnframe.stores.recall import (
    NewRecallEntry,
    RecallCounts,
    RecallEntryRecord,
    RecallFound,
    RecallHit,
    RecallQuery,
    RecallRecord,
    RecallScope,
)
from turnframe.stores.recall_rows import collect_hits
from turnframe.stores.records import SessionRecord
from turnframe.stores.rows import dump_json, load_json
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.ops import turns

T = TypeVar("T")

_S_COLUMNS = ", ".join(f"s.{c.strip()}" for c in codec.SESSION_COLUMNS.split(","))
_ENTRY_COLUMNS = "account_id, session_id, entry, indexed_through, writer_version, written_at"


#: The backlog's text rows between two ids, in order, each with the turn (``t``) and, for a
#: reply, the assistant turn (``a``) its words come from.
_BACKLOG_ROWS = (
    "FROM recall_text r JOIN turns t ON t.account_id = r.account_id AND t.id = r.turn_id "
    "LEFT JOIN assistant_turns a ON r.part = 'reply' AND a.account_id = r.account_id "
    "AND a.turn_id = r.turn_id WHERE r.id > ? AND r.id <= ? ORDER BY r.id"
)

#: The backlog's FTS5 rows: each text row's words, as the triggers of migration 4 wrote them (a
#: user turn's text; a reply's block texts; both are write-once).
_INDEX_BACKLOG = (
    "INSERT INTO recall_text_fts (rowid, words) SELECT r.id, CASE WHEN r.part = 'reply' THEN "
    "coalesce((SELECT group_concat(json_extract(b.value, '$.text'), ' ') "
    "FROM json_each(a.blocks) b), '') ELSE coalesce(json_extract(t.payload, '$.text'), '') END "
    + _BACKLOG_ROWS
)

#: Text rows written since the last batch was indexed (rows are never deleted, and a new row's
#: id is above every stored one, so the mark divides indexed from not yet indexed).
_BACKLOG = "SELECT through, (SELECT MAX(id) FROM recall_text) FROM recall_text_indexed"

#: The backlog's first rows in order, each with the length of the stored JSON its words come
#: from (at least as long as the words): what a bounded batch weighs before it indexes.
_BACKLOG_SIZES = (
    "SELECT r.id, CASE WHEN r.part = 'reply' THEN coalesce(length(a.blocks), 0) "
    "ELSE coalesce(length(t.payload), 0) END " + _BACKLOG_ROWS + " LIMIT ?"
)


class Backlog:
    """A bound on one batch, for a batch that rides on a write run on the event loop's thread
    (ADR 0027): at most ``rows`` text rows holding at most ``chars`` characters of stored JSON.
    ``left`` is set when the batch had to leave rows behind (the store then sends the next
    batch to the connection's thread, unbounded)."""

    __slots__ = ("chars", "left", "rows")

    def __init__(self, *, rows: int, chars: int) -> None:
        self.rows = rows
        self.chars = chars
        self.left = False


def index_backlog(conn: sqlite3.Connection, bound: Backlog | None = None) -> int:
    """Index the text rows written since the last batch (within ``bound``, when given), and
    move the mark, in the caller's write transaction (both or neither). Answers how many rows
    it indexed."""
    through, last = conn.execute(_BACKLOG).fetchone()
    if last is None or last <= through:
        return 0
    if bound is not None:
        upto, chars = through, 0
        for row_id, size in conn.execute(_BACKLOG_SIZES, (through, last, bound.rows)):
            chars += size
            if chars > bound.chars:
                break
            upto = row_id
        bound.left = upto < last
        if upto <= through:
            return 0
        last = upto
    conn.execute(_INDEX_BACKLOG, (through, last))
    conn.execute("UPDATE recall_text_indexed SET through = ?", (last,))
    return int(last - through)


def index_before_reading(conn: sqlite3.Connection) -> None:
    """Before a full-text query (outside any transaction): index the backlog, if there is one,
    in a write transaction of its own, so the query finds every row written so far."""
    if conn.in_transaction:  # a caller's write transaction: the batch is part of it
        index_backlog(conn)
        return
    through, last = conn.execute(_BACKLOG).fetchone()
    if last is None or last <= through:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        index_backlog(conn)
    except BaseException:
        _roll_back(conn)
        raise
    conn.execute("COMMIT")


def _roll_back(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # (SQLite may have rolled it back already)
        conn.execute("ROLLBACK")


def indexing_after(
    body: Callable[[sqlite3.Connection], T], bound: Backlog | None = None
) -> Callable[[sqlite3.Connection], T]:
    """``body``, then the backlog (within ``bound``, when given) indexed in the same
    transaction, inside a savepoint: a batch that fails is rolled back alone (the next batch or
    query indexes those rows) and never fails the transaction it rides on."""

    def with_batch(conn: sqlite3.Connection) -> T:
        result = body(conn)
        conn.execute("SAVEPOINT turnframe_recall_batch")
        try:
            index_backlog(conn, bound)
        except Exception:
            if not conn.in_transaction:
                raise  # SQLite rolled the whole transaction back: it failed, batch or not
            conn.execute("ROLLBACK TO turnframe_recall_batch")
        conn.execute("RELEASE turnframe_recall_batch")
        return result

    return with_batch


def match_expression(forms: Sequence[str]) -> str:
    """An FTS5 query for any of ``forms`` (each a plain word, quoted so none is read as an
    operator or column name)."""
    return " OR ".join(f'"{form}"' for form in forms)


def write_entry(conn: sqlite3.Connection, account_id: str, new: NewRecallEntry, now: str) -> None:
    conn.execute(
        "INSERT INTO recall_index (account_id, session_id, entry, terms, indexed_through, "
        "writer_version, written_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (account_id, session_id) DO UPDATE SET entry = excluded.entry, "
        "terms = excluded.terms, indexed_through = excluded.indexed_through, "
        "writer_version = excluded.writer_version, written_at = excluded.written_at",
        (
            account_id,
            new.session_id,
            dump_json(new.entry),
            new.terms,
            new.indexed_through,
            new.writer_version,
            now,
        ),
    )
    conn.execute(
        "DELETE FROM recall_identifiers WHERE account_id = ? AND session_id = ?",
        (account_id, new.session_id),
    )
    conn.executemany(
        "INSERT INTO recall_identifiers (account_id, literal, session_id, namespace) "
        "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [(account_id, i.literal, new.session_id, i.namespace) for i in new.identifiers],
    )


def entries(
    conn: sqlite3.Connection, account_id: str, session_ids: Sequence[str]
) -> list[RecallEntryRecord]:
    if not session_ids:
        return []
    marks = ", ".join("?" for _ in session_ids)
    rows = conn.execute(
        f"SELECT {_ENTRY_COLUMNS} FROM recall_index WHERE account_id = ? "
        f"AND session_id IN ({marks}) ORDER BY id",
        (account_id, *session_ids),
    ).fetchall()
    return [
        RecallEntryRecord(
            account_id=r[0],
            session_id=r[1],
            entry=load_json(r[2]),
            indexed_through=r[3],
            writer_version=r[4],
            written_at=codec.load_time(r[5]),
        )
        for r in rows
    ]


def backlog(
    conn: sqlite3.Connection, account_id: str, writer_version: int, everything: bool, limit: int
) -> list[SessionRecord]:
    stale = "" if everything else (
        " AND (r.id IS NULL OR r.indexed_through IS NOT s.last_turn_id "
        "OR r.writer_version < ?)"
    )
    params: tuple[Any, ...] = (account_id,) if everything else (account_id, writer_version)
    rows = conn.execute(
        f"SELECT {_S_COLUMNS} FROM sessions s LEFT JOIN recall_index r "
        "ON r.account_id = s.account_id AND r.session_id = s.id "
        f"WHERE s.account_id = ? AND s.last_turn_id IS NOT NULL{stale} "
        "ORDER BY s.rowid LIMIT ?",
        (*params, limit),
    ).fetchall()
    return [codec.session(r) for r in rows]


def _text_parts(scope: RecallScope) -> str:
    return "'spine'" if scope is RecallScope.SPINE else "'spine', 'body', 'reply'"


def find(conn: sqlite3.Connection, account_id: str, query: RecallQuery) -> RecallFound:
    hits: tuple[RecallHit, ...] = ()
    if query.terms:
        index_before_reading(conn)
    if query.terms or query.identifiers:
        sql, params = find_statement(account_id, query)
        rows = conn.execute(sql, params).fetchall()
        hits = collect_hits(
            rows, query, time=codec.load_optional_time, started=codec.load_optional_time
        )
    if hits and not query.coverage:
        return RecallFound(hits=hits)
    sessions, indexed = conn.execute(
        "SELECT (SELECT COUNT(*) FROM sessions WHERE account_id = ?), "
        "(SELECT COUNT(*) FROM recall_index WHERE account_id = ?)",
        (account_id, account_id),
    ).fetchone()
    return RecallFound(hits=hits, sessions=sessions, indexed=indexed)


#: A text row the query leaves out: a recall turn (its reply holds a recall block answering one
#: of its acts) or a reply holding a recall block (a presentation quotes other sessions), except
#: the turn-level "withdrawn" of a turn that moved on (that turn is the conversation itself).
#: ``instr`` first: most replies hold no recall block, and it spares them the JSON walk.
_RECALL_ROW = (
    "EXISTS (SELECT 1 FROM assistant_turns a WHERE a.account_id = ? AND a.turn_id = h.turn_id "
    "AND instr(a.blocks, 'turnframe.recall.') > 0 AND EXISTS (SELECT 1 FROM json_each(a.blocks) b "
    "WHERE json_extract(b.value, '$.code') LIKE 'turnframe.recall.%' "
    "AND (json_array_length(b.value, '$.acts') > 0 OR (h.source = 'reply' "
    "AND json_extract(b.value, '$.code') <> 'turnframe.recall.withdrawn'))))"
)


def find_statement(account_id: str, query: RecallQuery) -> tuple[str, list[Any]]:
    """The one statement of a query (the benchmark runs it raw as its baseline)."""
    selects: list[str] = []
    params: list[Any] = []
    marks = ", ".join("?" for _ in query.exclude_sessions)
    excluded = list(query.exclude_sessions)

    def others(column: str) -> str:
        return f" AND {column} NOT IN ({marks})" if marks else ""

    for number, term in enumerate(query.terms):
        match = match_expression(term.forms)
        selects.append(
            "SELECT * FROM (SELECT r.session_id, ?, 'index', NULL, ? FROM recall_index_fts "
            "CROSS JOIN recall_index r ON r.id = recall_index_fts.rowid "
            f"WHERE recall_index_fts MATCH ? AND r.account_id = ?{others('r.session_id')} "
            "ORDER BY recall_index_fts.rowid DESC LIMIT ?)"
        )
        params += [number, term.weight, match, account_id, *excluded, query.term_reach]
        selects.append(
            "SELECT * FROM (SELECT t.session_id AS session_id, ? AS term, t.part AS source, "
            "t.turn_id AS turn_id, ? AS weight FROM recall_text_fts "
            "CROSS JOIN recall_text t ON t.id = recall_text_fts.rowid "
            f"WHERE recall_text_fts MATCH ? AND t.account_id = ?{others('t.session_id')} "
            "ORDER BY recall_text_fts.rowid DESC LIMIT ?) h "
            f"WHERE h.source IN ({_text_parts(query.scope)}) AND NOT {_RECALL_ROW}"
        )
        params += [number, term.weight, match, account_id, *excluded, query.term_reach]
        params += [account_id]
    base = len(query.terms)
    for offset, literal in enumerate(query.identifiers):
        selects.append(
            "SELECT session_id, ?, 'identifier', NULL, ? FROM recall_identifiers "
            f"WHERE account_id = ? AND literal = ?{others('session_id')}"
        )
        params += [base + offset, query.identifier_weight, account_id, literal, *excluded]
    sql = (
        "WITH hits (session_id, term, source, turn_id, weight) AS MATERIALIZED ("
        + " UNION ALL ".join(selects)
        + "), top AS (SELECT session_id, SUM(weight) AS score FROM "
        "(SELECT DISTINCT session_id, term, weight FROM hits) "
        "GROUP BY session_id "
        "ORDER BY score DESC, session_id DESC LIMIT ?) "
        "SELECT h.session_id, top.score, h.term, h.source, h.turn_id, s.workflow, s.created_at, "
        "lt.created_at FROM hits h JOIN top ON top.session_id = h.session_id "
        "LEFT JOIN sessions s ON s.account_id = ? AND s.id = h.session_id "
        "LEFT JOIN turns lt ON lt.account_id = s.account_id AND lt.id = s.last_turn_id "
        "ORDER BY top.score DESC, h.session_id DESC, h.turn_id"
    )
    params += [query.limit, account_id]
    return sql, params


def counts(
    conn: sqlite3.Connection,
    account_id: str,
    terms: Sequence[str],
    identifiers: Sequence[str],
    exclude_session: str | None,
    upto: int | None,
) -> RecallCounts:
    other = exclude_session or ""
    if terms:
        index_before_reading(conn)
    found_terms: dict[str, int] = {}
    for term in dict.fromkeys(terms):
        row = conn.execute(
            "SELECT COUNT(*) FROM (SELECT DISTINCT t.session_id FROM recall_text_fts "
            "CROSS JOIN recall_text t ON t.id = recall_text_fts.rowid "
            "WHERE recall_text_fts MATCH ? AND t.account_id = ? AND t.session_id <> ? LIMIT ?)",
            (match_expression((term,)), account_id, other, -1 if upto is None else upto),
        ).fetchone()
        found_terms[term] = int(row[0])
    found_ids: dict[str, int] = dict.fromkeys(identifiers, 0)
    if identifiers:
        marks = ", ".join("?" for _ in found_ids)
        for literal, n in conn.execute(
            "SELECT literal, COUNT(*) FROM recall_identifiers WHERE account_id = ? "
            f"AND session_id <> ? AND literal IN ({marks}) GROUP BY literal",
            (account_id, other, *found_ids),
        ).fetchall():
            found_ids[literal] = int(n)
    return RecallCounts(terms=found_terms, identifiers=found_ids)


def record(conn: sqlite3.Connection, account_id: str, session_id: str) -> RecallRecord | None:
    session = turns.get_session(conn, account_id, session_id)
    if session is None:
        return None
    stored = turns.list_session_turns(conn, account_id, session_id)
    replies = conn.execute(
        "SELECT a.turn_id, a.blocks FROM assistant_turns a JOIN turns t "
        "ON t.account_id = a.account_id AND t.id = a.turn_id "
        "WHERE t.account_id = ? AND t.session_id = ?",
        (account_id, session_id),
    ).fetchall()
    return RecallRecord(
        session=session,
        turns=tuple(stored),
        replies={turn_id: load_json(blocks) for turn_id, blocks in replies},
    )
