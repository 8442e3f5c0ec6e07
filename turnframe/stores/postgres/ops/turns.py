"""Sessions, user turns, the phase marker and the turn's write-once payloads."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from turnframe._ids import new_id
from turnframe.lifecycle import TurnPhase
from turnframe.stores.errors import (
    AlreadyExists,
    IllegalTransition,
    NotFound,
    PayloadImmutable,
    PhaseConflict,
)
from turnframe.stores.inputs import NewJournalEntry, PhaseMove, SealedTurn
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, optional_json, same_content
from turnframe.stores.postgres.ops import journal
from turnframe.stores.postgres.ops.once import insert_returning_once
from turnframe.stores.postgres.tx import Conn, row_count, where
from turnframe.stores.records import (
    Admission,
    AssistantTurnRecord,
    Json,
    SessionRecord,
    TurnRecord,
    TurnStart,
)

# Spelled out (not a parameter) so the planner can use the partial index ``turns_unfinished``.
_UNFINISHED = "phase NOT IN ({})".format(
    ", ".join(f"'{phase.value}'" for phase in TurnPhase if phase.is_terminal)
)


# -- sessions ---------------------------------------------------------------------------------
async def create_session(
    conn: Conn,
    account_id: str,
    session_id: str | None,
    workflow: str,
    thread_context: Json,
    now: datetime,
) -> SessionRecord:
    sid = session_id or new_id("ses_")
    row = await conn.fetchrow(
        "INSERT INTO sessions (account_id, id, workflow, created_at, thread_context) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING "
        f"RETURNING {codec.SESSION_COLUMNS}",
        account_id,
        sid,
        workflow,
        now,
        dump_json(thread_context),
    )
    if row is not None:
        return codec.session(row)
    existing = await get_session(conn, account_id, sid)
    assert existing is not None  # the conflict was on this very key
    if existing.workflow != workflow:
        raise AlreadyExists("session", sid)
    return existing


async def get_session(conn: Conn, account_id: str, session_id: str) -> SessionRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.SESSION_COLUMNS} FROM sessions WHERE account_id = $1 AND id = $2",
        account_id,
        session_id,
    )
    return None if row is None else codec.session(row)


async def list_sessions(conn: Conn, account_id: str) -> list[SessionRecord]:
    rows = await conn.fetch(
        f"SELECT {codec.SESSION_COLUMNS} FROM sessions WHERE account_id = $1 ORDER BY pos",
        account_id,
    )
    return [codec.session(row) for row in rows]


async def save_thread_context(
    conn: Conn, account_id: str, session_id: str, thread_context: Json
) -> None:
    status = await conn.execute(
        "UPDATE sessions SET thread_context = $1 WHERE account_id = $2 AND id = $3",
        dump_json(thread_context),
        account_id,
        session_id,
    )
    if row_count(status) == 0:
        raise NotFound("session", session_id)


# -- turns ------------------------------------------------------------------------------------
async def record_user_turn(
    conn: Conn,
    account_id: str,
    session_id: str,
    turn_id: str | None,
    payload: Json,
    now: datetime,
    idempotency_key: str | None = None,
) -> TurnRecord:
    """Insert the turn unless its id is taken (then it must be the same turn: a replay) or the
    session has a turn under ``idempotency_key`` (that turn is returned as stored). The session
    foreign key makes an unknown (or another account's) session :class:`NotFound`."""
    tid = turn_id or new_id("turn_")
    try:
        row = await conn.fetchrow(
            "INSERT INTO turns (account_id, id, session_id, payload, phase, created_at, "
            "phase_changed_at, idempotency_key) VALUES ($1, $2, $3, $4, $5, $6, $6, $7) "
            f"ON CONFLICT DO NOTHING RETURNING {codec.TURN_COLUMNS}",
            account_id,
            tid,
            session_id,
            dump_json(payload),
            TurnPhase.RECEIVED.value,
            now,
            idempotency_key,
        )
    except asyncpg.exceptions.ForeignKeyViolationError as exc:
        raise NotFound("session", session_id) from exc
    if row is None:
        if idempotency_key is not None:
            keyed = await get_turn_by_idempotency_key(conn, account_id, session_id, idempotency_key)
            if keyed is not None:
                return keyed
        existing = await conn.fetchrow(
            f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = $1 AND id = $2",
            account_id,
            tid,
        )
        assert existing is not None  # the conflict was on this very key
        if existing[2] != session_id or not same_content(existing[3], payload):
            raise PayloadImmutable("user turn", tid)
        return codec.turn(existing)
    await conn.execute(
        "UPDATE sessions SET last_turn_id = $1 WHERE account_id = $2 AND id = $3",
        tid,
        account_id,
        session_id,
    )
    return codec.turn(row)


async def record_sealed_turn(
    conn: Conn,
    account_id: str,
    session_id: str,
    turn_id: str,
    payload: Json,
    sealed: SealedTurn,
    now: datetime,
    entries: Sequence[NewJournalEntry] = (),
) -> tuple[bool, list[Admission] | None]:
    """Record a live turn at its seal with its plan, reduction and phase in one INSERT: the row
    :func:`record_user_turn`, :func:`write_turn_payload` (twice) and :func:`move_phase` from
    ``received`` leave, and admit its journal ``entries`` (as :func:`journal.admit` answers
    them), in one round trip instead of six or more.

    The first answer is False when the turn is stored already (the same turn: a replay;
    another is :class:`PayloadImmutable`): the turn row was not written, and the caller
    writes the payloads and moves the phase as for any stored turn. The entries are admitted
    either way (nothing the caller writes next reads the journal), unless one of them cannot
    be sent (its payload is not JSON, or PostgreSQL would refuse a value): then none is, the
    second answer is None, and the caller admits them after, where they are refused in turn."""
    params: list[object] = [
        account_id,
        turn_id,
        session_id,
        dump_json(payload),
        sealed.phase.value,
        dump_json(sealed.plan),
        dump_json(sealed.reduction),
        now,
    ]
    admissions = _admissions(entries, params)
    if admissions is None:
        admissions, entries = [], ()
    # The session's last turn moves in the same statement, only if the turn was inserted; the
    # journal rows' turn is checked at the statement's end, when the turn row is there.
    joined = ["moved", *(f"e{i}" for i in range(len(entries)))]
    sql = (
        "WITH inserted AS (INSERT INTO turns (account_id, id, session_id, payload, phase, "
        "plan, reduction, created_at, phase_changed_at) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT DO NOTHING RETURNING id), "
        "moved AS (UPDATE sessions SET last_turn_id = inserted.id FROM inserted "
        "WHERE sessions.account_id = $1 AND sessions.id = $3 RETURNING true AS moved)"
        + "".join(f", {cte}" for cte in admissions)
        + " SELECT "
        + ", ".join(f"{name}.*" for name in joined)
        + " FROM (SELECT 1) AS one"
        + "".join(f" LEFT JOIN {name} ON true" for name in joined)
    )
    try:
        found = await conn.fetchrow(sql, *params)
    except asyncpg.exceptions.ForeignKeyViolationError as exc:
        raise NotFound("session", session_id) from exc
    assert found is not None  # one row, whatever the inserts found
    row: tuple[Any, ...] = tuple(found[i] for i in range(len(found)))
    if row[0] is None:
        existing = await conn.fetchrow(
            "SELECT session_id, payload FROM turns WHERE account_id = $1 AND id = $2",
            account_id,
            turn_id,
        )
        assert existing is not None  # the conflict was on this very key
        if existing[0] != session_id or not same_content(existing[1], payload):
            raise PayloadImmutable("user turn", turn_id)
    if not admissions:
        return row[0] is not None, None
    answers, width = [], len(codec.JOURNAL_COLUMNS.split(","))
    for i, entry in enumerate(entries):
        part = row[1 + i * width : 1 + (i + 1) * width]
        inserted = part if part[0] is not None else None  # account_id is NOT NULL
        answers.append(await journal.answer(conn, account_id, entry, inserted))
    return row[0] is not None, answers


def _admissions(entries: Sequence[NewJournalEntry], params: list[object]) -> list[str] | None:
    """One CTE admitting each entry, their values appended to ``params``; None, with ``params``
    as it was, when a value cannot be sent."""
    given = len(params)
    try:
        ctes = [
            f"e{i} AS ({journal.insert_sql(entry, params, '$1', '$2', '$8')})"
            for i, entry in enumerate(entries)
        ]
    except (ValueError, TypeError):  # a payload that is not JSON: dump_json's refusals
        ctes = None
    if ctes is None or not codec.sendable(params[given:]):
        del params[given:]
        return None
    return ctes


async def get_turn_by_idempotency_key(
    conn: Conn, account_id: str, session_id: str, idempotency_key: str
) -> TurnRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.TURN_COLUMNS} FROM turns "
        "WHERE account_id = $1 AND session_id = $2 AND idempotency_key = $3",
        account_id,
        session_id,
        idempotency_key,
    )
    return None if row is None else codec.turn(row)


