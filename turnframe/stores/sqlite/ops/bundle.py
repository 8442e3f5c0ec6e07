"""The commit bundle: everything one execution step makes true, in one transaction body."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import attrs

from turnframe.lifecycle import TurnPhase
from turnframe.stores import replies
from turnframe.stores.inputs import CommitBundle
from turnframe.stores.records import BundleReceipt
from turnframe.stores.sqlite.ops import cases, interactions, journal, outbox, turns


def commit_bundle(
    conn: sqlite3.Connection,
    bundle: CommitBundle,
    inside_transaction: Callable[[], None] | None,
    now: str,
) -> BundleReceipt:
    """Write the bundle's parts in the documented order. Runs inside ``tx.write``: any exception,
    from a check or from ``inside_transaction``, rolls every statement back."""
    account, turn_id = bundle.account_id, bundle.turn_id
    turns.turn_exists(conn, account, turn_id)
    created = (cases.create(conn, account, new, now) for new in bundle.new_cases)
    written_cases = {case.case_id: case for case in created}
    for outcome in bundle.journal_outcomes:
        journal.move(conn, account, outcome, now)
    for change in bundle.case_updates:
        written_cases[change.case_id] = cases.update(conn, account, change, now)
    for case_id in {e.case_id for e in bundle.events} - written_cases.keys():
        cases.require(conn, account, case_id)
    for resolution in bundle.card_resolutions:
        interactions.resolve(conn, account, resolution, now)
    effects = tuple(outbox.insert(conn, account, turn_id, e, now) for e in bundle.outbox)
    if bundle.replay_record is not None:
        turns.save_replay_record(conn, account, turn_id, bundle.replay_record, now)
    if bundle.phase is not None:
        turns.move_phase(conn, account, turn_id, bundle.phase, now)
    events = tuple(cases.append_event(conn, account, turn_id, e, now) for e in bundle.events)
    if inside_transaction is not None:
        inside_transaction()
    receipt = BundleReceipt(
        events=events,
        cases=tuple(written_cases.values()),
        outbox=effects,
        phase=None if bundle.phase is None else bundle.phase.new,
    )
    return _with_reply(conn, bundle, receipt, now)


def _with_reply(
    conn: sqlite3.Connection, bundle: CommitBundle, receipt: BundleReceipt, now: str
) -> BundleReceipt:
    """The reply and the move to ``delivered`` in a savepoint: both, or neither and the bundle
    still commits (see :mod:`turnframe.stores.replies`)."""
    reply = replies.compose(bundle, receipt)
    if reply is None:
        return receipt
    account, turn_id = bundle.account_id, bundle.turn_id
    conn.execute("SAVEPOINT turnframe_reply")
    try:
        delivered = turns.deliver_reply(
            conn, account, turn_id, reply.blocks, reply.meta, reply.thread_context, now
        )
        if not delivered:  # a reply stored already: the careful way compares it
            turns.save_assistant_turn(
                conn, account, turn_id, reply.blocks, reply.meta, reply.thread_context, now
            )
            turns.move_phase(conn, account, turn_id, replies.DELIVER, now)
    except Exception as error:
        conn.execute("ROLLBACK TO turnframe_reply")
        conn.execute("RELEASE turnframe_reply")
        replies.left_out(bundle, error)
        return receipt
    conn.execute("RELEASE turnframe_reply")
    return attrs.evolve(receipt, phase=TurnPhase.DELIVERED)
