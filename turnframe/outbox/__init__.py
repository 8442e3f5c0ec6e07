"""External effects through the outbox: committed with the domain state, sent after commit
with their idempotency key, classified, reconciled when their outcome is unknown.

See ``docs/outbox.md``. The gate writes rows with :func:`outbox_effect`; the runtime runs one
:class:`OutboxDispatcher` loop in its task group and calls ``notify()`` after each commit.
"""

from __future__ import annotations

from turnframe.outbox.backoff import RetryPolicy
from turnframe.outbox.deadline import Sleep
from turnframe.outbox.dispatcher import OutboxDispatcher
from turnframe.outbox.effects import (
    OutboundEffect,
    effect_idempotency_key,
    encode_effect,
    outbox_effect,
)
from turnframe.outbox.errors import DispatcherAlreadyRunning, MalformedEffect, OutboxError
from turnframe.outbox.reconcile import (
    ReconciledEffect,
    Reconciler,
    ReconcileReport,
    ReconcileVerdict,
    Reconciliation,
)
from turnframe.outbox.report import DispatchedEffect, DispatchReport, Settlement
from turnframe.outbox.sender import EffectSender, SendResult, send_within

__all__ = [
    "DispatchReport",
    "DispatchedEffect",
    "DispatcherAlreadyRunning",
    "EffectSender",
    "MalformedEffect",
    "OutboundEffect",
    "OutboxDispatcher",
    "OutboxError",
    "ReconcileReport",
    "ReconcileVerdict",
    "ReconciledEffect",
    "Reconciler",
    "Reconciliation",
    "RetryPolicy",
    "SendResult",
    "Settlement",
    "Sleep",
    "effect_idempotency_key",
    "encode_effect",
    "outbox_effect",
    "send_within",
]
