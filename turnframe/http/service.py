"""The runtime behind an ASGI app: started in the app's lifespan, drained at its end.

``lifespan`` enters the Runtime (unless the embedding service already runs it) and, at shutdown,
drains: new turns are refused with ``turnframe.http.shutting_down`` (503), event streams end,
and turns already posted finish (up to ``drain_seconds``) before the runtime stops, which in
turn drains its actors. :meth:`HttpService.begin_drain` starts the same early, from a signal
handler (``turnframe serve`` calls it on SIGTERM so open event streams do not hold the server).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import anyio
import attrs

from turnframe.http.errors import NotRunning, ShuttingDown
from turnframe.pipeline.turn_view import TurnView, load_turn_view
from turnframe.runtime import Runtime
from turnframe.runtime.feed import FeedWatch
from turnframe.stores.records import SessionRecord

logger = logging.getLogger("turnframe.http")

#: Called after ``POST /v1/sessions`` opened a session (e.g. to seed an account's records).
OnSessionOpened = Callable[[Runtime, SessionRecord], Awaitable[None]]


@attrs.frozen(kw_only=True)
class HttpSettings:
    """Limits of the HTTP surface; every default is conservative."""

    #: Request bodies above this many bytes are refused (413) before they are read whole.
    max_body_bytes: int = 16 * 1024
    #: At shutdown, how long turns already posted may take to finish.
    drain_seconds: float = 30.0
    #: An idle event stream sends a comment this often, so proxies keep it open.
    stream_keepalive_seconds: float = 15.0
    #: Serve the local inspector page at ``/`` (``turnframe serve`` turns it on).
    inspector: bool = False


class HttpService:
    def __init__(
        self,
        runtime: Runtime,
        settings: HttpSettings,
        on_session_opened: OnSessionOpened | None = None,
    ) -> None:
        self.runtime = runtime
        self.settings = settings
        self.on_session_opened = on_session_opened
        self.draining = False
        self._serving = False
        self._in_flight = 0
        self._idle: anyio.Event | None = None
        self._watches: set[FeedWatch] = set()

    # -- lifetime -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        owned = not self.runtime.running
        async with contextlib.AsyncExitStack() as stack:
            if owned:
                await stack.enter_async_context(self.runtime)
            self.draining = False
            self._serving = True
            try:
                yield
            finally:
                await self.drain()
                self._serving = False

    def begin_drain(self) -> None:
        """Refuse new turns and end event streams; turns already posted go on."""
        self.draining = True
        for watch in list(self._watches):
            watch.end()

    async def drain(self) -> None:
        self.begin_drain()
        if self._in_flight:
            self._idle = anyio.Event()
            with anyio.move_on_after(self.settings.drain_seconds) as waited:
                await self._idle.wait()
            if waited.cancelled_caught:
                logger.warning(
                    "%d turn(s) still running after %.0fs of drain; the runtime finishes them "
                    "on its next start",
                    self._in_flight,
                    self.settings.drain_seconds,
                )

    def check_running(self) -> Runtime:
        if not self._serving or not self.runtime.running:
            raise NotRunning(
                "the turnframe service is not running",
                hint="run the app's lifespan; a mounted app needs "
                "`async with app.router.lifespan_context(app)` in the host's lifespan",
            )
        return self.runtime

    @contextlib.contextmanager
    def admitted(self) -> Iterator[Runtime]:
        """A turn request's lease on the service: counted, so shutdown waits for it."""
        runtime = self.check_running()
        if self.draining:
            raise ShuttingDown(
                "the service is shutting down and takes no new turns",
                hint="retry with the same Idempotency-Key on another instance or after restart",
            )
        self._in_flight += 1
        try:
            yield runtime
        finally:
            self._in_flight -= 1
            if self._in_flight == 0 and self._idle is not None:
                self._idle.set()

    # -- event streams ----------------------------------------------------------------------------

    async def events(
        self, account_id: str, session_id: str, *, after: str | None
    ) -> AsyncIterator[str]:
        """Server-sent events of the session's delivered turns, in the ``chat --json`` form.

        ``after`` (the ``Last-Event-ID`` a reconnecting client sends) replays the session's
        finished turns after that one from the store first; then turns come as they finish.
        """
        runtime = self.runtime
        async with runtime.feed.watch(account_id, session_id) as watch:
            self._watches.add(watch)
            if self.draining:
                watch.end()
            try:
                yield "retry: 2000\n\n"
                sent: deque[str] = deque(maxlen=256)
                if after is not None:
                    turns = await runtime.store.list_session_turns(account_id, session_id)
                    ids = [t.turn_id for t in turns]
                    backlog = turns[ids.index(after) + 1 :] if after in ids else []
                    for turn in backlog:
                        if turn.phase.is_terminal:
                            event = await self._event(account_id, turn.turn_id)
                            if event is not None:
                                sent.append(turn.turn_id)
                                yield event
                while True:
                    note = None
                    with anyio.move_on_after(self.settings.stream_keepalive_seconds):
                        try:
                            note = await watch.receive.receive()
                        except anyio.EndOfStream:
                            return
                    if note is None:
                        yield ": keep-alive\n\n"
                        continue
                    if note.turn_id in sent:  # a re-post delivers the same turn again
                        continue
                    event = await self._event(account_id, note.turn_id)
                    if event is not None:
                        sent.append(note.turn_id)
                        yield event
            finally:
                self._watches.discard(watch)

    async def _event(self, account_id: str, turn_id: str) -> str | None:
        view = await load_turn_view(self.runtime.store, account_id=account_id, turn_id=turn_id)
        return None if view is None else sse_event(view)


def sse_event(view: TurnView) -> str:
    data: dict[str, Any] = view.to_json()
    return f"id: {view.turn_id}\nevent: turn\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


__all__ = ["HttpService", "HttpSettings", "OnSessionOpened", "sse_event"]
