"""Typed errors of the actor runtime: what an asker or a sender can be told."""

from __future__ import annotations

from turnframe.errors import TurnframeError


class ActorError(TurnframeError):
    """Base of the errors an `ActorRef` raises; ``actor`` names the actor."""

    code = "turnframe.actor.error"

    def __init__(self, message: str, *, actor: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.actor = actor


class AskTimeout(ActorError):
    """No reply arrived before the ask's deadline (the message may still be handled later)."""

    code = "turnframe.actor.ask_timeout"

    def __init__(self, *, actor: str, message_type: str, timeout: float) -> None:
        super().__init__(
            f"actor {actor!r} did not answer {message_type} within {timeout:g}s",
            actor=actor,
            hint="raise the ask timeout, or look for a slow or blocked handler in the logs",
        )
        self.message_type = message_type
        self.timeout = timeout


class ActorCrashed(ActorError):
    """The handler of this very message raised an error the actor did not declare as expected.

    ``cause`` is that error (also chained as ``__cause__``). The supervisor restarts the actor;
    messages queued behind this one are kept.
    """

    code = "turnframe.actor.crashed"

    def __init__(self, *, actor: str, message_type: str, cause: BaseException) -> None:
        super().__init__(
            f"actor {actor!r} crashed handling {message_type}: {type(cause).__name__}: {cause}",
            actor=actor,
            hint="the actor is restarted by its supervisor; retry if the message is idempotent",
        )
        self.message_type = message_type
        self.cause = cause
        self.__cause__ = cause


class ActorStopped(ActorError):
    """The actor was stopped before it could answer: the message was not (fully) handled."""

    code = "turnframe.actor.stopped"

    def __init__(self, *, actor: str, message_type: str, reason: str) -> None:
        super().__init__(
            f"actor {actor!r} is stopped; {message_type} was not handled ({reason})",
            actor=actor,
            hint="the actor's supervisor stopped it or gave up; ask a live actor",
        )
        self.message_type = message_type
        self.reason = reason


class MailboxFull(ActorError):
    """``tell_nowait`` found the bounded mailbox full (``tell`` would have waited instead)."""

    code = "turnframe.actor.mailbox_full"

    def __init__(self, *, actor: str, message_type: str, capacity: int) -> None:
        super().__init__(
            f"mailbox of actor {actor!r} is full ({capacity} messages); {message_type} not sent",
            actor=actor,
            hint="use `await ref.tell(...)` to wait for room, or shed load upstream",
        )
        self.message_type = message_type
        self.capacity = capacity


class UnhandledMessage(ActorError):
    """The actor has no handler for this message type; the actor keeps running."""

    code = "turnframe.actor.unhandled_message"

    def __init__(self, *, actor: str, message_type: str) -> None:
        super().__init__(
            f"actor {actor!r} has no handler for {message_type}",
            actor=actor,
            hint="add a method decorated with @handler taking that message type",
        )
        self.message_type = message_type


class InvalidHandler(TurnframeError):
    """A ``@handler`` method cannot be registered (no message type, or a duplicate)."""

    code = "turnframe.actor.invalid_handler"
