"""The commit bundle: everything one execution step makes true, in one transaction body."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import anyio.to_thread
import attrs

from turnframe.lifecycle import TurnPhase
from turnframe.stores import replies
from turnframe.stores.inputs import CommitBundle
from turnframe.stores.postgres.ops import cases, interactions, journal, outbox, turns
from turnframe.stores.postgres.tx import Conn
from turnframe.stores.records import BundleReceipt, CaseRecord


async def commit_bundle(
    conn: Conn,
    bundle: CommitBundle,
    inside_transaction: Callable[[], None] | None,
    now: datetime,
) -> BundleReceipt:
    """Write the bundle's parts in the documented order. Runs inside ``tx.write``: any exception,
    from a check or from ``inside_transaction``, rolls every statement back.

    The hook is synchronous and may block (fault injection holds a transaction open with it), so
    it runs on a worker thread while the transaction waits, never on the event loop.
    """
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
    if bundle.events:
        await cases.hold_event_order(conn)
    events = [await cases.append_event(conn, account, turn_id, e, now) for e in bundle.events]
    if inside_transaction is not None:
        await anyio.to_thread.run_sync(inside_transaction)
    for resolution in bundle.card_resolutions:
        await interactions.resolve(conn, account, resolution, now)
    effects = [await outbox.insert(conn, account, turn_id, e, now) for e in bundle.outbox]
    if bundle.replay_record is not None:
        await turns.save_replay_record(conn, account, turn_id, bundle.replay_record, now)
    if bundle.phase is not None:
        await turns.move_phase(conn, account, turn_id, bundle.phase, now)
    receipt = BundleReceipt(
        events=tuple(events),
        cases=tuple(written_cases.values()),
        outbox=tuple(effects),
        phase=None if bundle.phase is None else bundle.phase.new,
    )
    return await _with_reply(conn, bundle, receipt, now)


async def _with_reply(
    conn: Conn, bundle: CommitBundle, receipt: BundleReceipt, now: datetime
) -> BundleReceipt:
    """The reply and the move to ``delivered`` in a savepoint: both, or neither and the bundle
    still commits (see :mod:`turnframe.stores.replies`)."""
    reply = replies.compose(bundle, receipt)
    if reply is None:
        return receipt
    account, turn_id = bundle.account_id, bundle.turn_id
    await conn.execute("SAVEPOINT turnframe_reply")
    try:
        await turns.save_assistant_turn(
            conn, account, turn_id, reply.blocks, reply.meta, reply.thread_context, now
        )
        await turns.move_phase(conn, account, turn_id, replies.DELIVER, now)
    except Exception as error:
        await conn.execute("ROLLBACK TO SAVEPOINT turnframe_reply")
        await conn.execute("RELEASE SAVEPOINT turnframe_reply")
        replies.left_out(bundle, error)
        return receipt
    await conn.execute("RELEASE SAVEPOINT turnframe_reply")
    return attrs.evolve(receipt, phase=TurnPhase.DELIVERED)
