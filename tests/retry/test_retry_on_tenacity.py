"""Retries and back-off run on tenacity; the delays keep the documented formula."""

from __future__ import annotations

import math
from datetime import timedelta

import anyio
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from turnframe._retry import exponential_delay, retrying
from turnframe.outbox.backoff import RetryPolicy
from turnframe.supervisors import Backoff

seconds = st.floats(min_value=0.001, max_value=3600, allow_nan=False)
factors = st.floats(min_value=1.0, max_value=10.0, allow_nan=False)
attempts = st.integers(min_value=1, max_value=5000)
both_backends = pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])


def _formula(attempt: int, initial: float, factor: float, maximum: float) -> float:
    try:
        return min(maximum, initial * factor ** (attempt - 1))
    except OverflowError:
        return maximum


@given(attempts, seconds, factors, seconds)
def test_a_delay_is_initial_times_factor_to_the_attempt_capped_at_the_maximum(
    attempt: int, initial: float, factor: float, maximum: float
) -> None:
    delay = exponential_delay(attempt, initial=initial, factor=factor, maximum=maximum)
    assert math.isclose(delay, _formula(attempt, initial, factor, maximum), rel_tol=1e-9)


@given(attempts, seconds, factors, seconds)
@example(attempt=2, initial=1.2890625, factor=1.5, maximum=2.0)  # 1.2890625 s is not whole µs
def test_the_outbox_and_the_supervisors_wait_the_same_tenacity_delays(
    attempt: int, initial: float, factor: float, maximum: float
) -> None:
    expected = exponential_delay(attempt, initial=initial, factor=factor, maximum=maximum)
    policy = RetryPolicy(
        initial=timedelta(seconds=initial), multiplier=factor, maximum=timedelta(seconds=maximum)
    )
    # A timedelta holds whole microseconds: the outbox's policy is the formula on the delays it
    # was configured with, as stored (1.2890625 s is kept as 1.289062 s).
    stored = exponential_delay(
        attempt,
        initial=policy.initial.total_seconds(),
        factor=factor,
        maximum=policy.maximum.total_seconds(),
    )
    assert policy.delay(attempt) == timedelta(seconds=stored)
    assert Backoff(initial=initial, factor=factor, maximum=maximum).delay(attempt) == expected


@pytest.mark.anyio
async def test_a_retry_loop_stops_after_its_attempts_and_re_raises_the_last_error() -> None:
    calls: list[int] = []
    with pytest.raises(KeyError):
        async for attempt in retrying(retry_on=lambda e: isinstance(e, KeyError), attempts=3):
            with attempt:
                calls.append(attempt.retry_state.attempt_number)
                raise KeyError(len(calls))
    assert calls == [1, 2, 3]


@pytest.mark.anyio
async def test_an_error_it_does_not_retry_ends_the_loop_at_once() -> None:
    calls = 0
    with pytest.raises(ValueError):
        async for attempt in retrying(retry_on=lambda e: isinstance(e, KeyError), attempts=3):
            with attempt:
                calls += 1
                raise ValueError("final")
    assert calls == 1


@pytest.mark.anyio
@both_backends
async def test_a_loop_whose_first_try_succeeds_runs_it_once_and_builds_no_tenacity_loop() -> None:
    calls: list[int] = []
    loop = retrying(retry_on=lambda e: True, attempts=3)
    async for attempt in loop:
        with attempt:
            calls.append(attempt.retry_state.attempt_number)
    assert calls == [1]
    assert loop._tenacity is None


@pytest.mark.anyio
@both_backends
async def test_after_a_failed_first_try_tenacity_counts_the_next_tries_from_two() -> None:
    calls: list[int] = []
    async for attempt in retrying(retry_on=lambda e: isinstance(e, KeyError), attempts=3):
        with attempt:
            calls.append(attempt.retry_state.attempt_number)
            if len(calls) < 3:
                raise KeyError(len(calls))
    assert calls == [1, 2, 3]


@pytest.mark.anyio
@both_backends
async def test_a_cancellation_in_the_first_try_is_never_retried() -> None:
    calls = 0
    with anyio.CancelScope() as scope:
        async for attempt in retrying(retry_on=lambda e: True, attempts=3):
            with attempt:
                calls += 1
                scope.cancel()
                await anyio.sleep(1)
    assert calls == 1


@pytest.mark.anyio
@both_backends
async def test_a_loop_with_a_time_limit_counts_it_from_its_first_try() -> None:
    calls = 0
    loop = retrying(retry_on=lambda e: isinstance(e, KeyError), within=0.0)
    with pytest.raises(KeyError):
        async for attempt in loop:
            with attempt:
                calls += 1
                raise KeyError(calls)
    assert calls == 1  # no time left after the first try: tenacity stops at once
    assert loop._tenacity is not None
    assert loop._tenacity._retry_state.start_time == loop._started
