"""ActorRef: the address of an actor, valid across its restarts.

A ref points at the actor's mailbox, which outlives every instance of the actor, so a ref taken
before a crash still reaches the restarted actor and the messages queued behind the crash are
kept. Refs are cheap, hashable and compare equal when they address the same actor.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable
from typing import Any

import anyio
from anyio import WouldBlock
from anyio.lowlevel import checkpoint

from turnframe.actors.correlation import _get_correlation_id
from turnframe.actors.errors import AskTimeout
from turnframe.actors.mailbox import CHECKPOINT_EVERY, DONE, Mailbox, Reply

_INFINITY = math.inf

DEFAULT_ASK_TIMEOUT = 5.0
"""Seconds an ``ask`` waits when the caller does not say; there is no unbounded ask."""


class ActorRef:
    """Send messages to one actor: ``tell`` (fire and wait for room), ``ask`` (request/reply)."""

    __slots__ = ("_mailbox",)

    def __init__(self, mailbox: Mailbox) -> None:
        self._mailbox = mailbox

    @property
    def name(self) -> str:
        return self._mailbox.owner

    @property
    def stopped(self) -> bool:
        """True once the actor is stopped for good; messages then go to dead letters."""
        return self._mailbox.closed

    @property
    def queued(self) -> int:
        """How many messages wait in the mailbox right now."""
        return len(self._mailbox)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActorRef) and other._mailbox is self._mailbox

    def __hash__(self) -> int:
        return id(self._mailbox)

    def __repr__(self) -> str:
        return f"ActorRef({self._mailbox.owner!r})"

    # ``correlation_id`` is not keyword-only here: Python 3.11 only specialises calls to
    # functions without keyword-only parameters, and a tell is one call per message.
    def tell(self, message: object, correlation_id: str | None = None) -> Awaitable[None]:
        """Enqueue ``message``; waits while the mailbox is full (backpressure).

        A message to a stopped actor goes to dead letters. ``correlation_id`` defaults to the
        one of the message being handled, if called from inside a handler.
        """
        # A plain method, Mailbox.offer inlined: a tell that finds room is one call frame and
        # returns DONE (nothing to wait for); a closed mailbox refuses in send_nowait, so the
        # fast path tests nothing but room. The checkpoint every CHECKPOINT_EVERY fast sends
        # keeps a sender that never finds the mailbox full cancellable.
        mailbox = self._mailbox
        envelope = (
            message,
            None,
            _get_correlation_id() if correlation_id is None else correlation_id,
        )
        try:
            mailbox.sender.send_nowait(envelope)
        except WouldBlock:
            return mailbox.offer(envelope)
        wake = mailbox.wake_event
        if wake is not None:
            wake.set()
        sends = mailbox.fast_sends + 1
        if sends >= CHECKPOINT_EVERY:
            mailbox.fast_sends = 0
            return checkpoint()
        mailbox.fast_sends = sends
        return DONE

    def tell_nowait(self, message: object, *, correlation_id: str | None = None) -> None:
        """Enqueue ``message`` now or raise ``MailboxFull``; never waits."""
        if correlation_id is None:
            correlation_id = _get_correlation_id()
        self._mailbox.put_nowait((message, None, correlation_id))

    async def ask(
        self,
        message: object,
        *,
        timeout: float = DEFAULT_ASK_TIMEOUT,  # noqa: ASYNC109 - an ask always has a deadline
        correlation_id: str | None = None,
    ) -> Any:
        """Send ``message`` and return the handler's return value.

        Raises ``AskTimeout`` when no reply arrives within ``timeout`` seconds (waiting for room
        in a full mailbox counts), ``ActorCrashed`` when the handler crashed on this message,
        ``ActorStopped`` when the actor is (or gets) stopped first, ``UnhandledMessage`` when
        the actor has no handler for it, or the handler's own error when the actor declares it
        in ``expected_errors``.
        """
        if not 0 < timeout < _INFINITY:
            raise ValueError(f"ask timeout must be a positive, finite number of seconds: {timeout}")
        if correlation_id is None:
            correlation_id = _get_correlation_id()
        reply = Reply()
        mailbox = self._mailbox
        envelope = (message, reply, correlation_id)
        # A deadline cancel scope is what anyio.fail_after builds; entering it directly skips
        # a generator-based context manager on the hot path. Mailbox.offer, Reply.wait and
        # Reply.outcome are inlined: an ask awaits the reply's Event itself.
        with anyio.CancelScope(deadline=anyio.current_time() + timeout):
            try:
                mailbox.sender.send_nowait(envelope)
            except WouldBlock:
                await mailbox.offer(envelope)
            else:
                wake = mailbox.wake_event
                if wake is not None:
                    wake.set()
                sends = mailbox.fast_sends + 1
                if sends >= CHECKPOINT_EVERY:
                    mailbox.fast_sends = 0
                    await checkpoint()
                else:
                    mailbox.fast_sends = sends
            await reply.event.wait()
        if not reply.done:  # only the deadline ends the wait without an answer
            raise AskTimeout(
                actor=mailbox.owner, message_type=type(message).__name__, timeout=timeout
            )
        if reply._error is not None:
            raise reply._error
        return reply._value
