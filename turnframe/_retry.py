"""Retries and back-off, on tenacity (the one retry library), sleeping with ``anyio.sleep``.

Every loop that tries something again (a turn whose session actor restarted, a failed step
of a turn, a commit that met a newer revision, the outbox dispatcher after a crash)
is a :func:`retrying` loop, and every back-off delay (the outbox's retry schedule, the
supervisors' restart pause, the provider chain's) is tenacity's ``wait_exponential``. No jitter
anywhere: delays are deterministic, so records and tests are too.

Most loops succeed on their first try (every turn runs several), so a loop builds no tenacity
object until a try fails: the first try is a plain context manager, and a failure is handed to
tenacity as the outcome of its own first attempt, from where tenacity decides as before.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from types import TracebackType

import anyio
from tenacity import (
    AsyncRetrying,
    AttemptManager,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    stop_never,
    wait_exponential,
    wait_none,
)
from tenacity.stop import stop_base
from tenacity.wait import wait_base

#: A stand-in retry object for computing a delay outside a retry loop.
_SCHEDULE = Retrying()

#: What a first try says of itself (only ``attempt_number`` is read); never changed.
_FIRST_STATE = RetryCallState(retry_object=_SCHEDULE, fn=None, args=(), kwargs={})


class _FirstAttempt(AttemptManager):
    """The first try of a loop: keeps what it raised, for tenacity to judge if it raised."""

    def __init__(self, loop: Attempts) -> None:
        self.retry_state = _FIRST_STATE
        self._loop = loop

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        if exc_type is not None and exc_value is not None:
            self._loop._failure = (exc_type, exc_value, traceback)
            return True  # swallowed like tenacity does: the loop's next step judges it
        return None


class Attempts:
    """``async for attempt in retrying(...): with attempt: ...``: the first try costs a plain
    context manager; tenacity (with the same options) takes over only after it failed."""

    __slots__ = (
        "_attempts",
        "_before_sleep",
        "_failure",
        "_retry_on",
        "_sleep",
        "_started",
        "_state",
        "_tenacity",
        "_wait",
        "_within",
    )

    def __init__(
        self,
        retry_on: Callable[[BaseException], bool],
        attempts: int | None,
        wait: wait_base | None,
        before_sleep: Callable[[RetryCallState], None] | None,
        sleep: Callable[[float], Awaitable[None]],
        within: float | None = None,
    ) -> None:
        self._retry_on = retry_on
        self._attempts = attempts
        self._within = within
        self._started = 0.0
        self._wait = wait
        self._before_sleep = before_sleep
        self._sleep = sleep
        self._state = 0  # 0: first try not given; 1: given; 2: tenacity took over
        self._failure: tuple[type[BaseException], BaseException, TracebackType | None] | None
        self._failure = None
        self._tenacity: AsyncRetrying | None = None

    def __aiter__(self) -> Attempts:
        self._state, self._failure, self._tenacity = 0, None, None
        if self._within is not None:
            self._started = time.monotonic()  # tenacity's clock: the delay counts from here
        return self

    async def __anext__(self) -> AttemptManager:
        if self._state == 0:
            self._state = 1
            return _FirstAttempt(self)
        if self._state == 1:
            failure = self._failure
            if failure is None:
                raise StopAsyncIteration  # the first try succeeded
            self._state, self._failure = 2, None
            self._tenacity = self._take_over(failure)
        assert self._tenacity is not None
        return await self._tenacity.__anext__()

    def _take_over(
        self, failure: tuple[type[BaseException], BaseException, TracebackType | None]
    ) -> AsyncRetrying:
        """A tenacity loop whose first attempt is the one that just failed."""
        retry_on = self._retry_on
        attempts = self._attempts
        stop: stop_base = stop_never if attempts is None else stop_after_attempt(attempts)
        if self._within is not None:
            within = stop_after_delay(self._within)
            stop = within if attempts is None else stop | within
        loop = AsyncRetrying(
            stop=stop,
            wait=self._wait or wait_none(),
            retry=retry_if_exception(
                lambda error: isinstance(error, Exception) and retry_on(error)
            ),
            before_sleep=self._before_sleep,
            sleep=self._sleep,
            reraise=True,
        )
        aiter = loop.__aiter__()
        if self._within is not None:
            aiter._retry_state.start_time = self._started
        aiter._retry_state.set_exception(failure)
        return aiter


def retrying(
    *,
    retry_on: Callable[[BaseException], bool],
    attempts: int | None = None,
    wait: wait_base | None = None,
    before_sleep: Callable[[RetryCallState], None] | None = None,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    within: float | None = None,
) -> Attempts:
    """An ``async for attempt in retrying(...)`` loop: retries while ``retry_on(error)`` holds,
    at most ``attempts`` times in all (None: until it succeeds) and, with ``within``, no try
    begun later than that many seconds after the first, waiting ``wait`` (default: not at all)
    between tries; the last error is re-raised as it is. Cancellation is never retried
    (it is not an ``Exception``). ``attempt.retry_state.attempt_number`` counts from 1."""
    return Attempts(retry_on, attempts, wait, before_sleep, sleep, within)


def exponential_wait(*, initial: float, factor: float, maximum: float) -> wait_exponential:
    """``initial * factor ** (n - 1)`` seconds before try ``n + 1``, at most ``maximum``."""
    return wait_exponential(multiplier=initial, exp_base=factor, max=maximum)


def exponential_delay(attempt: int, *, initial: float, factor: float, maximum: float) -> float:
    """The delay :func:`exponential_wait` gives after failure number ``attempt`` (1-based), for
    schedules kept outside a retry loop (an outbox row's next send, a child's restart)."""
    state = RetryCallState(retry_object=_SCHEDULE, fn=None, args=(), kwargs={})
    state.attempt_number = max(attempt, 1)
    return float(exponential_wait(initial=initial, factor=factor, maximum=maximum)(state))


__all__ = ["Attempts", "exponential_delay", "exponential_wait", "retrying"]
