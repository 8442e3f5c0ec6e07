"""Which way each lifecycle column may move. Pure rules shared by every store implementation.

Turn phases follow :meth:`turnframe.lifecycle.TurnPhase.may_advance_to`. Journal statuses only
move forward: a settled entry (committed or failed) is final, an unknown outcome is reconciled to
committed or failed and never goes back to running.
"""

from __future__ import annotations

from turnframe.lifecycle import JournalStatus
from turnframe.stores.records import OutboxResult, OutboxStatus

_J = JournalStatus

_JOURNAL_MOVES: dict[JournalStatus, frozenset[JournalStatus]] = {
    _J.AWAITING_CONFIRMATION: frozenset({_J.PENDING, _J.EXECUTING, _J.COMMITTED, _J.FAILED}),
    _J.PENDING: frozenset({_J.EXECUTING, _J.COMMITTED, _J.FAILED, _J.OUTCOME_UNKNOWN}),
    _J.EXECUTING: frozenset({_J.COMMITTED, _J.FAILED, _J.OUTCOME_UNKNOWN}),
    _J.OUTCOME_UNKNOWN: frozenset({_J.COMMITTED, _J.FAILED}),
    _J.COMMITTED: frozenset(),
    _J.FAILED: frozenset(),
}


def journal_may_move(current: JournalStatus, new: JournalStatus) -> bool:
    return new in _JOURNAL_MOVES[current]


#: The status a claimed outbox row takes for each send result (retryable goes back to pending).
OUTBOX_STATUS_AFTER: dict[OutboxResult, OutboxStatus] = {
    OutboxResult.COMPLETED: OutboxStatus.COMPLETED,
    OutboxResult.RETRYABLE: OutboxStatus.PENDING,
    OutboxResult.PERMANENT_FAILED: OutboxStatus.PERMANENT_FAILED,
    OutboxResult.OUTCOME_UNKNOWN: OutboxStatus.OUTCOME_UNKNOWN,
}

#: What reconciliation may conclude about an unknown outcome (it is unknown no longer).
RECONCILED_RESULTS = frozenset(
    {OutboxResult.COMPLETED, OutboxResult.PERMANENT_FAILED, OutboxResult.RETRYABLE}
)
