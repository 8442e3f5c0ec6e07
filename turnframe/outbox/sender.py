"""Senders deliver external effects and classify each send; a send that does not answer in
time is an unknown outcome, never a failure that may be blindly sent again.

A sender answers one of four :class:`SendResult`\\ s:

- ``completed``: the remote side performed the effect (``outcome`` is its receipt);
- ``retryable``: the effect certainly did NOT take effect and may be sent again (optionally not
  before ``retry_after``), e.g. a 503 refused before processing;
- ``permanent``: it will never succeed (a validation error at the remote side);
- ``unknown``: the sender cannot tell whether it happened (a connection lost after the request
  went out). The row goes to ``outcome_unknown`` and waits for reconciliation.

:func:`send_within` adds the deadline: a sender that does not answer within the timeout, or
raises, is classified ``unknown``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Protocol

import anyio
import attrs

from turnframe.outbox.deadline import Sleep, answer_within
from turnframe.outbox.effects import OutboundEffect
from turnframe.outbox.errors import SEND_TIMED_OUT, SENDER_CRASHED
from turnframe.stores.records import Json, OutboxResult
from turnframe.stores.rows import dump_json


def json_value(_: Any, attribute: attrs.Attribute[Any], value: Json) -> None:
    """Refuse an outcome the store could not record (it must be plain JSON)."""
    try:
        dump_json(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{attribute.name} must be plain JSON: {error}") from error


def _retry_after_only_when_retryable(
    instance: SendResult, _: attrs.Attribute[Any], value: timedelta | None
) -> None:
    if value is None:
        return
    if instance.result is not OutboxResult.RETRYABLE:
        raise ValueError("retry_after belongs to a retryable result only")
    if value < timedelta(0):
        raise ValueError(f"retry_after must be >= 0, got {value}")


@attrs.frozen(kw_only=True)
class SendResult:
    """How one send went. Build it with :meth:`completed`, :meth:`retryable`, :meth:`permanent`
    or :meth:`unknown`; ``reason`` is a short stable code, ``outcome`` any JSON detail."""

    result: OutboxResult
    outcome: Json = attrs.field(default=None, validator=json_value)
    reason: str | None = None
    retry_after: timedelta | None = attrs.field(
        default=None, validator=_retry_after_only_when_retryable
    )

    @classmethod
    def completed(cls, outcome: Json = None) -> SendResult:
        return cls(result=OutboxResult.COMPLETED, outcome=outcome)

    @classmethod
    def retryable(
        cls,
        *,
        reason: str | None = None,
        retry_after: timedelta | None = None,
        outcome: Json = None,
    ) -> SendResult:
        return cls(
            result=OutboxResult.RETRYABLE, reason=reason, retry_after=retry_after, outcome=outcome
        )

    @classmethod
    def permanent(cls, *, reason: str | None = None, outcome: Json = None) -> SendResult:
        return cls(result=OutboxResult.PERMANENT_FAILED, reason=reason, outcome=outcome)

    @classmethod
    def unknown(cls, *, reason: str | None = None, outcome: Json = None) -> SendResult:
        return cls(result=OutboxResult.OUTCOME_UNKNOWN, reason=reason, outcome=outcome)

    def outcome_json(self) -> dict[str, Json]:
        """What the row's ``outcome`` column records for this result."""
        return {"result": self.result.value, "reason": self.reason, "detail": self.outcome}


class EffectSender(Protocol):
    """Delivers the effects of one channel. Send ``effect.idempotency_key`` along so the remote
    side can dedupe: the same row may be sent more than once after a retryable result.

    A sender whose remote side dedupes on that key says so with a class attribute
    ``idempotency_keys = True``. Only then does a row whose claim expired (its dispatcher died
    mid-send, or lost the store) go back to pending and get sent again; for any other sender it
    becomes ``outcome_unknown`` and is reconciled, never re-sent blind (ADR 0018)."""

    async def send(self, effect: OutboundEffect) -> SendResult: ...


def declares_idempotency_keys(sender: object) -> bool:
    """Whether ``sender`` declared that its remote side dedupes on the idempotency key."""
    return getattr(sender, "idempotency_keys", False) is True


async def send_within(
    sender: EffectSender, effect: OutboundEffect, *, seconds: float, deadline: Sleep = anyio.sleep
) -> SendResult:
    """Send ``effect``; no answer before ``deadline(seconds)`` returns, or a raising sender,
    is an ``unknown`` result. Cancellation from outside propagates."""

    async def call() -> SendResult:
        try:
            return await sender.send(effect)
        except Exception as error:  # it may have been sent before the sender broke
            detail = {"error": type(error).__name__, "message": str(error)}
            return SendResult.unknown(reason=SENDER_CRASHED, outcome=detail)

    answer = await answer_within(call, seconds=seconds, deadline=deadline)
    if answer is None:
        return SendResult.unknown(reason=SEND_TIMED_OUT, outcome={"timeout_s": seconds})
    return answer
