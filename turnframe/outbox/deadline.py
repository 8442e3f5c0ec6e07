"""One wait bounded by an injectable deadline (``anyio.sleep`` in production, virtual in tests).

Equivalent to ``anyio.move_on_after(seconds)`` around the call, except that the deadline is a
function the tests can replace (``turnframe.testing.scripted.ManualDeadline``), so a timeout is
exercised without waiting in real time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")

#: Waits ``seconds``; also the dispatcher's poll interval.
Sleep = Callable[[float], Awaitable[None]]


async def answer_within(
    call: Callable[[], Awaitable[T]], *, seconds: float, deadline: Sleep = anyio.sleep
) -> T | None:
    """``await call()``, or None when ``deadline(seconds)`` returns first (the call is then
    cancelled). Cancellation from outside propagates."""
    answers: list[T] = []
    async with anyio.create_task_group() as tg:

        async def expire() -> None:
            await deadline(seconds)
            tg.cancel_scope.cancel()

        tg.start_soon(expire)
        answers.append(await call())
        tg.cancel_scope.cancel()
    return answers[0] if answers else None