async def get_turn(conn: Conn, account_id: str, turn_id: str) -> TurnRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = $1 AND id = $2",
        account_id,
        turn_id,
    )
    return None if row is None else codec.turn(row)


_TURN_WIDTH = len(codec.TURN_COLUMNS.split(","))
_TURN_START = (
    "SELECT "
    + ", ".join(f"t.{c.strip()}" for c in codec.TURN_COLUMNS.split(","))
    + ", "
    + ", ".join(f"c.{c.strip()}" for c in codec.CASE_COLUMNS.split(","))
    + " FROM (SELECT 1) one LEFT JOIN turns t ON t.account_id = $1 AND t.id = $2 "
    "LEFT JOIN cases c ON c.account_id = $1 AND (t.id IS NULL OR t.phase = 'received') "
    "ORDER BY c.pos"
)


async def get_turn_start(conn: Conn, account_id: str, turn_id: str) -> TurnStart:
    """The turn as stored and, while it is still to be interpreted (not stored, or
    ``received``), every case of the account: one statement, one round trip, one snapshot
    (a row per case, the turn's columns beside each; one row with no case when none)."""
    rows: list[tuple[Any, ...]] = [
        tuple(r[i] for i in range(len(r)))
        for r in await conn.fetch(_TURN_START, account_id, turn_id)
    ]
    first = rows[0]  # the LEFT JOINs from one row always give at least one
    turn = None if first[1] is None else codec.turn(first[:_TURN_WIDTH])
    if turn is not None and turn.phase is not TurnPhase.RECEIVED:
        return TurnStart(turn=turn, cases=None)
    listed = tuple(codec.case(r[_TURN_WIDTH:]) for r in rows if r[_TURN_WIDTH + 1] is not None)
    return TurnStart(turn=turn, cases=listed)


