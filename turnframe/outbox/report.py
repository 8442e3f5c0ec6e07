"""What one dispatch pass did, row by row."""

from __future__ import annotations

import enum
from datetime import datetime

import attrs

from turnframe.stores.records import OutboxResult


class Settlement(enum.StrEnum):
    """Where a claimed row ended after its send."""

    COMPLETED = "completed"
    #: Back to pending, available again at ``retry_at`` (same idempotency key).
    RETRY_SCHEDULED = "retry_scheduled"
    PERMANENT_FAILED = "permanent_failed"
    #: Waits for reconciliation; the dispatcher never sends it again on its own.
    OUTCOME_UNKNOWN = "outcome_unknown"
    #: The lease was reaped before the result was recorded; the row is someone else's now.
    LEASE_LOST = "lease_lost"
    #: The store refused to record the result; the row stays claimed until the reaper frees it.
    UNSETTLED = "unsettled"


SETTLEMENT_FOR_RESULT: dict[OutboxResult, Settlement] = {
    OutboxResult.COMPLETED: Settlement.COMPLETED,
    OutboxResult.RETRYABLE: Settlement.RETRY_SCHEDULED,
    OutboxResult.PERMANENT_FAILED: Settlement.PERMANENT_FAILED,
    OutboxResult.OUTCOME_UNKNOWN: Settlement.OUTCOME_UNKNOWN,
}


@attrs.frozen(kw_only=True)
class DispatchedEffect:
    account_id: str
    effect_id: str
    idempotency_key: str
    attempt: int
    settlement: Settlement
    reason: str | None = None
    retry_at: datetime | None = None


@attrs.frozen(kw_only=True)
class DispatchReport:
    """One ``dispatch_once``: the claim token and each claimed row's settlement, in claim
    order."""

    claim_token: str
    effects: tuple[DispatchedEffect, ...] = ()

    @property
    def claimed(self) -> int:
        return len(self.effects)

    def with_settlement(self, settlement: Settlement) -> list[DispatchedEffect]:
        return [e for e in self.effects if e.settlement is settlement]
