"""Recall: the derived index entries, their identifiers, and full-text search (tsvector).

The same statements as the SQLite store's (``turnframe.stores.sqlite.ops.recall``), with a
``tsquery`` where FTS5 has ``MATCH``: every cue term and identifier contributes the sessions it
reaches, each (session, term) counted once with its weight; the best ``limit`` sessions by score
(ties: the newest id first, compared byte-wise as SQLite does) come back with every place they
matched. A term reaches at most its ``term_reach`` newest matching rows per source, in the
order rows were written (``pos``, as SQLite's rowid), whatever their part (the scope keeps its
parts after the reach). The excluded sessions are left out before the reach, recall turns and
replies holding recall blocks out of the text rows after it, as on SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, load_json
from turnframe.stores.postgres.ops import turns
from turnframe.stores.postgres.tx import Conn
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

_S_COLUMNS = ", ".join(f"s.{c.strip()}" for c in codec.SESSION_COLUMNS.split(","))
_ENTRY_COLUMNS = "account_id, session_id, entry, indexed_through, writer_version, written_at"


def match_expression(forms: Sequence[str]) -> str:
    """A ``tsquery`` for any of ``forms`` (plain words: nothing in them is an operator)."""
    return " | ".join(forms)


class _Params:
    """Positional ``$n`` parameters, numbered as they are added."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def __call__(self, value: Any) -> str:
        self.values.append(value)
        return f"${len(self.values)}"


async def write_entry(conn: Conn, account_id: str, new: NewRecallEntry, now: datetime) -> None:
    await conn.execute(
        "INSERT INTO recall_index (account_id, session_id, entry, terms, indexed_through, "
        "writer_version, written_at) VALUES ($1, $2, $3, to_tsvector('simple', $4), $5, $6, $7) "
        "ON CONFLICT (account_id, session_id) DO UPDATE SET entry = excluded.entry, "
        "terms = excluded.terms, indexed_through = excluded.indexed_through, "
        "writer_version = excluded.writer_version, written_at = excluded.written_at",
        account_id,
        new.session_id,
        dump_json(new.entry),
        new.terms,
        new.indexed_through,
        new.writer_version,
        now,
    )
    await conn.execute(
        "DELETE FROM recall_identifiers WHERE account_id = $1 AND session_id = $2",
        account_id,
        new.session_id,
    )
    for identifier in new.identifiers:
        await conn.execute(
            "INSERT INTO recall_identifiers (account_id, literal, session_id, namespace) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            account_id,
            identifier.literal,
            new.session_id,
            identifier.namespace,
        )


async def entries(
    conn: Conn, account_id: str, session_ids: Sequence[str]
) -> list[RecallEntryRecord]:
    if not session_ids:
        return []
    rows = await conn.fetch(
        f"SELECT {_ENTRY_COLUMNS} FROM recall_index WHERE account_id = $1 "
        "AND session_id = ANY($2::text[]) ORDER BY pos",
        account_id,
        list(session_ids),
    )
    return [
        RecallEntryRecord(
            account_id=r[0],
            session_id=r[1],
            entry=load_json(r[2]),
            indexed_through=r[3],
            writer_version=r[4],
            written_at=r[5],
        )
        for r in rows
    ]


async def backlog(
    conn: Conn, account_id: str, writer_version: int, everything: bool, limit: int
) -> list[SessionRecord]:
    stale = "" if everything else (
        " AND (r.session_id IS NULL OR r.indexed_through IS DISTINCT FROM s.last_turn_id "
        "OR r.writer_version < $3)"
    )
    params: list[Any] = [account_id, limit] + ([] if everything else [writer_version])
    rows = await conn.fetch(
        f"SELECT {_S_COLUMNS} FROM sessions s LEFT JOIN recall_index r "
        "ON r.account_id = s.account_id AND r.session_id = s.id "
        f"WHERE s.account_id = $1 AND s.last_turn_id IS NOT NULL{stale} "
        "ORDER BY s.pos LIMIT $2",
        *params,
    )
    return [codec.session(r) for r in rows]


def _text_parts(scope: RecallScope) -> str:
    return "'spine'" if scope is RecallScope.SPINE else "'spine', 'body', 'reply'"


async def find(conn: Conn, account_id: str, query: RecallQuery) -> RecallFound:
    hits: tuple[RecallHit, ...] = ()
    if query.terms or query.identifiers:
        hits = await _hits(conn, account_id, query)
    if hits and not query.coverage:
        return RecallFound(hits=hits)
    coverage = await conn.fetchrow(
        "SELECT (SELECT COUNT(*) FROM sessions WHERE account_id = $1), "
        "(SELECT COUNT(*) FROM recall_index WHERE account_id = $1)",
        account_id,
    )
    assert coverage is not None
    return RecallFound(hits=hits, sessions=int(coverage[0]), indexed=int(coverage[1]))


#: A text row the query leaves out (as on SQLite): a recall turn, or a reply holding a recall
#: block other than the turn-level "withdrawn" of a turn that moved on.
_RECALL_ROW = (
    "EXISTS (SELECT 1 FROM assistant_turns a WHERE a.account_id = {account} "
    "AND a.turn_id = h.turn_id AND a.blocks::text LIKE '%turnframe.recall.%' "
    "AND EXISTS (SELECT 1 FROM json_array_elements(a.blocks) b "
    "WHERE b->>'code' LIKE 'turnframe.recall.%' AND (json_array_length(b->'acts') > 0 "
    "OR (h.source = 'reply' AND b->>'code' <> 'turnframe.recall.withdrawn'))))"
)


