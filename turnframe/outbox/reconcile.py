"""Reconciliation: asking the remote side what happened to an effect whose outcome is unknown.

A row in ``outcome_unknown`` is never sent again on a guess. A :class:`Reconciler` looks the
effect up by its idempotency key and answers one :class:`Reconciliation`:

=================  ==================================================  =====================
verdict            meaning                                             the row becomes
=================  ==================================================  =====================
``completed``      the remote side performed it                        ``completed``
``failed``         the remote side received it and refused it for good ``permanent_failed``
``not_happened``   it certainly did not happen                         ``pending`` (sent again,
                                                                       same key)
``still_unknown``  the remote side cannot tell yet                     unchanged
=================  ==================================================  =====================
"""

from __future__ import annotations

import enum
from typing import Protocol

import anyio
import attrs

from turnframe.outbox.deadline import Sleep, answer_within
from turnframe.outbox.effects import OutboundEffect
from turnframe.outbox.sender import json_value
from turnframe.stores.records import Json, OutboxResult


class ReconcileVerdict(enum.StrEnum):
    COMPLETED = "completed"
    FAILED = "failed"
    NOT_HAPPENED = "not_happened"
    STILL_UNKNOWN = "still_unknown"


#: The store result each conclusive verdict settles an unknown row with.
RESULT_FOR_VERDICT: dict[ReconcileVerdict, OutboxResult] = {
    ReconcileVerdict.COMPLETED: OutboxResult.COMPLETED,
    ReconcileVerdict.FAILED: OutboxResult.PERMANENT_FAILED,
    ReconcileVerdict.NOT_HAPPENED: OutboxResult.RETRYABLE,
}


@attrs.frozen(kw_only=True)
class Reconciliation:
    """The remote side's answer about one effect; ``outcome`` is any JSON detail."""

    verdict: ReconcileVerdict
    outcome: Json = attrs.field(default=None, validator=json_value)

    @classmethod
    def completed(cls, outcome: Json = None) -> Reconciliation:
        return cls(verdict=ReconcileVerdict.COMPLETED, outcome=outcome)

    @classmethod
    def failed(cls, outcome: Json = None) -> Reconciliation:
        return cls(verdict=ReconcileVerdict.FAILED, outcome=outcome)

    @classmethod
    def not_happened(cls, outcome: Json = None) -> Reconciliation:
        return cls(verdict=ReconcileVerdict.NOT_HAPPENED, outcome=outcome)

    @classmethod
    def still_unknown(cls, outcome: Json = None) -> Reconciliation:
        return cls(verdict=ReconcileVerdict.STILL_UNKNOWN, outcome=outcome)

    def outcome_json(self) -> dict[str, Json]:
        """What the row's ``outcome`` column records once reconciled."""
        return {"reconciled": self.verdict.value, "detail": self.outcome}


class Reconciler(Protocol):
    """Answers what happened to an effect, looked up by ``effect.idempotency_key``. Answer
    ``not_happened`` only when it certainly did not happen: the effect is then sent again."""

    async def check(self, effect: OutboundEffect) -> Reconciliation: ...


async def check_within(
    reconciler: Reconciler,
    effect: OutboundEffect,
    *,
    seconds: float,
    deadline: Sleep = anyio.sleep,
) -> Reconciliation:
    """Ask ``reconciler``; no answer in time, or a raising reconciler, is ``still_unknown``."""

    async def call() -> Reconciliation:
        try:
            return await reconciler.check(effect)
        except Exception as error:  # asking again later is always safe
            detail = {"error": type(error).__name__, "message": str(error)}
            return Reconciliation.still_unknown(detail)

    answer = await answer_within(call, seconds=seconds, deadline=deadline)
    return Reconciliation.still_unknown({"timeout_s": seconds}) if answer is None else answer


@attrs.frozen(kw_only=True)
class ReconciledEffect:
    account_id: str
    effect_id: str
    idempotency_key: str
    verdict: ReconcileVerdict


@attrs.frozen(kw_only=True)
class ReconcileReport:
    """What one reconciliation pass concluded, row by row (oldest first). ``skipped`` rows were
    settled by someone else meanwhile or could not be read as an effect."""

    effects: tuple[ReconciledEffect, ...] = ()
    skipped: tuple[str, ...] = ()

    def with_verdict(self, verdict: ReconcileVerdict) -> list[ReconciledEffect]:
        return [e for e in self.effects if e.verdict is verdict]
