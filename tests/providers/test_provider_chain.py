"""Retries, fallbacks, fatal errors and the gate, on asyncio and trio."""

from __future__ import annotations

import pytest
from chain_support import PLAN, Harness, make_request, outcomes

from turnframe.providers import (
    AttemptStep,
    Classification,
    FatalProviderError,
    GateAnswer,
    ProvidersExhausted,
    Purpose,
    RetryPolicy,
    RetryRefusedAfterSeal,
)
from turnframe.testing.scripted import (
    Answer,
    Fail,
    GateAsk,
    ScriptedGate,
    ScriptedProvider,
    ScriptExhausted,
)

pytestmark = pytest.mark.anyio


async def test_a_first_answer_is_used_without_asking_the_gate() -> None:
    primary = ScriptedProvider(name="primary", script=[Answer(PLAN)])
    gate = ScriptedGate()

    answer = await Harness([primary]).chain.complete(make_request(), gate=gate)

    assert (answer.text, answer.provider) == (PLAN, "primary")
    assert gate.asks == []
    assert answer.attempts[0].gate is GateAnswer.NOT_ASKED


async def test_a_retryable_error_is_retried_on_the_same_provider_after_the_gate_allows_it() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="retry"), Answer(PLAN)])
    gate = ScriptedGate()

    answer = await Harness([primary]).chain.complete(make_request(), gate=gate)

    assert answer.text == PLAN
    assert len(primary.requests) == 2
    assert gate.asks == [GateAsk(turn_id="turn-1", purpose=Purpose.INTERPRET, allowed=True)]
    retry = answer.attempts[1]
    assert (retry.step, retry.gate, retry.provider_attempt) == (
        AttemptStep.RETRY,
        GateAnswer.ALLOWED,
        2,
    )


async def test_a_fatal_refusal_is_never_retried_nor_sent_to_a_fallback() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="refusal")])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    gate = ScriptedGate()

    with pytest.raises(FatalProviderError) as raised:
        await Harness([primary, fallback]).chain.complete(make_request(), gate=gate)

    assert raised.value.cause.code == "turnframe.provider.refused"
    assert outcomes(raised.value.attempts) == [("primary", "error", "turnframe.provider.refused")]
    assert (len(primary.requests), fallback.requests, gate.asks) == (1, [], [])


@pytest.mark.parametrize(
    ("kind", "code"),
    [
        ("content_filter", "turnframe.provider.content_filtered"),
        ("context_overflow", "turnframe.provider.context_overflow"),
    ],
)
async def test_a_content_filter_and_a_context_overflow_are_fatal_too(kind: str, code: str) -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind=kind)])  # type: ignore[arg-type]
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])

    with pytest.raises(FatalProviderError) as raised:
        await Harness([primary, fallback]).chain.complete(make_request(), gate=ScriptedGate())

    assert raised.value.cause.code == code
    assert raised.value.attempts[0].classification is Classification.FATAL
    assert fallback.requests == []


async def test_a_rate_limit_waits_the_asked_delay_then_retries() -> None:
    primary = ScriptedProvider(
        name="primary", script=[Fail(kind="rate_limit", retry_after=7.5), Answer(PLAN)]
    )
    harness = Harness([primary])

    answer = await harness.chain.complete(make_request(), gate=ScriptedGate())

    assert harness.sleep.delays == [7.5]
    assert answer.attempts[0].retry_after == 7.5
    assert answer.attempts[1].delay_before == 7.5


async def test_a_rate_limit_asking_more_than_the_cap_falls_back_instead_of_waiting() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="rate_limit", retry_after=600)])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    harness = Harness([primary, fallback], RetryPolicy(max_retry_after=30))

    answer = await harness.chain.complete(make_request(), gate=ScriptedGate())

    assert answer.provider == "fallback"
    assert harness.sleep.delays == []


async def test_retries_back_off_exponentially_up_to_the_cap() -> None:
    failures = [Fail(kind="retry"), Fail(kind="timeout"), Fail(kind="retry")]
    primary = ScriptedProvider(name="primary", script=[*failures, Answer(PLAN)])
    policy = RetryPolicy(attempts_per_provider=4, backoff_initial=1.0, backoff_max=3.0)
    harness = Harness([primary], policy)

    answer = await harness.chain.complete(make_request(), gate=ScriptedGate())

    assert harness.sleep.delays == [1.0, 2.0, 3.0]
    assert [a.delay_before for a in answer.attempts] == [0.0, 1.0, 2.0, 3.0]


async def test_exhausting_retries_falls_back_to_the_next_provider() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="retry")] * 3)
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    gate = ScriptedGate()

    answer = await Harness([primary, fallback]).chain.complete(make_request(), gate=gate)

    assert answer.provider == "fallback"
    assert [(a.provider, a.step) for a in answer.attempts] == [
        ("primary", AttemptStep.FIRST),
        ("primary", AttemptStep.RETRY),
        ("primary", AttemptStep.RETRY),
        ("fallback", AttemptStep.FALLBACK),
    ]
    assert len(gate.asks) == 3


