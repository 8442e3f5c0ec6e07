"""Typed outbox errors and the stable reason codes written into settled rows' outcomes."""

from __future__ import annotations

from turnframe.errors import TurnframeError

#: The send did not answer within ``send_timeout``: it may or may not have happened.
SEND_TIMED_OUT = "turnframe.outbox.send_timed_out"
#: The sender raised instead of classifying its send: it may or may not have happened.
SENDER_CRASHED = "turnframe.outbox.sender_crashed"
#: The dispatcher was cancelled (shutdown) while the send was in flight.
CANCELLED_IN_FLIGHT = "turnframe.outbox.cancelled_in_flight"
#: No sender is registered for the row's channel; nothing was sent, it is tried again later.
NO_SENDER = "turnframe.outbox.no_sender"
#: The row's payload is not an encoded effect; nothing was sent and nothing ever can be.
MALFORMED_EFFECT = "turnframe.outbox.malformed_effect"
#: A retryable effect used up its attempts and was settled as a permanent failure.
RETRIES_EXHAUSTED = "turnframe.outbox.retries_exhausted"


class OutboxError(TurnframeError):
    """Base class of what the outbox raises on purpose."""

    code = "turnframe.outbox.error"


class MalformedEffect(OutboxError):
    """An outbox row's payload is not what :func:`~turnframe.outbox.effects.encode_effect`
    writes (a ``channel`` string and a ``payload`` object)."""

    code = "turnframe.outbox.malformed_effect"

    def __init__(self, effect_id: str, problem: str) -> None:
        super().__init__(
            f"outbox effect {effect_id!r} is malformed: {problem}",
            hint="write outbox rows with turnframe.outbox.outbox_effect(...)",
        )
        self.effect_id = effect_id


class DispatcherAlreadyRunning(OutboxError):
    """``OutboxDispatcher.run`` was entered while the same dispatcher was already running."""

    code = "turnframe.outbox.already_running"

    def __init__(self) -> None:
        super().__init__(
            "this OutboxDispatcher is already running",
            hint="run one loop per dispatcher; create another dispatcher for more workers",
        )
