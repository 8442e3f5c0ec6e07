"""Attempt timeouts and late answers, on asyncio and trio, on virtual time."""

from __future__ import annotations

import anyio
import pytest
from chain_support import PLAN, Harness, make_request, outcomes

from turnframe.providers import (
    AttemptOutcome,
    ChainAnswer,
    ProviderAttempt,
    ProvidersExhausted,
    RetryPolicy,
)
from turnframe.testing.scripted import Answer, Hang, ScriptedGate, ScriptedProvider

pytestmark = pytest.mark.anyio

LATE = '{"acts": [{"kind": "chitchat"}]}'


async def test_a_provider_that_times_out_is_never_sent_the_same_request_again() -> None:
    hang = Hang()
    primary = ScriptedProvider(name="primary", script=[hang])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    harness = Harness([primary, fallback], RetryPolicy(attempts_per_provider=3))
    answers: list[ChainAnswer] = []

    async def run() -> None:
        answers.append(await harness.chain.complete(make_request(), gate=ScriptedGate()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await hang.reached()
        harness.deadline.expire()

    assert len(primary.requests) == 1
    assert answers[0].provider == "fallback"
    assert outcomes(answers[0].attempts) == [
        ("primary", "timed_out", "turnframe.provider.timed_out"),
        ("fallback", "ok", None),
    ]


async def test_a_late_answer_is_recorded_once_and_not_used() -> None:
    late = Hang(answer=LATE)
    held = Hang(answer=PLAN)
    primary = ScriptedProvider(name="primary", script=[late])
    fallback = ScriptedProvider(name="fallback", script=[held])
    harness = Harness([primary, fallback])
    answers: list[ChainAnswer] = []

    async def run() -> None:
        request = make_request()
        gate = ScriptedGate()
        answers.append(await harness.chain.complete(request, gate=gate, on_attempt=harness.record))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await late.reached()
        harness.deadline.expire()
        await held.reached()
        late.release()
        await late.delivered()
        held.release()

    answer = answers[0]
    assert answer.text == PLAN
    assert outcomes(answer.attempts) == [
        ("primary", "timed_out", "turnframe.provider.timed_out"),
        ("primary", "late_answer", None),
        ("fallback", "ok", None),
    ]
    late_record = answer.attempts[1]
    assert (late_record.late_of, late_record.used) == (1, False)
    assert len(primary.requests) == 1
    assert tuple(harness.seen) == answer.attempts


async def test_without_a_grace_the_call_returns_without_waiting_for_a_late_answer() -> None:
    late = Hang(answer=LATE)
    primary = ScriptedProvider(name="primary", script=[late])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    harness = Harness([primary, fallback])
    answers: list[ChainAnswer] = []

    async def run() -> None:
        answers.append(await harness.chain.complete(make_request(), gate=ScriptedGate()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await late.reached()
        harness.deadline.expire()
    late.release()

    assert [a.outcome for a in answers[0].attempts] == [
        AttemptOutcome.TIMED_OUT,
        AttemptOutcome.OK,
    ]


async def test_a_late_answer_within_the_grace_is_recorded_after_the_used_answer() -> None:
    late = Hang(answer=LATE)
    primary = ScriptedProvider(name="primary", script=[late])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    harness = Harness([primary, fallback], RetryPolicy(late_answer_grace=5.0))
    answered = anyio.Event()
    answers: list[ChainAnswer] = []

    async def record(attempt: ProviderAttempt) -> None:
        if attempt.outcome is AttemptOutcome.OK:
            answered.set()

    async def run() -> None:
        request = make_request()
        answers.append(
            await harness.chain.complete(request, gate=ScriptedGate(), on_attempt=record)
        )

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await late.reached()
        harness.deadline.expire()
        await answered.wait()
        late.release()

    assert [a.outcome for a in answers[0].attempts] == [
        AttemptOutcome.TIMED_OUT,
        AttemptOutcome.OK,
        AttemptOutcome.LATE_ANSWER,
    ]
    assert answers[0].text == PLAN
    assert harness.deadline.requested[-1] == 5.0


async def test_a_later_call_with_the_earlier_attempts_skips_the_provider_that_timed_out() -> None:
    primary = ScriptedProvider(name="primary", script=[Hang()])
    fallback = ScriptedProvider(name="fallback", script=[Hang(), Answer(PLAN)])
    harness = Harness([primary, fallback])
    gate = ScriptedGate()
    request = make_request()
    failures: list[ProvidersExhausted] = []

    async def first_call() -> None:
        try:
            await harness.chain.complete(request, gate=gate)
        except ProvidersExhausted as error:
            failures.append(error)

    harness.deadline.expire()
    harness.deadline.expire()
    async with anyio.create_task_group() as tg:
        tg.start_soon(first_call)
    earlier = failures[0].attempts
    assert [a.outcome for a in earlier] == [AttemptOutcome.TIMED_OUT] * 2

    again = await harness.chain.complete(request, gate=gate, prior_attempts=earlier[:1])

    assert again.provider == "fallback"
    assert [a.number for a in again.attempts] == [2]
    assert len(primary.requests) == 1
    assert len(gate.asks) == 2


async def test_cancelling_the_call_cancels_the_attempt_in_flight() -> None:
    hang = Hang(answer=LATE)
    primary = ScriptedProvider(name="primary", script=[hang])
    harness = Harness([primary])
    finished: list[ChainAnswer] = []

    async def run(scope: anyio.CancelScope) -> None:
        with scope:
            finished.append(await harness.chain.complete(make_request(), gate=ScriptedGate()))

    scope = anyio.CancelScope()
    async with anyio.create_task_group() as tg:
        tg.start_soon(run, scope)
        await hang.reached()
        scope.cancel()
    hang.release()

    assert finished == []
    assert harness.deadline.pending == 0
