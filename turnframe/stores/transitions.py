"""Which way each lifecycle column may move. Pure rules shared by every store implementation.

Turn phases follow :meth:`turnframe.lifecycle.TurnPhase.may_advance_to`. Journal statuses only
move forward: a settled entry (committed or failed) is final, an unknown outcome is reconciled to
committed or failed and never goes back to running. A session lease goes to whoever asks
when it is free or expired, and stays with a live holder (:func:`lease_grant`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from turnframe.lifecycle import JournalStatus
from turnframe.stores.records import OutboxResult, OutboxStatus, SessionLease

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


def lease_grant(
    *,
    account_id: str,
    session_id: str,
    holder: str | None,
    held_since: datetime | None,
    held_until: datetime | None,
    worker_id: str,
    now: datetime,
    expires_at: datetime,
) -> SessionLease | None:
    """The lease ``worker_id`` gets on a session whose lease row reads ``holder``,
    ``held_since``, ``held_until`` (all None when not leased), or None when another worker's
    lease is live at ``now``. Instants come back in UTC, as the stores read them back."""
    now, expires_at = now.astimezone(UTC), expires_at.astimezone(UTC)

    def lease(acquired_at: datetime, previous: str | None) -> SessionLease:
        return SessionLease(
            account_id=account_id,
            session_id=session_id,
            worker_id=worker_id,
            acquired_at=acquired_at,
            expires_at=expires_at,
            taken_over=previous is not None,
            previous_worker=previous,
        )

    if holder is None:
        return lease(now, None)
    if holder == worker_id:  # a renewal; a lapsed lease nobody took is still this worker's hold
        assert held_since is not None
        return lease(held_since.astimezone(UTC), None)
    assert held_until is not None
    if held_until > now:
        return None
    return lease(now, holder)
