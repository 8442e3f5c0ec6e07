"""Retries and back-off run on tenacity; the delays keep the documented formula."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe._retry import exponential_delay, retrying
from turnframe.outbox.backoff import RetryPolicy
from turnframe.supervisors import Backoff

seconds = st.floats(min_value=0.001, max_value=3600, allow_nan=False)
factors = st.floats(min_value=1.0, max_value=10.0, allow_nan=False)
attempts = st.integers(min_value=1, max_value=5000)


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
def test_the_outbox_and_the_supervisors_wait_the_same_tenacity_delays(
    attempt: int, initial: float, factor: float, maximum: float
) -> None:
    expected = exponential_delay(attempt, initial=initial, factor=factor, maximum=maximum)
    policy = RetryPolicy(
        initial=timedelta(seconds=initial), multiplier=factor, maximum=timedelta(seconds=maximum)
    )
    assert policy.delay(attempt) == timedelta(seconds=expected)
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
