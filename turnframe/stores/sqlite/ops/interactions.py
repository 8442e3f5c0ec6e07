"""Cards: persisted open, closed once by compare-and-swap; one open blocking card per case."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from turnframe._ids import new_id
from turnframe.stores.errors import AlreadyExists, BlockingCardOpen, NotFound, StatusConflict
from turnframe.stores.inputs import CardResolution, NewInteraction
from turnframe.stores.records import InteractionRecord, InteractionStatus
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_json

_OPEN = InteractionStatus.OPEN.value
_PREFIXED = ", ".join(f"i.{c.strip()}" for c in codec.INTERACTION_COLUMNS.split(","))


def insert(
    conn: sqlite3.Connection,
    account_id: str,
    turn_id: str,
    cards: Sequence[NewInteraction],
    now: str,
) -> list[InteractionRecord]:
    """Insert open cards for a turn (the caller checked the turn exists)."""
    records = []
    for card in cards:
        iid = card.interaction_id or new_id("card_")
        if card.interaction_id is not None and get(conn, account_id, iid) is not None:
            raise AlreadyExists("interaction", iid)
        if card.blocking and card.case_id is not None:
            _refuse_second_blocking(conn, account_id, card.case_id)
        row = (
            account_id,
            iid,
            turn_id,
            card.case_id,
            int(card.blocking),
            _OPEN,
            dump_json(card.payload),
            None,
            now,
            None,
        )
        try:
            conn.execute(
                f"INSERT INTO interactions ({codec.INTERACTION_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        except sqlite3.IntegrityError as exc:  # the unique index, should the check above race
            if card.case_id is not None and card.blocking:
                raise BlockingCardOpen(card.case_id) from exc
            raise
        records.append(codec.interaction(row))
    return records


def _refuse_second_blocking(conn: sqlite3.Connection, account_id: str, case_id: str) -> None:
    row = conn.execute(
        "SELECT 1 FROM interactions WHERE account_id = ? AND case_id = ? AND blocking = 1 "
        "AND status = ?",
        (account_id, case_id, _OPEN),
    ).fetchone()
    if row is not None:
        raise BlockingCardOpen(case_id)


def get(conn: sqlite3.Connection, account_id: str, interaction_id: str) -> InteractionRecord | None:
    row = conn.execute(
        f"SELECT {codec.INTERACTION_COLUMNS} FROM interactions WHERE account_id = ? AND id = ?",
        (account_id, interaction_id),
    ).fetchone()
    return None if row is None else codec.interaction(row)


def of_turn(conn: sqlite3.Connection, account_id: str, turn_id: str) -> list[InteractionRecord]:
    rows = conn.execute(
        f"SELECT {codec.INTERACTION_COLUMNS} FROM interactions WHERE account_id = ? "
        "AND turn_id = ? ORDER BY rowid",
        (account_id, turn_id),
    ).fetchall()
    return [codec.interaction(r) for r in rows]


def list_open(
    conn: sqlite3.Connection, account_id: str, session_id: str | None, case_id: str | None
) -> list[InteractionRecord]:
    sql = (
        f"SELECT {_PREFIXED} FROM interactions i JOIN turns t "
        "ON t.account_id = i.account_id AND t.id = i.turn_id "
        "WHERE i.account_id = ? AND i.status = ?"
    )
    params: list[str] = [account_id, _OPEN]
    if session_id is not None:
        sql += " AND t.session_id = ?"
        params.append(session_id)
    if case_id is not None:
        sql += " AND i.case_id = ?"
        params.append(case_id)
    rows = conn.execute(sql + " ORDER BY i.rowid", params).fetchall()
    return [codec.interaction(r) for r in rows]


def resolve(
    conn: sqlite3.Connection, account_id: str, resolution: CardResolution, now: str
) -> InteractionRecord:
    iid = resolution.interaction_id
    resolution_json = None if resolution.resolution is None else dump_json(resolution.resolution)
    cur = conn.execute(
        "UPDATE interactions SET status = ?, resolution = ?, resolved_at = ? "
        "WHERE account_id = ? AND id = ? AND status = ?",
        (resolution.status.value, resolution_json, now, account_id, iid, _OPEN),
    )
    found = get(conn, account_id, iid)
    if found is None:
        raise NotFound("interaction", iid)
    if cur.rowcount == 0:
        raise StatusConflict("interaction", iid, _OPEN, found.status.value)
    return found
