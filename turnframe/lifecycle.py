"""Durable lifecycle markers: the phase of a turn and the status of a journaled command.

Only these columns ever move in the store, and only forward, by compare-and-swap.
"""

from __future__ import annotations

import enum


class TurnPhase(enum.StrEnum):
    """Where a turn stands. ``failed`` is written only when nothing committed."""

    RECEIVED = "received"
    INTERPRETED = "interpreted"
    REDUCED = "reduced"
    EXECUTING = "executing"
    COMMITTED = "committed"
    COMPOSED = "composed"
    DELIVERED = "delivered"
    FAILED = "failed"

    @property
    def is_terminal(self) -> bool:
        return self in (TurnPhase.DELIVERED, TurnPhase.FAILED)

    @property
    def is_sealed(self) -> bool:
        """True once commands may have been admitted: nothing re-interprets from here on."""
        return self in (
            TurnPhase.EXECUTING,
            TurnPhase.COMMITTED,
            TurnPhase.COMPOSED,
            TurnPhase.DELIVERED,
        )

    def may_advance_to(self, nxt: TurnPhase) -> bool:
        if self.is_terminal:
            return False
        if nxt is TurnPhase.FAILED:
            return not self.is_sealed or self is TurnPhase.EXECUTING
        order = _PHASE_ORDER
        return order.index(nxt) > order.index(self)


_PHASE_ORDER = [
    TurnPhase.RECEIVED,
    TurnPhase.INTERPRETED,
    TurnPhase.REDUCED,
    TurnPhase.EXECUTING,
    TurnPhase.COMMITTED,
    TurnPhase.COMPOSED,
    TurnPhase.DELIVERED,
]


class JournalStatus(enum.StrEnum):
    """The status of one command in the journal.

    ``outcome_unknown`` is an external effect whose send timed out: it is reconciled, never
    retried.
    """

    PENDING = "pending"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    EXECUTING = "executing"
    COMMITTED = "committed"
    FAILED = "failed"
    OUTCOME_UNKNOWN = "outcome_unknown"

    @property
    def is_settled(self) -> bool:
        return self in (JournalStatus.COMMITTED, JournalStatus.FAILED)
