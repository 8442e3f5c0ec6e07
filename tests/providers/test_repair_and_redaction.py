"""A malformed answer gets one repair round; what the chain keeps of a provider is redacted."""

from __future__ import annotations

import pytest
from chain_support import PLAN, Harness, make_request, outcomes

from turnframe.providers import (
    AttemptStep,
    FatalProviderError,
    GateAnswer,
    MalformedAnswer,
    ProviderChain,
    ProvidersExhausted,
    RetryPolicy,
    RetryRefusedAfterSeal,
)
from turnframe.providers.redaction import REDACTED
from turnframe.testing.scripted import Answer, Fail, ScriptedGate, ScriptedProvider

pytestmark = pytest.mark.anyio

MALFORMED = "turnframe.provider.malformed_answer"
KEY = "tf-live-3f9a1c0e7b2d4a6f"


def malformed(message: str = "not valid JSON: Expecting value: line 1 column 1") -> Fail:
    return Fail(kind="malformed", message=message)


async def test_a_malformed_answer_is_repaired_on_the_same_provider_quoting_the_parse_error() -> (
    None
):
    primary = ScriptedProvider(name="primary", script=[malformed(), Answer(PLAN)])
    gate = ScriptedGate()

    answer = await Harness([primary]).chain.complete(make_request(), gate=gate)

    assert (answer.text, answer.provider) == (PLAN, "primary")
    assert outcomes(answer.attempts) == [("primary", "error", MALFORMED), ("primary", "ok", None)]
    repair = answer.attempts[1]
    assert (repair.step, repair.gate, repair.provider_attempt) == (
        AttemptStep.REPAIR,
        GateAnswer.ALLOWED,
        2,
    )
    assert repair.request_digest == answer.attempts[0].request_digest
    *_, shown, asked = primary.requests[1].messages
    assert (shown.role, shown.content) == ("assistant", "{not json")
    assert asked.role == "user"
    assert "not valid JSON: Expecting value: line 1 column 1" in asked.content


async def test_a_repair_that_is_malformed_again_falls_back() -> None:
    primary = ScriptedProvider(name="primary", script=[malformed(), malformed()])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])

    answer = await Harness([primary, fallback]).chain.complete(make_request(), gate=ScriptedGate())

    assert answer.provider == "fallback"
    assert [(a.provider, a.step.value, a.outcome.value) for a in answer.attempts] == [
        ("primary", "first", "error"),
        ("primary", "repair", "error"),
        ("fallback", "fallback", "ok"),
    ]


async def test_a_sealed_turn_gets_no_repair_round() -> None:
    primary = ScriptedProvider(name="primary", script=[malformed(), Answer(PLAN)])

    with pytest.raises(RetryRefusedAfterSeal) as raised:
        await Harness([primary]).chain.complete(make_request(), gate=ScriptedGate(sealed=True))

    assert [(a.step.value, a.gate.value, a.outcome.value) for a in raised.value.attempts] == [
        ("first", "not_asked", "error"),
        ("repair", "refused", "not_sent"),
    ]
    assert len(primary.requests) == 1


async def test_without_repair_rounds_a_malformed_answer_falls_back_at_once() -> None:
    primary = ScriptedProvider(name="primary", script=[malformed()])
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    harness = Harness([primary, fallback], RetryPolicy(repair_rounds=0))

    answer = await harness.chain.complete(make_request(), gate=ScriptedGate())

    assert outcomes(answer.attempts) == [("primary", "error", MALFORMED), ("fallback", "ok", None)]


async def test_an_answer_the_callers_check_rejects_gets_the_repair_round() -> None:
    primary = ScriptedProvider(name="primary", script=[Answer('{"acts": 1}'), Answer(PLAN)])

    def check(text: str) -> None:
        if text != PLAN:
            raise MalformedAnswer("primary: acts must be a list", answer=text, parse_error="acts")

    answer = await Harness([primary]).chain.complete(
        make_request(), gate=ScriptedGate(), check=check
    )

    assert outcomes(answer.attempts) == [("primary", "error", MALFORMED), ("primary", "ok", None)]
    assert primary.requests[1].messages[-2].content == '{"acts": 1}'


async def test_a_configured_secret_in_a_providers_words_is_redacted_from_the_attempts() -> None:
    primary = ScriptedProvider(name="primary", script=[Fail(kind="auth", message=f"bad {KEY}")])
    chain = ProviderChain([primary], secrets=[KEY])

    with pytest.raises(ProvidersExhausted) as raised:
        await chain.complete(make_request(), gate=ScriptedGate())

    (attempt,) = raised.value.attempts
    assert attempt.detail == f"bad {REDACTED}"
    assert KEY not in str(raised.value)


async def test_a_fatal_error_names_the_cause_without_the_secret() -> None:
    leak = f"refused for key {KEY}"
    primary = ScriptedProvider(name="primary", script=[Fail(kind="refusal", message=leak)])
    chain = ProviderChain([primary], secrets=[KEY])

    with pytest.raises(FatalProviderError) as raised:
        await chain.complete(make_request(), gate=ScriptedGate())

    assert KEY not in str(raised.value)
    assert REDACTED in str(raised.value)
