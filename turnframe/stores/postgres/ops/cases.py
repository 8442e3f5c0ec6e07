"""Cases under optimistic concurrency, and their immutable domain events."""

from __future__ import annotations

from datetime import datetime

from turnframe._ids import new_id
from turnframe.stores.errors import AlreadyExists, NotFound, RevisionConflict
from turnframe.stores.inputs import CaseUpdate, NewCase, NewEvent
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json
from turnframe.stores.postgres.tx import Conn, where
from turnframe.stores.records import CaseRecord, EventRecord


async def create(conn: Conn, account_id: str, case: NewCase, now: datetime) -> CaseRecord:
    cid = case.case_id or new_id("case_")
    row = await conn.fetchrow(
        f"INSERT INTO cases ({codec.CASE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) "
        f"ON CONFLICT DO NOTHING RETURNING {codec.CASE_COLUMNS}",
        account_id,
        cid,
        case.workflow,
        case.label,
        dump_json(case.state),
        case.revision,
        now,
    )
    if row is None:
        raise AlreadyExists("case", cid)
    return codec.case(row)


async def get(conn: Conn, account_id: str, case_id: str) -> CaseRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.CASE_COLUMNS} FROM cases WHERE account_id = $1 AND id = $2",
        account_id,
        case_id,
    )
    return None if row is None else codec.case(row)


async def list_cases(
    conn: Conn, account_id: str, workflow: str | None, label: str | None
) -> list[CaseRecord]:
    sql, params = where("account_id = $1", [account_id], workflow=workflow, label=label)
    rows = await conn.fetch(f"SELECT {codec.CASE_COLUMNS} FROM cases{sql} ORDER BY pos", *params)
    return [codec.case(r) for r in rows]


async def update(conn: Conn, account_id: str, change: CaseUpdate, now: datetime) -> CaseRecord:
    """Replace the state only if the case is still at the expected revision. A concurrent
    update of the same case waits for the other transaction, then finds its revision moved."""
    row = await conn.fetchrow(
        "UPDATE cases SET state = $1, revision = $2, updated_at = $3 "
        "WHERE account_id = $4 AND id = $5 AND revision = $6 "
        f"RETURNING {codec.CASE_COLUMNS}",
        dump_json(change.state),
        change.new_revision,
        now,
        account_id,
        change.case_id,
        change.expected_revision,
    )
    if row is not None:
        return codec.case(row)
    found = await get(conn, account_id, change.case_id)
    if found is None:
        raise NotFound("case", change.case_id)
    raise RevisionConflict(change.case_id, change.expected_revision, found.revision)


async def hold_event_order(conn: Conn, *, savepoint: str | None = None) -> None:
    """Make event numbers follow commit order: a reader paging with ``after_seq`` never skips
    an event that commits after it read a higher one. The lock queues event writers from here
    to their COMMIT; it does not block readers. With ``savepoint``, that savepoint is taken
    just before the lock, in the same round trip (rolling back to it releases the lock)."""
    if savepoint is None:
        await conn.execute("LOCK TABLE events IN EXCLUSIVE MODE")
        return
    if not savepoint.isidentifier():
        raise ValueError(f"not a savepoint name: {savepoint!r}")
    # No parameters: one simple-protocol message carries both statements.
    await conn.execute(f"SAVEPOINT {savepoint}; LOCK TABLE events IN EXCLUSIVE MODE")


async def append_event(
    conn: Conn, account_id: str, turn_id: str, event: NewEvent, now: datetime
) -> EventRecord:
    """Append one event (the caller checked the turn and the case exist and holds the event
    order)."""
    row = await conn.fetchrow(
        "INSERT INTO events (id, account_id, case_id, revision, type, payload, turn_id, "
        "command_id, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
        f"RETURNING {codec.EVENT_COLUMNS}",
        new_id("evt_"),
        account_id,
        event.case_id,
        event.revision,
        event.type,
        dump_json(event.payload),
        turn_id,
        event.command_id,
        now,
    )
    assert row is not None
    return codec.event(row)


async def require(conn: Conn, account_id: str, case_id: str) -> None:
    found = await conn.fetchval(
        "SELECT 1 FROM cases WHERE account_id = $1 AND id = $2", account_id, case_id
    )
    if found is None:
        raise NotFound("case", case_id)


async def list_events(
    conn: Conn,
    account_id: str,
    case_id: str | None,
    turn_id: str | None,
    after_seq: int,
    limit: int | None,
) -> list[EventRecord]:
    sql, params = where("account_id = $1", [account_id], case_id=case_id, turn_id=turn_id)
    params.append(after_seq)
    sql += f" AND seq > ${len(params)} ORDER BY seq"
    if limit is not None:
        params.append(limit)
        sql += f" LIMIT ${len(params)}"
    rows = await conn.fetch(f"SELECT {codec.EVENT_COLUMNS} FROM events{sql}", *params)
    return [codec.event(r) for r in rows]
