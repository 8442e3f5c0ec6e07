"""Sessions, user turns, the phase marker and the turn's write-once payloads."""

from __future__ import annotations

import sqlite3

from turnframe._ids import new_id
from turnframe.lifecycle import TurnPhase
from turnframe.stores.errors import (
    AlreadyExists,
    IllegalTransition,
    NotFound,
    PayloadImmutable,
    PhaseConflict,
)
from turnframe.stores.inputs import PhaseMove, SealedTurn
from turnframe.stores.records import AssistantTurnRecord, Json, SessionRecord, TurnRecord
from turnframe.stores.sqlite import codec
from turnframe.stores.sqlite.codec import dump_json, same_content
from turnframe.stores.sqlite.ops.once import insert_once

_UNFINISHED = ("delivered", "failed")


def create_session(
    conn: sqlite3.Connection,
    account_id: str,
    session_id: str | None,
    workflow: str,
    thread_context: Json,
    now: str,
) -> SessionRecord:
    sid = session_id or new_id("ses_")
    row = conn.execute(
        f"SELECT {codec.SESSION_COLUMNS} FROM sessions WHERE account_id = ? AND id = ?",
        (account_id, sid),
    ).fetchone()
    if row is not None:
        if row[2] != workflow:
            raise AlreadyExists("session", sid)
        return codec.session(row)
    conn.execute(
        "INSERT INTO sessions (account_id, id, workflow, created_at, thread_context) "
        "VALUES (?, ?, ?, ?, ?)",
        (account_id, sid, workflow, now, dump_json(thread_context)),
    )
    return codec.session((account_id, sid, workflow, now, dump_json(thread_context), None))


def get_session(conn: sqlite3.Connection, account_id: str, session_id: str) -> SessionRecord | None:
    row = conn.execute(
        f"SELECT {codec.SESSION_COLUMNS} FROM sessions WHERE account_id = ? AND id = ?",
        (account_id, session_id),
    ).fetchone()
    return None if row is None else codec.session(row)


def list_sessions(conn: sqlite3.Connection, account_id: str) -> list[SessionRecord]:
    rows = conn.execute(
        f"SELECT {codec.SESSION_COLUMNS} FROM sessions WHERE account_id = ? ORDER BY rowid",
        (account_id,),
    ).fetchall()
    return [codec.session(row) for row in rows]


def save_thread_context(
    conn: sqlite3.Connection, account_id: str, session_id: str, thread_context: Json
) -> None:
    cur = conn.execute(
        "UPDATE sessions SET thread_context = ? WHERE account_id = ? AND id = ?",
        (dump_json(thread_context), account_id, session_id),
    )
    if cur.rowcount == 0:
        raise NotFound("session", session_id)


def record_user_turn(
    conn: sqlite3.Connection,
    account_id: str,
    session_id: str,
    turn_id: str | None,
    payload: Json,
    now: str,
    idempotency_key: str | None = None,
) -> TurnRecord:
    if idempotency_key is not None:  # the session's turn under this key wins, whatever it says
        keyed = get_turn_by_idempotency_key(conn, account_id, session_id, idempotency_key)
        if keyed is not None:
            return keyed
    tid = turn_id or new_id("turn_")
    if turn_id is not None:  # a caller's id may be a replay; a fresh one cannot be
        existing = conn.execute(
            f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = ? AND id = ?",
            (account_id, tid),
        ).fetchone()
        if existing is not None:
            if existing[2] != session_id or not same_content(existing[3], payload):
                raise PayloadImmutable("user turn", tid)
            return codec.turn(existing)
    cur = conn.execute(
        "UPDATE sessions SET last_turn_id = ? WHERE account_id = ? AND id = ?",
        (tid, account_id, session_id),
    )
    if cur.rowcount == 0:
        raise NotFound("session", session_id)
    row = (account_id, tid, session_id, dump_json(payload), TurnPhase.RECEIVED.value)
    conn.execute(
        "INSERT INTO turns (account_id, id, session_id, payload, phase, created_at, "
        "phase_changed_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (*row, now, now, idempotency_key),
    )
    return codec.turn((*row, None, None, now, now), payload=payload)


def record_sealed_turn(
    conn: sqlite3.Connection,
    account_id: str,
    session_id: str,
    turn_id: str,
    payload: Json,
    sealed: SealedTurn,
    now: str,
) -> bool:
    """Record a live turn at its seal with its plan, reduction and phase in one INSERT: the row
    :func:`record_user_turn`, :func:`write_turn_payload` (twice) and :func:`move_phase` from
    ``received`` leave, in one statement instead of four. False when the turn is stored
    already (the same turn: a replay; another is :class:`PayloadImmutable`): nothing was
    written, and the caller writes the payloads and moves the phase as for any stored turn."""
    existing = conn.execute(
        "SELECT session_id, payload FROM turns WHERE account_id = ? AND id = ?",
        (account_id, turn_id),
    ).fetchone()
    if existing is not None:
        if existing[0] != session_id or not same_content(existing[1], payload):
            raise PayloadImmutable("user turn", turn_id)
        return False
    cur = conn.execute(
        "UPDATE sessions SET last_turn_id = ? WHERE account_id = ? AND id = ?",
        (turn_id, account_id, session_id),
    )
    if cur.rowcount == 0:
        raise NotFound("session", session_id)
    conn.execute(
        "INSERT INTO turns (account_id, id, session_id, payload, phase, plan, reduction, "
        "created_at, phase_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            account_id,
            turn_id,
            session_id,
            dump_json(payload),
            sealed.phase.value,
            dump_json(sealed.plan),
            dump_json(sealed.reduction),
            now,
            now,
        ),
    )
    return True


