"""Delivered turns, as they finish, to whoever watches a session in this process.

The runtime publishes every turn that reaches a final phase (delivered or failed) through
:meth:`Runtime.handle_turn`, recovery included. A watcher gets a bounded stream of
:class:`DeliveredTurn` notes; the turn itself is read from the store, so what a watcher shows is
what was recorded. Publishing never waits: a watcher that falls ``buffer`` notes behind is
closed (its stream ends), and catches up from the store when it watches again. Turns served by
another process are not seen here.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import attrs
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from turnframe.lifecycle import TurnPhase


@attrs.frozen(kw_only=True)
class DeliveredTurn:
    account_id: str
    session_id: str
    turn_id: str
    phase: TurnPhase


@attrs.define(eq=False)
class FeedWatch:
    """One watcher: ``receive`` yields its session's delivered turns until the watch ends."""

    receive: MemoryObjectReceiveStream[DeliveredTurn]
    _send: MemoryObjectSendStream[DeliveredTurn]

    def end(self) -> None:
        """End this watch now: ``receive`` raises ``EndOfStream`` once it is drained."""
        self._send.close()


class TurnFeed:
    def __init__(self, *, buffer: int = 64) -> None:
        self._buffer = buffer
        self._watchers: dict[tuple[str, str], set[MemoryObjectSendStream[DeliveredTurn]]] = {}
        self._closed = False

    def publish(self, note: DeliveredTurn) -> None:
        for send in list(self._watchers.get((note.account_id, note.session_id), ())):
            try:
                send.send_nowait(note)
            except anyio.WouldBlock:
                send.close()  # too far behind: its stream ends; it catches up from the store
                self._drop(note.account_id, note.session_id, send)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._drop(note.account_id, note.session_id, send)

    @contextlib.asynccontextmanager
    async def watch(self, account_id: str, session_id: str) -> AsyncIterator[FeedWatch]:
        """The session's turns delivered from now on, until the feed closes (runtime stops)."""
        send, receive = anyio.create_memory_object_stream[DeliveredTurn](self._buffer)
        key = (account_id, session_id)
        if self._closed:
            send.close()
        else:
            self._watchers.setdefault(key, set()).add(send)
        try:
            with receive:
                yield FeedWatch(receive=receive, send=send)
        finally:
            send.close()
            self._drop(account_id, session_id, send)

    def close(self) -> None:
        """End every watcher's stream (the runtime is stopping)."""
        self._closed = True
        for sends in self._watchers.values():
            for send in sends:
                send.close()
        self._watchers.clear()

    def reopen(self) -> None:
        self._closed = False

    @property
    def watchers(self) -> int:
        return sum(len(s) for s in self._watchers.values())

    def _drop(
        self, account_id: str, session_id: str, send: MemoryObjectSendStream[DeliveredTurn]
    ) -> None:
        sends = self._watchers.get((account_id, session_id))
        if sends is not None:
            sends.discard(send)
            if not sends:
                del self._watchers[(account_id, session_id)]


__all__ = ["DeliveredTurn", "FeedWatch", "TurnFeed"]
