"""The commit bundle: everything one execution step makes true, in one transaction body."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import anyio.to_thread
import asyncpg
import attrs

from turnframe.lifecycle import TurnPhase
from turnframe.stores import replies
from turnframe.stores.errors import NotFound, PhaseConflict, RevisionConflict, StatusConflict
from turnframe.stores.inputs import CommitBundle
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, optional_json, sendable
from turnframe.stores.postgres.ops import cases, interactions, journal, outbox, turns
from turnframe.stores.postgres.tx import Conn
from turnframe.stores.records import BundleReceipt, CaseRecord, OutboxRecord
from turnframe.stores.transitions import journal_may_move


async def commit_bundle(
    conn: Conn,
    bundle: CommitBundle,
    inside_transaction: Callable[[], None] | None,
    now: datetime,
) -> BundleReceipt:
    """Write the bundle's parts in the documented order. Runs inside ``tx.write``: any exception,
    from a check or from ``inside_transaction``, rolls every statement back.

    The events come last (after the phase move), just before the hook and the reply: the
    event-order lock they take is then held for as few round trips as possible.

    The hook is synchronous and may block (fault injection holds a transaction open with it), so
    it runs on a worker thread while the transaction waits, never on the event loop.
    """
    account, turn_id = bundle.account_id, bundle.turn_id
    effects: list[OutboxRecord] = []  # only the one-by-one way writes effects
    one = _one_statement(bundle, now) if _in_one_statement(bundle) else None
    if one is not None:
        written_cases = await _written_in_one(conn, bundle, one, now)
    else:
        written_cases, effects = await _written_one_by_one(conn, bundle, now)
    # The events last: from the event-order lock to COMMIT, every other bundle that appends
    # events waits, so only the events, the hook and the reply come after it. With a reply to
    # store, its savepoint is taken in the same round trip as the lock (before the events: a
    # reply that cannot be written rolls back to it and the events are appended again).
    with_reply = _reply_wanted(bundle)
    if bundle.events:
        await cases.hold_event_order(conn, savepoint=_REPLY_SAVEPOINT if with_reply else None)
    elif with_reply:
        await conn.execute(f"SAVEPOINT {_REPLY_SAVEPOINT}")
    events = [await cases.append_event(conn, account, turn_id, e, now) for e in bundle.events]
    if inside_transaction is not None:
        await anyio.to_thread.run_sync(inside_transaction)
    receipt = BundleReceipt(
        events=tuple(events),
        cases=tuple(written_cases.values()),
        outbox=tuple(effects),
        phase=None if bundle.phase is None else bundle.phase.new,
    )
    if not with_reply:
        return receipt
    return await _with_reply(conn, bundle, receipt, now)


async def _written_one_by_one(
    conn: Conn, bundle: CommitBundle, now: datetime
) -> tuple[dict[str, CaseRecord], list[OutboxRecord]]:
    """Every check and write before the events, one statement each, in the documented order."""
    account, turn_id = bundle.account_id, bundle.turn_id
    await turns.turn_exists(conn, account, turn_id)
    written_cases: dict[str, CaseRecord] = {}
    for new in bundle.new_cases:
        case = await cases.create(conn, account, new, now)
        written_cases[case.case_id] = case
    for outcome in bundle.journal_outcomes:
        await journal.move(conn, account, outcome, now)
    for change in bundle.case_updates:
        written_cases[change.case_id] = await cases.update(conn, account, change, now)
    for case_id in sorted({e.case_id for e in bundle.events} - written_cases.keys()):
        await cases.require(conn, account, case_id)
    for resolution in bundle.card_resolutions:
        await interactions.resolve(conn, account, resolution, now)
    effects = [await outbox.insert(conn, account, turn_id, e, now) for e in bundle.outbox]
    if bundle.replay_record is not None:
        await turns.save_replay_record(conn, account, turn_id, bundle.replay_record, now)
    if bundle.phase is not None:
        await turns.move_phase(conn, account, turn_id, bundle.phase, now)
    return written_cases, effects


#: At most this many journal moves and case updates go into the one statement. Each count,
#: with or without a replay record and a phase move, is its own prepared statement: 36 shapes
#: at most, where asyncpg caches 100 statements per connection.
_MOST_IN_ONE = 2


def _in_one_statement(bundle: CommitBundle) -> bool:
    """Whether the bundle's checks and writes before the events fit one statement: no new
    cases, cards or effects, a few journal moves and case updates on distinct keys and cases,
    every move legal (an illegal one is refused the careful way, which names it)."""
    outcomes, updates, phase = bundle.journal_outcomes, bundle.case_updates, bundle.phase
    if bundle.new_cases or bundle.card_resolutions or bundle.outbox:
        return False
    if len(outcomes) > _MOST_IN_ONE or len(updates) > _MOST_IN_ONE:
        return False
    if len({o.idempotency_key for o in outcomes}) < len(outcomes):
        return False
    if len({u.case_id for u in updates}) < len(updates):
        return False
    if any(not journal_may_move(o.expected, o.status) for o in outcomes):
        return False
    return phase is None or phase.expected.may_advance_to(phase.new)


_JOURNAL_WIDTH = len(codec.JOURNAL_COLUMNS.split(","))
_CASE_WIDTH = len(codec.CASE_COLUMNS.split(","))


def _one_statement(bundle: CommitBundle, now: datetime) -> tuple[str, list[object]] | None:
    """The statement for :func:`_written_in_one`, or None when a value cannot be sent (it does
    not encode as JSON, or PostgreSQL would refuse it): the one-by-one writes then meet it in
    their order, after the checks that come first."""
    try:
        sql, params = _statement(bundle, now)
    except (ValueError, TypeError):  # NaN, a set, ...: dump_json's refusals
        return None
    return (sql, params) if sendable(params) else None


def _statement(bundle: CommitBundle, now: datetime) -> tuple[str, list[object]]:
    """One data-modifying CTE per write, and one row that says, for the turn and each write,
    whether it found its row.

    The writes touch different rows (distinct keys and cases, one turn row), so running them
    on one snapshot, as a statement's CTEs run, writes what the same statements one by one
    write."""
    params: list[object] = [bundle.account_id, bundle.turn_id]
    at = ""  # the parameter holding ``now``, once a write needs it

    def param(value: object) -> str:
        params.append(value)
        return f"${len(params)}"

    def now_param() -> str:
        nonlocal at
        at = at or param(now)
        return at

    ctes: list[str] = []
    joined: list[str] = []
    columns = ["(SELECT 1 FROM turns WHERE account_id = $1 AND id = $2)"]
    for i, outcome in enumerate(bundle.journal_outcomes):
        ctes.append(
            f"j{i} AS (UPDATE journal SET status = {param(outcome.status.value)}, "
            f"outcome = COALESCE({param(optional_json(outcome.outcome))}::json, outcome), "
            f"updated_at = {now_param()} WHERE account_id = $1 "
            f"AND idempotency_key = {param(outcome.idempotency_key)} "
            f"AND status = {param(outcome.expected.value)} RETURNING {codec.JOURNAL_COLUMNS})"
        )
        joined.append(f"j{i}")
    for i, change in enumerate(bundle.case_updates):
        ctes.append(
            f"c{i} AS (UPDATE cases SET state = {param(dump_json(change.state))}, "
            f"revision = {param(change.new_revision)}, updated_at = {now_param()} "
            f"WHERE account_id = $1 AND id = {param(change.case_id)} "
            f"AND revision = {param(change.expected_revision)} RETURNING {codec.CASE_COLUMNS})"
        )
        joined.append(f"c{i}")
    if bundle.replay_record is not None:
        ctes.append(
            "r AS (INSERT INTO replay_records (account_id, turn_id, payload, created_at) "
            f"VALUES ($1, $2, {param(dump_json(bundle.replay_record))}, {now_param()}) "
            "ON CONFLICT DO NOTHING RETURNING 1 AS inserted)"
        )
        joined.append("r")
    if bundle.phase is not None:
        ctes.append(
            f"p AS (UPDATE turns SET phase = {param(bundle.phase.new.value)}, "
            f"phase_changed_at = {now_param()} WHERE account_id = $1 AND id = $2 "
            f"AND phase = {param(bundle.phase.expected.value)} RETURNING 1 AS moved)"
        )
        joined.append("p")
    columns.extend(f"{name}.*" for name in joined)
    sql = (
        ("WITH " + ", ".join(ctes) + " " if ctes else "")
        + "SELECT "
        + ", ".join(columns)
        + " FROM (SELECT 1) AS one"
        + "".join(f" LEFT JOIN {name} ON true" for name in joined)
    )
    return sql, params


async def _written_in_one(
    conn: Conn, bundle: CommitBundle, statement: tuple[str, list[object]], now: datetime
) -> dict[str, CaseRecord]:
    """The turn check, the journal moves, the case updates, the replay record and the phase
    move in one round trip (where one by one they take up to a dozen), then each write's
    result judged in the order the one-by-one writes run: the first that did not find its row
    raises the error they raise, from a read of the row as it stands (a failure rolls the
    whole transaction back, these writes included)."""
    account, turn_id = bundle.account_id, bundle.turn_id
    sql, params = statement
    try:
        found = await conn.fetchrow(sql, *params)
    except asyncpg.exceptions.ForeignKeyViolationError as exc:  # the replay record's turn
        raise NotFound("turn", turn_id) from exc
    assert found is not None  # one row, whatever the writes found
    row: tuple[Any, ...] = tuple(found[i] for i in range(len(found)))
    if row[0] is None:
        raise NotFound("turn", turn_id)
    at = 1
    for outcome in bundle.journal_outcomes:
        if row[at] is None:
            stored = await journal.get(conn, account, outcome.idempotency_key)
            if stored is None:
                raise NotFound("journal entry", outcome.idempotency_key)
            key, expected = outcome.idempotency_key, outcome.expected.value
            raise StatusConflict("journal entry", key, expected, stored.status.value)
        at += _JOURNAL_WIDTH
    written: dict[str, CaseRecord] = {}
    for change in bundle.case_updates:
        if row[at] is None:
            case = await cases.get(conn, account, change.case_id)
            if case is None:
                raise NotFound("case", change.case_id)
            raise RevisionConflict(change.case_id, change.expected_revision, case.revision)
        written[change.case_id] = codec.case(row[at : at + _CASE_WIDTH])
        at += _CASE_WIDTH
    for case_id in sorted({e.case_id for e in bundle.events} - written.keys()):
        await cases.require(conn, account, case_id)
    if bundle.replay_record is not None:
        if row[at] is None:  # stored already: the same record, or PayloadImmutable
            await turns.save_replay_record(conn, account, turn_id, bundle.replay_record, now)
        at += 1
    if bundle.phase is not None and row[at] is None:
        phase = await conn.fetchval(
            "SELECT phase FROM turns WHERE account_id = $1 AND id = $2", account, turn_id
        )
        if phase is None:
            raise NotFound("turn", turn_id)
        raise PhaseConflict(turn_id, bundle.phase.expected.value, phase)
    return written


_REPLY_SAVEPOINT = "turnframe_reply"


def _reply_wanted(bundle: CommitBundle) -> bool:
    """Whether the bundle asks for its reply (as :func:`replies.compose` decides)."""
    phase = bundle.phase
    return bundle.reply is not None and phase is not None and phase.new is TurnPhase.COMMITTED


async def _with_reply(
    conn: Conn, bundle: CommitBundle, receipt: BundleReceipt, now: datetime
) -> BundleReceipt:
    """The reply and the move to ``delivered`` after the savepoint taken before the events:
    both, or neither and the bundle still commits (see :mod:`turnframe.stores.replies`)."""
    reply = replies.compose(bundle, receipt)
    if reply is None:  # nothing was written since the savepoint: it ends with the COMMIT
        return receipt
    account, turn_id = bundle.account_id, bundle.turn_id
    try:
        delivered = await turns.deliver_reply(
            conn, account, turn_id, reply.blocks, reply.meta, reply.thread_context, now
        )
        if not delivered:  # a reply stored already (or the phase moved): the careful way
            await turns.save_assistant_turn(
                conn, account, turn_id, reply.blocks, reply.meta, reply.thread_context, now
            )
            await turns.move_phase(conn, account, turn_id, replies.DELIVER, now)
    except Exception as error:
        # Back to before the events (the event-order lock goes with them), then the events
        # again: the bundle commits whole, without the reply. The hook is not run again.
        await conn.execute(f"ROLLBACK TO SAVEPOINT {_REPLY_SAVEPOINT}")
        replies.left_out(bundle, error)
        if bundle.events:
            await cases.hold_event_order(conn)
        events = [await cases.append_event(conn, account, turn_id, e, now) for e in bundle.events]
        return attrs.evolve(receipt, events=tuple(events))
    # No RELEASE: the COMMIT that follows ends the savepoint with the transaction, and one
    # round trip fewer is spent holding the event-order lock.
    return attrs.evolve(receipt, phase=TurnPhase.DELIVERED)