def get_turn_by_idempotency_key(
    conn: sqlite3.Connection, account_id: str, session_id: str, idempotency_key: str
) -> TurnRecord | None:
    row = conn.execute(
        f"SELECT {codec.TURN_COLUMNS} FROM turns "
        "WHERE account_id = ? AND session_id = ? AND idempotency_key = ?",
        (account_id, session_id, idempotency_key),
    ).fetchone()
    return None if row is None else codec.turn(row)


def get_turn(conn: sqlite3.Connection, account_id: str, turn_id: str) -> TurnRecord | None:
    row = conn.execute(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = ? AND id = ?",
        (account_id, turn_id),
    ).fetchone()
    return None if row is None else codec.turn(row)


def require_turn(
    conn: sqlite3.Connection, account_id: str, turn_id: str, *, plan: Json = codec.NOT_GIVEN
) -> TurnRecord:
    """The turn's record (``plan``: the plan payload the caller just wrote, not decoded again)."""
    row = conn.execute(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = ? AND id = ?",
        (account_id, turn_id),
    ).fetchone()
    found = None if row is None else codec.turn(row, plan=plan)
    if found is None:
        raise NotFound("turn", turn_id)
    return found


def turn_exists(conn: sqlite3.Connection, account_id: str, turn_id: str) -> None:
    row = conn.execute(
        "SELECT 1 FROM turns WHERE account_id = ? AND id = ?", (account_id, turn_id)
    ).fetchone()
    if row is None:
        raise NotFound("turn", turn_id)


def list_session_turns(
    conn: sqlite3.Connection, account_id: str, session_id: str
) -> list[TurnRecord]:
    rows = conn.execute(
        f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE account_id = ? AND session_id = ? "
        "ORDER BY rowid",
        (account_id, session_id),
    ).fetchall()
    return [codec.turn(r) for r in rows]


def list_unfinished_turns(conn: sqlite3.Connection, account_id: str | None) -> list[TurnRecord]:
    sql = f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE phase NOT IN (?, ?)"
    params: tuple[str, ...] = _UNFINISHED
    if account_id is not None:
        sql += " AND account_id = ?"
        params = (*params, account_id)
    rows = conn.execute(sql + " ORDER BY rowid", params).fetchall()
    return [codec.turn(r) for r in rows]


def note_turn_failure(
    conn: sqlite3.Connection, account_id: str, turn_id: str, signature: str, now: str
) -> int:
    """Count a failed attempt: one more in a row with the same signature, else the first."""
    turn_exists(conn, account_id, turn_id)
    row = conn.execute(
        "SELECT signature, count FROM turn_failures WHERE account_id = ? AND turn_id = ?",
        (account_id, turn_id),
    ).fetchone()
    count = int(row[1]) + 1 if row is not None and row[0] == signature else 1
    conn.execute(
        "INSERT INTO turn_failures (account_id, turn_id, signature, count, noted_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, turn_id) DO UPDATE SET "
        "signature = excluded.signature, count = excluded.count, noted_at = excluded.noted_at",
        (account_id, turn_id, signature, count, now),
    )
    return count


def move_phase(
    conn: sqlite3.Connection, account_id: str, turn_id: str, move: PhaseMove, now: str
) -> None:
    """CAS the phase marker; legality first (a pure rule), then the stored phase."""
    if not move.expected.may_advance_to(move.new):
        raise IllegalTransition("phase", turn_id, move.expected.value, move.new.value)
    cur = conn.execute(
        "UPDATE turns SET phase = ?, phase_changed_at = ? "
        "WHERE account_id = ? AND id = ? AND phase = ?",
        (move.new.value, now, account_id, turn_id, move.expected.value),
    )
    if cur.rowcount == 1:
        return
    row = conn.execute(
        "SELECT phase FROM turns WHERE account_id = ? AND id = ?", (account_id, turn_id)
    ).fetchone()
    if row is None:
        raise NotFound("turn", turn_id)
    raise PhaseConflict(turn_id, move.expected.value, row[0])


def write_turn_payload(
    conn: sqlite3.Connection, account_id: str, turn_id: str, column: str, value: Json
) -> bool:
    """Write the turn's ``plan`` or ``reduction`` once. True if written now, False if the same
    content was already there; different content is :class:`PayloadImmutable`."""
    if column not in ("plan", "reduction"):
        raise ValueError(f"not a write-once turn payload: {column}")
    written = conn.execute(
        f"UPDATE turns SET {column} = ? WHERE account_id = ? AND id = ? AND {column} IS NULL",
        (dump_json(value), account_id, turn_id),
    )
    if written.rowcount == 1:
        return True
    row = conn.execute(
        f"SELECT {column} FROM turns WHERE account_id = ? AND id = ?", (account_id, turn_id)
    ).fetchone()
    if row is None:
        raise NotFound("turn", turn_id)
    if same_content(row[0], value):
        return False
    raise PayloadImmutable(column, turn_id)


