"""A bounded mailbox on an anyio memory object stream, with a fast path both ways.

Senders try ``send_nowait`` first and only await (``send``: backpressure) when the buffer is
full; every ``CHECKPOINT_EVERY`` fast sends they checkpoint so a sender that never finds the
mailbox full stays cancellable. The owning actor takes messages with ``receive_nowait`` and,
when the mailbox is empty, parks on an ``anyio.Event`` that the next sender sets. Items are
always in the stream's buffer, never handed to a parked receiver, so cancelling an idle actor
can never lose a message. The mailbox outlives every instance of its actor: a restart reuses
it with whatever is still queued.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Generator

import anyio
from anyio import BrokenResourceError, ClosedResourceError, EndOfStream, WouldBlock
from anyio.lowlevel import checkpoint
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from turnframe.actors.dead_letters import DeadLetter, DeadLetters
from turnframe.actors.errors import ActorStopped, MailboxFull

CHECKPOINT_EVERY = 64
"""Fast-path operations between two checkpoints (sender side and actor side)."""


class Reply:
    """A one-shot answer slot for one ``ask``: cheaper than a memory stream per request.

    ``event`` is set once an answer is in; the asker waits on it directly (no extra coroutine).
    """

    __slots__ = ("_error", "_value", "done", "event")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.done = False
        self._value: object = None
        self._error: BaseException | None = None

    def set_result(self, value: object) -> None:
        if not self.done:
            self.done = True
            self._value = value
            self.event.set()

    def set_error(self, error: BaseException) -> None:
        if not self.done:
            self.done = True
            self._error = error
            self.event.set()

    async def wait(self) -> None:
        await self.event.wait()

    def outcome(self) -> object:
        """The value, or raise the error; only after ``wait`` returned."""
        if self._error is not None:
            raise self._error
        return self._value


@types.coroutine
def _nothing_to_wait_for() -> Generator[None, None, None]:
    return
    yield  # a generator: awaiting it is a ``yield from``


# What a send that found room at once returns, so the fast path creates no coroutine. Awaiting
# an exhausted generator is a ``yield from`` that ends at once with None (PEP 380): no Python
# frame, no allocation, no method lookup, and it can be awaited any number of times.
_done = _nothing_to_wait_for()
for _ in _done:  # exhaust it once, here
    pass
DONE: Awaitable[None] = _done


Envelope = tuple[object, Reply | None, str | None]
"""(message, reply slot for an ask or None for a tell, correlation id)."""


class _Refusing:
    """What a closed mailbox's senders send to: never any room, so they take the slow path
    (:meth:`Mailbox.offer`), which turns the message into a dead letter."""

    __slots__ = ()

    def send_nowait(self, envelope: Envelope) -> None:
        raise WouldBlock


_REFUSING = _Refusing()


class Mailbox:
    """The bounded queue of one actor, kept across restarts, closed once for good."""

    __slots__ = (
        "_receive",
        "_send",
        "capacity",
        "closed",
        "dead_letters",
        "fast_sends",
        "owner",
        "receive_nowait",
        "sender",
        "wake_event",
    )

    def __init__(self, owner: str, *, capacity: int, dead_letters: DeadLetters) -> None:
        if capacity < 1:
            raise ValueError(f"mailbox of {owner!r}: capacity must be at least 1, got {capacity}")
        self.owner = owner
        self.capacity = capacity
        self.dead_letters = dead_letters
        self.closed = False
        self._send: MemoryObjectSendStream[Envelope]
        self._receive: MemoryObjectReceiveStream[Envelope]
        self._send, self._receive = anyio.create_memory_object_stream[Envelope](capacity)
        self.receive_nowait = self._receive.receive_nowait
        """The next envelope; raises ``anyio.WouldBlock`` when the mailbox is empty."""
        self.sender: MemoryObjectSendStream[Envelope] | _Refusing = self._send
        """What ``ActorRef`` calls ``send_nowait`` on, in :meth:`offer`'s inlined copies (which
        also wake the actor and count fast sends): the stream, whose ``send_nowait`` raises
        ``anyio.WouldBlock`` when full, and once closed a stand-in that always raises it, so
        the fast path tests nothing but room and takes :meth:`offer` when it raises."""
        self.wake_event: anyio.Event | None = None
        """Set by the actor while it is parked on an empty mailbox: a sender sets it."""
        self.fast_sends = 0

    def __len__(self) -> int:
        return self._send.statistics().current_buffer_used

    # -- sender side -------------------------------------------------------------------------

    def offer(self, envelope: Envelope) -> Awaitable[None]:
        """Enqueue now when there is room and return what the sender awaits: nothing to wait
        for (the fast path), a checkpoint every ``CHECKPOINT_EVERY`` fast sends, or the wait for
        room when full (:meth:`put`). A closed mailbox turns it into a dead letter."""
        if self.closed:
            self.undeliverable(envelope, "the actor is stopped")
            return DONE
        try:
            self._send.send_nowait(envelope)
        except WouldBlock:
            return self.put(envelope)
        wake = self.wake_event  # _notify, inlined on the hot path
        if wake is not None:
            wake.set()
        self.fast_sends += 1
        if self.fast_sends >= CHECKPOINT_EVERY:
            self.fast_sends = 0
            return checkpoint()
        return DONE

    async def put(self, envelope: Envelope) -> None:
        """Enqueue, waiting for room when full; a closed mailbox turns it into a dead letter."""
        if self.closed:
            self.undeliverable(envelope, "the actor is stopped")
            return
        try:
            self._send.send_nowait(envelope)
        except WouldBlock:
            try:
                await self._send.send(envelope)
            except (BrokenResourceError, ClosedResourceError):
                self.undeliverable(envelope, "the actor stopped while the sender waited")
                return
            self._notify()
            return
        wake = self.wake_event  # _notify, inlined on the hot path
        if wake is not None:
            wake.set()
        self.fast_sends += 1
        if self.fast_sends >= CHECKPOINT_EVERY:
            self.fast_sends = 0
            await checkpoint()

    def put_nowait(self, envelope: Envelope) -> None:
        """Enqueue without waiting; raise ``MailboxFull`` when there is no room."""
        if self.closed:
            self.undeliverable(envelope, "the actor is stopped")
            return
        try:
            self._send.send_nowait(envelope)
        except WouldBlock:
            raise MailboxFull(
                actor=self.owner,
                message_type=type(envelope[0]).__name__,
                capacity=self.capacity,
            ) from None
        self._notify()

    def _notify(self) -> None:
        wake = self.wake_event
        if wake is not None:
            wake.set()

    # -- actor side --------------------------------------------------------------------------

    async def wait_for_messages(self) -> None:
        """Park until a sender enqueues something or ``wake`` is called."""
        wake = self.wake_event = anyio.Event()
        try:
            await wake.wait()
        finally:
            self.wake_event = None

    def wake(self) -> None:
        """Wake the parked actor (to notice a stop request)."""
        self._notify()

    # -- ending ------------------------------------------------------------------------------

    def close(self) -> None:
        """Refuse new messages (they become dead letters); queued ones may still be drained."""
        self.closed = True
        self.sender = _REFUSING
        self._notify()

    def dispose(self, reason: str) -> None:
        """Close for good: every message still queued becomes a dead letter."""
        self.closed = True
        self.sender = _REFUSING
        while True:
            try:
                envelope = self._receive.receive_nowait()
            except (WouldBlock, EndOfStream, ClosedResourceError):
                break
            self.undeliverable(envelope, reason)
        self._send.close()
        self._receive.close()
        self._notify()

    def undeliverable(self, envelope: Envelope, reason: str) -> None:
        """Count and log a message that will not be handled; its asker gets ``ActorStopped``."""
        message, reply, correlation_id = envelope
        self.dead_letters.record(
            DeadLetter(
                actor=self.owner, message=message, correlation_id=correlation_id, reason=reason
            )
        )
        if reply is not None:
            reply.set_error(
                ActorStopped(actor=self.owner, message_type=type(message).__name__, reason=reason)
            )