async def test_an_auth_failure_falls_back_at_once_without_a_retry() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="auth")])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])

    answer = await Harness([primary, fallback]).chain.complete(make_request(), gate=ScriptedGate())

    assert outcomes(answer.attempts) == [
        ("primary", "error", "turnframe.provider.auth_failed"),
        ("fallback", "ok", None),
    ]


async def test_the_gate_refusing_a_retry_stops_with_a_typed_error_carrying_all_attempts() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="retry")])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    gate = ScriptedGate(sealed=True)

    with pytest.raises(RetryRefusedAfterSeal) as raised:
        await Harness([primary, fallback]).chain.complete(make_request(), gate=gate)

    assert raised.value.code == "turnframe.provider_chain.refused_after_seal"
    assert outcomes(raised.value.attempts) == [
        ("primary", "error", "turnframe.provider.unavailable"),
        ("primary", "not_sent", None),
    ]
    assert raised.value.attempts[1].gate is GateAnswer.REFUSED
    assert (len(primary.requests), fallback.requests) == (1, [])


async def test_the_gate_refusing_a_fallback_sends_nothing_to_the_next_provider() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="retry"), Fail(kind="auth")])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    gate = ScriptedGate(seal_after=1)

    with pytest.raises(RetryRefusedAfterSeal) as raised:
        await Harness([primary, fallback]).chain.complete(make_request(), gate=gate)

    assert [(a.provider, a.step, a.gate) for a in raised.value.attempts] == [
        ("primary", AttemptStep.FIRST, GateAnswer.NOT_ASKED),
        ("primary", AttemptStep.RETRY, GateAnswer.ALLOWED),
        ("fallback", AttemptStep.FALLBACK, GateAnswer.REFUSED),
    ]
    assert fallback.requests == []


async def test_narration_retries_are_asked_for_and_allowed_after_the_seal() -> None:
    primary = ScriptedProvider(name="primary", narrate=[Fail(kind="retry"), Answer("Done.")])
    gate = ScriptedGate(sealed=True)

    answer = await Harness([primary]).chain.complete(make_request(Purpose.NARRATE), gate=gate)

    assert answer.text == "Done."
    assert gate.asks == [GateAsk(turn_id="turn-1", purpose=Purpose.NARRATE, allowed=True)]


async def test_every_attempt_is_recorded_in_order_with_its_outcome() -> None:
    primary = ScriptedProvider(
        name="primary", script=[Fail(kind="rate_limit", retry_after=2), Fail(kind="auth")]
    )
    fallback = ScriptedProvider(name="fallback", script=[Fail(kind="retry"), Answer(PLAN)])
    harness = Harness([primary, fallback])

    answer = await harness.chain.complete(
        make_request(), gate=ScriptedGate(), on_attempt=harness.record
    )

    assert [a.number for a in answer.attempts] == [1, 2, 3, 4]
    assert outcomes(answer.attempts) == [
        ("primary", "error", "turnframe.provider.rate_limited"),
        ("primary", "error", "turnframe.provider.auth_failed"),
        ("fallback", "error", "turnframe.provider.unavailable"),
        ("fallback", "ok", None),
    ]
    assert [a.used for a in answer.attempts] == [False, False, False, True]
    assert tuple(harness.seen) == answer.attempts


async def test_when_every_provider_fails_the_error_carries_every_attempt() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="model_not_found")])
    fallback = ScriptedProvider(name="fallback", script=[Fail(kind="bad_response")])
    harness = Harness([primary, fallback])

    with pytest.raises(ProvidersExhausted) as raised:
        await harness.chain.complete(make_request(), gate=ScriptedGate(), on_attempt=harness.record)

    assert raised.value.last_error is not None
    assert raised.value.last_error.code == "turnframe.provider.bad_response"
    assert [a.provider for a in raised.value.attempts] == ["primary", "fallback"]
    assert tuple(harness.seen) == raised.value.attempts


async def test_a_script_that_runs_out_propagates_unwrapped_instead_of_falling_back() -> None:
    primary = ScriptedProvider(name="primary")
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])

    with pytest.raises(ScriptExhausted):
        await Harness([primary, fallback]).chain.complete(make_request(), gate=ScriptedGate())

    assert fallback.requests == []


class _BrokenGate:
    async def may_retry(self, turn_id: str, purpose: Purpose) -> bool:
        raise LookupError(f"no gate state for {turn_id}")


async def test_an_error_from_the_gate_propagates_unwrapped() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="retry")])

    with pytest.raises(LookupError, match="no gate state"):
        await Harness([primary]).chain.complete(make_request(), gate=_BrokenGate())