def save_replay_record(
    conn: sqlite3.Connection, account_id: str, turn_id: str, record: Json, now: str
) -> None:
    inserted = insert_once(
        conn,
        "INSERT INTO replay_records (account_id, turn_id, payload, created_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (account_id, turn_id, dump_json(record), now),
        turn_id,
    )
    if inserted:
        return
    row = conn.execute(
        "SELECT payload FROM replay_records WHERE account_id = ? AND turn_id = ?",
        (account_id, turn_id),
    ).fetchone()
    if not same_content(row[0], record):
        raise PayloadImmutable("replay record", turn_id)


def get_replay_record(conn: sqlite3.Connection, account_id: str, turn_id: str) -> Json | None:
    row = conn.execute(
        "SELECT payload FROM replay_records WHERE account_id = ? AND turn_id = ?",
        (account_id, turn_id),
    ).fetchone()
    return None if row is None else codec.load_json(row[0])


def save_assistant_turn(
    conn: sqlite3.Connection,
    account_id: str,
    turn_id: str,
    blocks: Json,
    meta: Json | None,
    thread_context: Json | None,
    now: str,
) -> AssistantTurnRecord:
    blocks_json = dump_json(blocks)
    meta_json = None if meta is None else dump_json(meta)
    inserted = insert_once(
        conn,
        "INSERT INTO assistant_turns (account_id, turn_id, blocks, meta, created_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (account_id, turn_id, blocks_json, meta_json, now),
        turn_id,
    )
    if inserted:
        saved = codec.assistant_turn(
            (account_id, turn_id, blocks_json, meta_json, now), blocks=blocks, meta=meta
        )
    else:
        stored = get_assistant_turn(conn, account_id, turn_id)
        assert stored is not None
        if not (same_content(stored.blocks_json, blocks) and _same(stored.meta, meta)):
            raise PayloadImmutable("response", turn_id)
        saved = stored
    if thread_context is not None:
        _save_thread_context_of_turn(conn, account_id, turn_id, thread_context)
    return saved


_DELIVER = PhaseMove(expected=TurnPhase.COMMITTED, new=TurnPhase.DELIVERED)


def deliver_reply(
    conn: sqlite3.Connection,
    account_id: str,
    turn_id: str,
    blocks: Json,
    meta: Json | None,
    thread_context: Json | None,
    now: str,
) -> bool:
    """A fresh reply, the session's thread context and the move ``committed`` → ``delivered``,
    building no record (what :func:`save_assistant_turn` and :func:`move_phase` write). False,
    with nothing written, when the turn has a reply already: the caller then takes the careful
    way, which compares it. A turn not ``committed`` raises as :func:`move_phase` does."""
    inserted = insert_once(
        conn,
        "INSERT INTO assistant_turns (account_id, turn_id, blocks, meta, created_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (account_id, turn_id, dump_json(blocks), None if meta is None else dump_json(meta), now),
        turn_id,
    )
    if not inserted:
        return False
    move_phase(conn, account_id, turn_id, _DELIVER, now)
    if thread_context is not None:
        _save_thread_context_of_turn(conn, account_id, turn_id, thread_context)
    return True


def _save_thread_context_of_turn(
    conn: sqlite3.Connection, account_id: str, turn_id: str, thread_context: Json
) -> None:
    """The turn's session takes ``thread_context``: one statement finding the session by the
    turn; when it changes nothing, the two steps again, to say which one is missing."""
    cur = conn.execute(
        "UPDATE sessions SET thread_context = ? WHERE account_id = ? AND id = "
        "(SELECT session_id FROM turns WHERE account_id = ? AND id = ?)",
        (dump_json(thread_context), account_id, account_id, turn_id),
    )
    if cur.rowcount == 0:
        session_id = _session_of(conn, account_id, turn_id)
        save_thread_context(conn, account_id, session_id, thread_context)


def _session_of(conn: sqlite3.Connection, account_id: str, turn_id: str) -> str:
    row = conn.execute(
        "SELECT session_id FROM turns WHERE account_id = ? AND id = ?", (account_id, turn_id)
    ).fetchone()
    if row is None:
        raise NotFound("turn", turn_id)
    session_id: str = row[0]
    return session_id


def _same(stored: Json | None, new: Json | None) -> bool:
    if stored is None or new is None:
        return stored is new
    return same_content(dump_json(stored), new)


def get_assistant_turn(
    conn: sqlite3.Connection, account_id: str, turn_id: str
) -> AssistantTurnRecord | None:
    row = conn.execute(
        f"SELECT {codec.ASSISTANT_COLUMNS} FROM assistant_turns "
        "WHERE account_id = ? AND turn_id = ?",
        (account_id, turn_id),
    ).fetchone()
    return None if row is None else codec.assistant_turn(row)
