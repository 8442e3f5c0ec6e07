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

    The events come last (after the phase move), just before the hook and the reply: the
    event-order lock they take is then held for as few round trips as possible.

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
    for resolution in bundle.card_resolutions:
        await interactions.resolve(conn, account, resolution, now)
    effects = [await outbox.insert(conn, account, turn_id, e, now) for e in bundle.outbox]
    if bundle.replay_record is not None:
        await turns.save_replay_record(conn, account, turn_id, bundle.replay_record, now)
    if bundle.phase is not None:
        await turns.move_phase(conn, account, turn_id, bundle.phase, now)
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
        events = [
            await cases.append_event(conn, account, turn_id, e, now) for e in bundle.events
        ]
        return attrs.evolve(receipt, events=tuple(events))
    # No RELEASE: the COMMIT that follows ends the savepoint with the transaction, and one
    # round trip fewer is spent holding the event-order lock.
    return attrs.evolve(receipt, phase=TurnPhase.DELIVERED)