async def require_turn(conn: Conn, account_id: str, turn_id: str) -> TurnRecord:
    found = await get_turn(conn, account_id, turn_id)
    if found is None:
        raise NotFound("turn", turn_id)
    return found


async def turn_exists(conn: Conn, account_id: str, turn_id: str) -> None:
    found = await conn.fetchval(
        "SELECT 1 FROM turns WHERE account_id = $1 AND id = $2", account_id, turn_id
    )
    if found is None:
        raise NotFound("turn", turn_id)


async def list_session_turns(conn: Conn, account_id: str, session_id: str) -> list[TurnRecord]:
    rows = await conn.fetch(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = $1 AND session_id = $2 "
        "ORDER BY pos",
        account_id,
        session_id,
    )
    return [codec.turn(r) for r in rows]


async def list_unfinished_turns(conn: Conn, account_id: str | None) -> list[TurnRecord]:
    sql, params = where(_UNFINISHED, [], account_id=account_id)
    rows = await conn.fetch(f"SELECT {codec.TURN_COLUMNS} FROM turns{sql} ORDER BY pos", *params)
    return [codec.turn(r) for r in rows]


async def note_turn_failure(
    conn: Conn, account_id: str, turn_id: str, signature: str, now: datetime
) -> int:
    """Count a failed attempt: one more in a row with the same signature, else the first."""
    await turn_exists(conn, account_id, turn_id)
    count = await conn.fetchval(
        "INSERT INTO turn_failures (account_id, turn_id, signature, count, noted_at) "
        "VALUES ($1, $2, $3, 1, $4) ON CONFLICT (account_id, turn_id) DO UPDATE SET "
        "count = CASE WHEN turn_failures.signature = EXCLUDED.signature "
        "THEN turn_failures.count + 1 ELSE 1 END, "
        "signature = EXCLUDED.signature, noted_at = EXCLUDED.noted_at RETURNING count",
        account_id,
        turn_id,
        signature,
        now,
    )
    return int(count)


