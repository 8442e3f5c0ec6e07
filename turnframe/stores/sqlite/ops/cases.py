"""Cases under optimistic concurrency, and their immutable domain events."""

from __future__ import annotations

import sqlite3

from turnframe._ids import new_id
from turnframe.stores.errors import AlreadyExists, NotFound, RevisionConflict
from turnframe.stores.inputs import CaseUpdate, NewCase, NewEvent
from turnframe.stores.records import CaseRecord, EventRecord
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_json


def create(conn: sqlite3.Connection, account_id: str, case: NewCase, now: str) -> CaseRecord:
    cid = case.case_id or new_id("case_")
    if get(conn, account_id, cid) is not None:
        raise AlreadyExists("case", cid)
    state = dump_json(case.state)
    row = (account_id, cid, case.workflow, case.label, state, case.revision, now, now)
    conn.execute(f"INSERT INTO cases ({codec.CASE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
    return codec.case(row)


def get(conn: sqlite3.Connection, account_id: str, case_id: str) -> CaseRecord | None:
    row = conn.execute(
        f"SELECT {codec.CASE_COLUMNS} FROM cases WHERE account_id = ? AND id = ?",
        (account_id, case_id),
    ).fetchone()
    return None if row is None else codec.case(row)


def list_cases(
    conn: sqlite3.Connection, account_id: str, workflow: str | None, label: str | None
) -> list[CaseRecord]:
    sql = f"SELECT {codec.CASE_COLUMNS} FROM cases WHERE account_id = ?"
    params = [account_id]
    if workflow is not None:
        sql += " AND workflow = ?"
        params.append(workflow)
    if label is not None:
        sql += " AND label = ?"
        params.append(label)
    return [codec.case(r) for r in conn.execute(sql + " ORDER BY rowid", params).fetchall()]


#: ``UPDATE … RETURNING`` (SQLite 3.35): the updated case comes back with the update.
_RETURNING = sqlite3.sqlite_version_info >= (3, 35, 0)


def update(conn: sqlite3.Connection, account_id: str, change: CaseUpdate, now: str) -> CaseRecord:
    """Replace the state only if the case is still at the expected revision."""
    state = dump_json(change.state)
    params = (state, change.new_revision, now, account_id, change.case_id, change.expected_revision)
    if _RETURNING:
        row = conn.execute(
            "UPDATE cases SET state = ?, revision = ?, updated_at = ? "
            "WHERE account_id = ? AND id = ? AND revision = ? "
            f"RETURNING {codec.CASE_COLUMNS}",
            params,
        ).fetchone()
        if row is not None:
            return codec.case(row)
        found = get(conn, account_id, change.case_id)
        if found is None:
            raise NotFound("case", change.case_id)
        raise RevisionConflict(change.case_id, change.expected_revision, found.revision)
    cur = conn.execute(
        "UPDATE cases SET state = ?, revision = ?, updated_at = ? "
        "WHERE account_id = ? AND id = ? AND revision = ?",
        params,
    )
    found = get(conn, account_id, change.case_id)
    if found is None:
        raise NotFound("case", change.case_id)
    if cur.rowcount == 0:
        raise RevisionConflict(change.case_id, change.expected_revision, found.revision)
    return found


def append_event(
    conn: sqlite3.Connection, account_id: str, turn_id: str, event: NewEvent, now: str
) -> EventRecord:
    """Append one event (the caller checked the turn and the case exist)."""
    eid = new_id("evt_")
    payload = dump_json(event.payload)
    cur = conn.execute(
        "INSERT INTO events (id, account_id, case_id, revision, type, payload, turn_id, "
        "command_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            eid,
            account_id,
            event.case_id,
            event.revision,
            event.type,
            payload,
            turn_id,
            event.command_id,
            now,
        ),
    )
    seq = cur.lastrowid
    assert seq is not None
    row = (seq, eid, account_id, event.case_id, event.revision, event.type, payload, turn_id)
    return codec.event((*row, event.command_id, now))


def require(conn: sqlite3.Connection, account_id: str, case_id: str) -> None:
    row = conn.execute(
        "SELECT 1 FROM cases WHERE account_id = ? AND id = ?", (account_id, case_id)
    ).fetchone()
    if row is None:
        raise NotFound("case", case_id)


def list_events(
    conn: sqlite3.Connection,
    account_id: str,
    case_id: str | None,
    turn_id: str | None,
    after_seq: int,
    limit: int | None,
) -> list[EventRecord]:
    sql = f"SELECT {codec.EVENT_COLUMNS} FROM events WHERE account_id = ? AND seq > ?"
    params: list[str | int] = [account_id, after_seq]
    if case_id is not None:
        sql += " AND case_id = ?"
        params.append(case_id)
    if turn_id is not None:
        sql += " AND turn_id = ?"
        params.append(turn_id)
    sql += " ORDER BY seq"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [codec.event(r) for r in conn.execute(sql, params).fetchall()]
