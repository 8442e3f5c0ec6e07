"""A supervisor's bookkeeping: one slot per child, one record per run of it, control signals.

Internal to ``turnframe.supervisors``; the names are public only so the supervisor module can
import them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio
import attrs
from anyio.streams.memory import MemoryObjectReceiveStream

from turnframe.actors.dead_letters import DeadLetters
from turnframe.supervisors.spec import Restart


class Runnable(Protocol):
    """What a supervisor runs as a child: an actor cell or a nested supervisor."""

    async def run(self, started: Callable[[], None]) -> None: ...
    def request_stop(self, *, drain: bool) -> None: ...
    def dispose(self, reason: str) -> None: ...
    def adopt_dead_letters(self, sink: DeadLetters) -> None: ...


@attrs.define(eq=False)
class Instance:
    """One run of one child: started once, ends once."""

    scope: anyio.CancelScope | None = None
    exited: anyio.Event = attrs.Factory(anyio.Event)
    started: bool = False
    stopping: bool = False
    error: Exception | None = None


@attrs.define(eq=False)
class Slot:
    """One child as its supervisor knows it, across all of its runs."""

    id: str
    restart: Restart
    shutdown: float
    runnable: Runnable
    instance: Instance | None = None


@attrs.frozen(eq=False)
class Exited:
    slot: Slot
    instance: Instance


@attrs.frozen(eq=False)
class StopSignal:
    drain: bool


@attrs.define(eq=False)
class Request:
    """Work for the control loop on behalf of another task (dynamic start/stop)."""

    operation: Callable[[], Awaitable[Any]]
    done: anyio.Event = attrs.Factory(anyio.Event)
    result: Any = None
    error: BaseException | None = None

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        if not self.done.is_set():
            self.result, self.error = result, error
            self.done.set()


Signal = Exited | StopSignal | Request


def refuse_pending(signals: MemoryObjectReceiveStream[Signal], error: Exception) -> None:
    while True:
        try:
            signal = signals.receive_nowait()
        except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
            return
        if isinstance(signal, Request):
            signal.finish(error=error)