async def move_phase(
    conn: Conn, account_id: str, turn_id: str, move: PhaseMove, now: datetime
) -> TurnRecord:
    """CAS the phase marker; legality first (a pure rule), then the stored phase. Returns the
    turn as it stands after the move."""
    if not move.expected.may_advance_to(move.new):
        raise IllegalTransition("phase", turn_id, move.expected.value, move.new.value)
    row = await conn.fetchrow(
        "UPDATE turns SET phase = $1, phase_changed_at = $2 "
        "WHERE account_id = $3 AND id = $4 AND phase = $5 "
        f"RETURNING {codec.TURN_COLUMNS}",
        move.new.value,
        now,
        account_id,
        turn_id,
        move.expected.value,
    )
    if row is not None:
        return codec.turn(row)
    phase = await conn.fetchval(
        "SELECT phase FROM turns WHERE account_id = $1 AND id = $2", account_id, turn_id
    )
    if phase is None:
        raise NotFound("turn", turn_id)
    raise PhaseConflict(turn_id, move.expected.value, phase)


async def write_turn_payload(
    conn: Conn, account_id: str, turn_id: str, column: str, value: Json
) -> TurnRecord | None:
    """Write the turn's ``plan`` or ``reduction`` once: the turn if written now, None if the
    same content was already there; different content is :class:`PayloadImmutable`."""
    if column not in ("plan", "reduction"):
        raise ValueError(f"not a write-once turn payload: {column}")
    row = await conn.fetchrow(
        f"UPDATE turns SET {column} = $1 WHERE account_id = $2 AND id = $3 AND {column} IS NULL "
        f"RETURNING {codec.TURN_COLUMNS}",
        dump_json(value),
        account_id,
        turn_id,
    )
    if row is not None:
        return codec.turn(row)
    stored = await conn.fetchrow(
        f"SELECT {column} FROM turns WHERE account_id = $1 AND id = $2", account_id, turn_id
    )
    if stored is None:
        raise NotFound("turn", turn_id)
    if same_content(stored[0], value):
        return None
    raise PayloadImmutable(column, turn_id)


# -- replay records and assistant turns -------------------------------------------------------
async def save_replay_record(
    conn: Conn, account_id: str, turn_id: str, record: Json, now: datetime
) -> None:
    row = await insert_returning_once(
        conn,
        "INSERT INTO replay_records (account_id, turn_id, payload, created_at) "
        "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1",
        turn_id,
        account_id,
        turn_id,
        dump_json(record),
        now,
    )
    if row is not None:
        return
    stored = await conn.fetchval(
        "SELECT payload FROM replay_records WHERE account_id = $1 AND turn_id = $2",
        account_id,
        turn_id,
    )
    if not same_content(stored, record):
        raise PayloadImmutable("replay record", turn_id)


