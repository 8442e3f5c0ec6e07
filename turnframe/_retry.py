"""Retries and back-off, on tenacity (the one retry library), sleeping with ``anyio.sleep``.

Every loop that tries something again (a turn whose session actor restarted, a failed step
of a turn, a commit that met a newer revision, the outbox dispatcher after a crash)
is a :func:`retrying` loop, and every back-off delay (the outbox's retry schedule, the
supervisors' restart pause, the provider chain's) is tenacity's ``wait_exponential``. No jitter
anywhere: delays are deterministic, so records and tests are too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_never,
    wait_exponential,
    wait_none,
)
from tenacity.wait import wait_base

#: A stand-in retry object for computing a delay outside a retry loop.
_SCHEDULE = Retrying()


def retrying(
    *,
    retry_on: Callable[[BaseException], bool],
    attempts: int | None = None,
    wait: wait_base | None = None,
    before_sleep: Callable[[RetryCallState], None] | None = None,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
) -> AsyncRetrying:
    """An ``async for attempt in retrying(...)`` loop: retries while ``retry_on(error)`` holds,
    at most ``attempts`` times in all (None: until it succeeds), waiting ``wait`` (default: not
    at all) between tries; the last error is re-raised as it is. Cancellation is never retried
    (it is not an ``Exception``)."""
    return AsyncRetrying(
        stop=stop_never if attempts is None else stop_after_attempt(attempts),
        wait=wait or wait_none(),
        retry=retry_if_exception(lambda error: isinstance(error, Exception) and retry_on(error)),
        before_sleep=before_sleep,
        sleep=sleep,
        reraise=True,
    )


def exponential_wait(*, initial: float, factor: float, maximum: float) -> wait_exponential:
    """``initial * factor ** (n - 1)`` seconds before try ``n + 1``, at most ``maximum``."""
    return wait_exponential(multiplier=initial, exp_base=factor, max=maximum)


def exponential_delay(attempt: int, *, initial: float, factor: float, maximum: float) -> float:
    """The delay :func:`exponential_wait` gives after failure number ``attempt`` (1-based), for
    schedules kept outside a retry loop (an outbox row's next send, a child's restart)."""
    state = RetryCallState(retry_object=_SCHEDULE, fn=None, args=(), kwargs={})
    state.attempt_number = max(attempt, 1)
    return float(exponential_wait(initial=initial, factor=factor, maximum=maximum)(state))


__all__ = ["exponential_delay", "exponential_wait", "retrying"]
