"""ActorCell: the persistent home of one supervised actor, and the loop that serves it.

The cell owns the actor's name, factory, mailbox and ref; they outlive every instance. Its
supervisor runs one instance at a time with ``run``: a fresh instance from the factory,
``on_start``, then messages one at a time, in order, until a stop request (drained or not),
the actor's own ``stop()``, or a crash. The message being handled when a crash happens answers
its asker with ``ActorCrashed``; everything queued behind it stays for the next instance.
A ``stateless`` actor's handler that raises answers the same way, but the instance goes on
serving: there is nothing a restart would reset (see :attr:`Actor.stateless`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from anyio import ClosedResourceError, EndOfStream, Event, WouldBlock
from anyio.lowlevel import checkpoint

from turnframe.actors.actor import Actor, find_handler
from turnframe.actors.correlation import _set_correlation_id
from turnframe.actors.dead_letters import DeadLetters
from turnframe.actors.errors import ActorCrashed, UnhandledMessage
from turnframe.actors.mailbox import CHECKPOINT_EVERY, Envelope, Mailbox, Reply
from turnframe.actors.ref import ActorRef

logger = logging.getLogger("turnframe.actors")


def _no_handler(actor: Actor, message: object) -> Any:
    raise AssertionError("a handler is always looked up before the first message")


class ActorCell:
    """One actor's mailbox and ref, and the serving loop of its current instance."""

    def __init__(
        self,
        name: str,
        factory: Callable[[], Actor],
        *,
        capacity: int,
        dead_letters: DeadLetters,
    ) -> None:
        self.name = name
        self.factory = factory
        self.mailbox = Mailbox(name, capacity=capacity, dead_letters=dead_letters)
        self.ref = ActorRef(self.mailbox)
        #: Told about each message a stateless instance failed on (its supervisor reports it).
        self.on_message_failure: Callable[[Exception], None] | None = None
        self._stop_requested = False
        self._drain = False
        self._actor: Actor | None = None  # the running instance

    def request_stop(self, *, drain: bool) -> None:
        """Ask the running instance to stop after its current message.

        With ``drain`` the mailbox closes to new messages (they become dead letters) and the
        instance first handles everything already queued: this is the final, graceful stop.
        """
        self._stop_requested = True
        if drain:
            self._drain = True
            self.mailbox.close()
        elif self._actor is not None:
            # The serving loop tests one flag between two messages: the instance's own.
            self._actor._turnframe_stop_requested = True
        self.mailbox.wake()

    def dispose(self, reason: str) -> None:
        """The actor is gone for good: what is still queued becomes dead letters."""
        self.mailbox.dispose(reason)

    def adopt_dead_letters(self, sink: DeadLetters) -> None:
        self.mailbox.dead_letters = sink

    async def run(self, started: Callable[[], None]) -> None:
        """Run one fresh instance; return when it stops, raise the error it crashed with."""
        self._stop_requested = False
        self._drain = False
        actor = self.factory()
        actor._turnframe_ref = self.ref
        # On the instance (not only the class default) so that the test between two messages
        # is a plain instance attribute read; stop() may have been called already.
        actor._turnframe_stop_requested = actor._turnframe_stop_requested
        self._actor = actor
        try:
            await actor.on_start()
            started()
            crash: Exception | None = None
            try:
                await self._serve(actor)
            except Exception as err:
                crash = err
        finally:
            self._actor = None
        try:
            await actor.on_stop()
        except Exception as err:
            if crash is None:
                crash = err
            else:
                logger.exception("on_stop of actor %r failed after a crash", self.name)
        if crash is not None:
            raise crash

    async def _serve(self, actor: Actor) -> None:
        # The hot loop. Delivery is inlined: besides the handler's own coroutine, a message
        # costs no await unless the mailbox is empty or a checkpoint is due.
        mailbox = self.mailbox
        receive_nowait = mailbox.receive_nowait
        table = type(actor).handler_table()
        expected = actor.expected_errors
        contained = actor.stateless
        correlation: str | None = None
        handled = 0
        # The handler of the last message's type: a run of one type looks it up once.
        last_type: type | None = None
        function: Callable[[Actor, object], Any] = _no_handler
        is_async = False
        try:
            while True:
                # A stop without draining, and the actor's own stop(), both set this flag.
                if actor._turnframe_stop_requested:
                    return
                try:
                    envelope = receive_nowait()
                except WouldBlock:
                    if self._stop_requested:
                        return
                    wake = mailbox.wake_event = Event()  # mailbox.wait_for_messages, inlined
                    try:
                        await wake.wait()
                    finally:
                        mailbox.wake_event = None
                    handled = 0
                    continue
                except (EndOfStream, ClosedResourceError):
                    return
                handled += 1
                if handled >= CHECKPOINT_EVERY:
                    handled = 0
                    await checkpoint()
                message, reply, correlation_id = envelope
                if correlation_id is not correlation:
                    correlation = correlation_id
                    _set_correlation_id(correlation_id)
                if type(message) is not last_type:
                    entry = table.get(type(message)) or find_handler(table, type(message))
                    if entry is None:
                        self._unhandled(message, reply, correlation_id)
                        continue
                    last_type = type(message)
                    function, is_async = entry
                try:
                    result = function(actor, message)
                    if is_async:
                        result = await result
                except expected as err:
                    self._answer_with_expected(err, envelope)
                except Exception as err:
                    self._crashed(err, envelope)
                    if not contained:
                        raise
                    if self.on_message_failure is not None:
                        self.on_message_failure(err)
                except BaseException:
                    # Cancelled mid-message (shutdown deadline, or the enclosing scope): it was
                    # not handled, so it is accounted for as a dead letter and its asker told.
                    mailbox.undeliverable(envelope, "cancelled while handling it")
                    raise
                else:
                    if reply is not None and not reply.done:  # Reply.set_result, inlined
                        reply.done = True
                        reply._value = result
                        reply.event.set()
        finally:
            _set_correlation_id(None)

    def _answer_with_expected(self, error: BaseException, envelope: Envelope) -> None:
        message, reply, correlation_id = envelope
        if reply is not None:
            reply.set_error(error)
            return
        logger.warning(
            "actor %r answered a told %s with %s: %s",
            self.name,
            type(message).__name__,
            type(error).__name__,
            error,
            extra={"correlation_id": correlation_id, "actor": self.name},
        )

    def _crashed(self, error: Exception, envelope: Envelope) -> None:
        message, reply, correlation_id = envelope
        logger.error(
            "actor %r crashed handling %s",
            self.name,
            type(message).__name__,
            exc_info=error,
            extra={"correlation_id": correlation_id, "actor": self.name},
        )
        if reply is not None:
            reply.set_error(
                ActorCrashed(actor=self.name, message_type=type(message).__name__, cause=error)
            )

    def _unhandled(self, message: object, reply: Reply | None, correlation_id: str | None) -> None:
        error = UnhandledMessage(actor=self.name, message_type=type(message).__name__)
        if reply is not None:
            reply.set_error(error)
            return
        logger.warning("%s", error, extra={"correlation_id": correlation_id, "actor": self.name})