async def _hits(conn: Conn, account_id: str, query: RecallQuery) -> tuple[RecallHit, ...]:
    p = _Params()
    account = p(account_id)
    reach = p(query.term_reach) if query.terms else ""
    excluded = p(list(query.exclude_sessions))
    selects: list[str] = []
    for number, term in enumerate(query.terms):
        n, w, match = p(number), p(term.weight), p(match_expression(term.forms))
        selects.append(
            f"(SELECT r.session_id, {n}::int, 'index', NULL::text, {w}::int FROM recall_index r "
            f"WHERE r.terms @@ to_tsquery('simple', {match}) AND r.account_id = {account} "
            f"AND NOT (r.session_id = ANY({excluded}::text[])) "
            f"ORDER BY r.pos DESC LIMIT {reach})"
        )
        selects.append(
            "(SELECT * FROM (SELECT t.session_id, "
            f"{n}::int AS term, t.part AS source, t.turn_id, {w}::int AS weight FROM recall_text t "
            f"WHERE t.words @@ to_tsquery('simple', {match}) AND t.account_id = {account} "
            f"AND NOT (t.session_id = ANY({excluded}::text[])) "
            f"ORDER BY t.pos DESC LIMIT {reach}) h "
            f"WHERE h.source IN ({_text_parts(query.scope)}) "
            f"AND NOT {_RECALL_ROW.format(account=account)})"
        )
    base = len(query.terms)
    for offset, literal in enumerate(query.identifiers):
        n, w, lit = p(base + offset), p(query.identifier_weight), p(literal)
        selects.append(
            f"SELECT session_id, {n}::int, 'identifier', NULL::text, {w}::int "
            f"FROM recall_identifiers WHERE account_id = {account} AND literal = {lit} "
            f"AND NOT (session_id = ANY({excluded}::text[]))"
        )
    limit = p(query.limit)
    sql = (
        "WITH hits (session_id, term, source, turn_id, weight) AS MATERIALIZED ("
        + " UNION ALL ".join(selects)
        + "), top AS (SELECT session_id, SUM(weight) AS score FROM "
        "(SELECT DISTINCT session_id, term, weight FROM hits) d "
        "GROUP BY session_id "
        f'ORDER BY score DESC, session_id COLLATE "C" DESC LIMIT {limit}) '
        "SELECT h.session_id, top.score, h.term, h.source, h.turn_id, s.workflow, s.created_at, "
        "lt.created_at FROM hits h JOIN top ON top.session_id = h.session_id "
        f"LEFT JOIN sessions s ON s.account_id = {account} AND s.id = h.session_id "
        "LEFT JOIN turns lt ON lt.account_id = s.account_id AND lt.id = s.last_turn_id "
        'ORDER BY top.score DESC, h.session_id COLLATE "C" DESC, h.turn_id COLLATE "C"'
    )
    rows = await conn.fetch(sql, *p.values)
    return collect_hits(rows, query, time=_as_given, started=_as_given)


def _as_given(value: Any) -> datetime | None:
    return value if isinstance(value, datetime) else None


async def counts(
    conn: Conn,
    account_id: str,
    terms: Sequence[str],
    identifiers: Sequence[str],
    exclude_session: str | None,
    upto: int | None,
) -> RecallCounts:
    other = exclude_session or ""
    found_terms: dict[str, int] = {}
    for term in dict.fromkeys(terms):
        n = await conn.fetchval(
            "SELECT COUNT(*) FROM (SELECT DISTINCT session_id FROM recall_text "
            "WHERE words @@ to_tsquery('simple', $1) AND account_id = $2 AND session_id <> $3 "
            "LIMIT $4::bigint) d",
            match_expression((term,)),
            account_id,
            other,
            upto,
        )
        found_terms[term] = int(n)
    found_ids: dict[str, int] = dict.fromkeys(identifiers, 0)
    if identifiers:
        for row in await conn.fetch(
            "SELECT literal, COUNT(*) FROM recall_identifiers WHERE account_id = $1 "
            "AND session_id <> $2 AND literal = ANY($3::text[]) GROUP BY literal",
            account_id,
            other,
            list(found_ids),
        ):
            found_ids[row[0]] = int(row[1])
    return RecallCounts(terms=found_terms, identifiers=found_ids)


async def record(conn: Conn, account_id: str, session_id: str) -> RecallRecord | None:
    session = await turns.get_session(conn, account_id, session_id)
    if session is None:
        return None
    stored = await turns.list_session_turns(conn, account_id, session_id)
    replies = await conn.fetch(
        "SELECT a.turn_id, a.blocks FROM assistant_turns a JOIN turns t "
        "ON t.account_id = a.account_id AND t.id = a.turn_id "
        "WHERE t.account_id = $1 AND t.session_id = $2",
        account_id,
        session_id,
    )
    return RecallRecord(
        session=session,
        turns=tuple(stored),
        replies={r[0]: load_json(r[1]) for r in replies},
    )