async def get_replay_record(conn: Conn, account_id: str, turn_id: str) -> Json | None:
    stored = await conn.fetchval(
        "SELECT payload FROM replay_records WHERE account_id = $1 AND turn_id = $2",
        account_id,
        turn_id,
    )
    return codec.load_json(stored)


async def save_assistant_turn(
    conn: Conn,
    account_id: str,
    turn_id: str,
    blocks: Json,
    meta: Json | None,
    thread_context: Json | None,
    now: datetime,
) -> AssistantTurnRecord:
    row = await insert_returning_once(
        conn,
        "INSERT INTO assistant_turns (account_id, turn_id, blocks, meta, created_at) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING "
        f"RETURNING {codec.ASSISTANT_COLUMNS}",
        turn_id,
        account_id,
        turn_id,
        dump_json(blocks),
        optional_json(meta),
        now,
    )
    if row is not None:
        saved = codec.assistant_turn(row)
    else:
        stored = await get_assistant_turn(conn, account_id, turn_id)
        assert stored is not None  # the conflict was on this very key
        if not (same_content(stored.blocks_json, blocks) and _same(stored.meta, meta)):
            raise PayloadImmutable("response", turn_id)
        saved = stored
    if thread_context is not None:
        await conn.execute(
            "UPDATE sessions s SET thread_context = $1 FROM turns t "
            "WHERE t.account_id = $2 AND t.id = $3 "
            "AND s.account_id = t.account_id AND s.id = t.session_id",
            dump_json(thread_context),
            account_id,
            turn_id,
        )
    return saved


_DELIVER_REPLY = (
    "WITH reply AS (INSERT INTO assistant_turns (account_id, turn_id, blocks, meta, created_at) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING turn_id), "
    "moved AS (UPDATE turns SET phase = 'delivered', phase_changed_at = $5 "
    "WHERE account_id = $1 AND id = $2 AND phase = 'committed' AND EXISTS (SELECT 1 FROM reply) "
    "RETURNING session_id){context} SELECT COUNT(*) FROM moved"
)
_WITH_CONTEXT = (
    ", context AS (UPDATE sessions s SET thread_context = $6 FROM moved m "
    "WHERE s.account_id = $1 AND s.id = m.session_id RETURNING 1)"
)


async def deliver_reply(
    conn: Conn,
    account_id: str,
    turn_id: str,
    blocks: Json,
    meta: Json | None,
    thread_context: Json | None,
    now: datetime,
) -> bool:
    """A fresh reply, the session's thread context and the move ``committed`` → ``delivered``
    in one statement (one round trip, where :func:`save_assistant_turn` and :func:`move_phase`
    take three). False, with nothing written, when the turn has a reply already or is not
    ``committed``: the caller then takes the careful way, which says what is wrong."""
    assert TurnPhase.COMMITTED.may_advance_to(TurnPhase.DELIVERED)
    params: list[object] = [account_id, turn_id, dump_json(blocks), optional_json(meta), now]
    context = ""
    if thread_context is not None:
        params.append(dump_json(thread_context))
        context = _WITH_CONTEXT
    try:
        moved = await conn.fetchval(_DELIVER_REPLY.format(context=context), *params)
    except asyncpg.exceptions.ForeignKeyViolationError as exc:
        raise NotFound("turn", turn_id) from exc
    return bool(moved)


def _same(stored: Json | None, new: Json | None) -> bool:
    if stored is None or new is None:
        return stored is new
    return same_content(dump_json(stored), new)


async def get_assistant_turn(
    conn: Conn, account_id: str, turn_id: str
) -> AssistantTurnRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.ASSISTANT_COLUMNS} FROM assistant_turns "
        "WHERE account_id = $1 AND turn_id = $2",
        account_id,
        turn_id,
    )
    return None if row is None else codec.assistant_turn(row)
