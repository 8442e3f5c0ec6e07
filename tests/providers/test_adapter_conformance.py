"""Every fault of the fake provider server, against both SDK adapters, through the chain.

Each row scripts one fault on the adapter under test ("primary"), backed by a scripted fallback.
It asserts how the adapter classifies the fault, what the chain does with it (retry on the same
provider, fall back, repair, or stop), the attempts recorded, and that every request the adapter
sent followed the vendor's API. On asyncio and trio.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
import attrs
import pytest
from adapter_support import VENDORS, Observed, Vendor, adapter_on_fake
from chain_support import PLAN, Harness, make_request

from turnframe.providers import (
    ChainAnswer,
    Classification,
    FatalProviderError,
    ProviderAttempt,
    ProvidersExhausted,
)
from turnframe.testing import fake_provider as fake
from turnframe.testing.scripted import Answer, Hang, ScriptedGate, ScriptedProvider

pytestmark = pytest.mark.anyio

Code = str | dict[Vendor, str]


@attrs.frozen
class Row:
    fault: Callable[[], fake.Step]
    code: Code
    then: str  # "retry", "fallback", "fatal" or "repair"
    classification: Classification
    delay: float | None = None  # the delay the chain waited before its retry

    def code_for(self, vendor: Vendor) -> str:
        code = self.code if isinstance(self.code, str) else self.code[vendor]
        return f"turnframe.provider.{code}"


def error(kind: fake.ErrorKind, **options: object) -> Callable[[], fake.Step]:
    return lambda: fake.ApiError(kind=kind, **options)  # type: ignore[arg-type]


K = fake.ErrorKind
RETRY, FALLBACK, FATAL = Classification.RETRY, Classification.FALLBACK, Classification.FATAL
RETRY_AFTER = Classification.RETRY_AFTER
BACKOFF = 1.0  # the Harness's first backoff

ROWS: dict[str, Row] = {
    "401 unauthorized": Row(error(K.UNAUTHORIZED), "auth_failed", "fallback", FALLBACK),
    "403 forbidden": Row(error(K.FORBIDDEN), "auth_failed", "fallback", FALLBACK),
    "404 model not found": Row(error(K.MODEL_NOT_FOUND), "model_not_found", "fallback", FALLBACK),
    "408 request timeout": Row(error(K.REQUEST_TIMEOUT), "timeout", "retry", RETRY, BACKOFF),
    "409 conflict": Row(error(K.CONFLICT), "unavailable", "retry", RETRY, BACKOFF),
    "429 with retry-after seconds": Row(
        error(K.RATE_LIMITED, retry_after=2), "rate_limited", "retry", RETRY_AFTER, 2.0
    ),
    "429 with retry-after-ms": Row(
        error(K.RATE_LIMITED, retry_after=0.25, retry_after_format="milliseconds"),
        "rate_limited",
        "retry",
        RETRY_AFTER,
        0.25,
    ),
    "429 with retry-after as an HTTP date": Row(
        error(K.RATE_LIMITED, retry_after=3, retry_after_format="http-date"),
        "rate_limited",
        "retry",
        RETRY_AFTER,
        3.0,
    ),
    "429 asking longer than the cap": Row(
        error(K.RATE_LIMITED, retry_after=120), "rate_limited", "fallback", RETRY_AFTER
    ),
    "quota exhausted": Row(error(K.QUOTA_EXHAUSTED), "quota_exhausted", "fallback", FALLBACK),
    "500 server error": Row(error(K.SERVER_ERROR), "unavailable", "retry", RETRY, BACKOFF),
    "503 unavailable": Row(error(K.UNAVAILABLE), "unavailable", "retry", RETRY, BACKOFF),
    "503 with retry-after": Row(
        error(K.UNAVAILABLE, retry_after=5), "unavailable", "retry", RETRY, 5.0
    ),
    "overloaded (529 / 503)": Row(error(K.OVERLOADED), "unavailable", "retry", RETRY, BACKOFF),
    "504 gateway timeout": Row(error(K.GATEWAY_TIMEOUT), "timeout", "retry", RETRY, BACKOFF),
    "context overflow": Row(error(K.CONTEXT_OVERFLOW), "context_overflow", "fatal", FATAL),
    "413 request too large": Row(error(K.REQUEST_TOO_LARGE), "context_overflow", "fatal", FATAL),
    "prompt stopped by the content filter": Row(
        error(K.CONTENT_FILTERED), "content_filtered", "fatal", FATAL
    ),
    "answer stopped by the content filter": Row(
        fake.FilterContent, {"openai": "content_filtered", "anthropic": "refused"}, "fatal", FATAL
    ),
    "refusal": Row(fake.Refuse, "refused", "fatal", FATAL),
    "answer cut at the token limit": Row(fake.Truncate, "bad_response", "fallback", FALLBACK),
    "400 bad request": Row(error(K.BAD_REQUEST), "bad_request", "fallback", FALLBACK),
    "connection dropped mid-body": Row(fake.DropMidBody, "unavailable", "retry", RETRY, BACKOFF),
    "malformed JSON body": Row(fake.MalformedBody, "bad_response", "fallback", FALLBACK),
    "gateway's HTML error page": Row(fake.ErrorPage, "unavailable", "retry", RETRY, BACKOFF),
    "answer that is not JSON": Row(
        lambda: fake.Answer("Sure! The plan: change the date."),
        "malformed_answer",
        "repair",
        FALLBACK,
    ),
    "answer that is JSON but not an object": Row(
        lambda: fake.Answer("[1, 2, 3]"), "malformed_answer", "repair", FALLBACK
    ),
    "answer nested too deeply to read": Row(
        lambda: fake.Answer("[" * 50_000 + "]" * 50_000), "malformed_answer", "repair", FALLBACK
    ),
}


def summary(attempts: tuple[ProviderAttempt, ...]) -> list[tuple[str, str, str, str | None]]:
    return [(a.provider, a.step.value, a.outcome.value, a.error_code) for a in attempts]


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("row", ROWS.values(), ids=list(ROWS))
async def test_each_fault_is_classified_and_handled_by_the_chain(vendor: Vendor, row: Row) -> None:
    fallback = ScriptedProvider(name="fallback", script=[Answer(PLAN)])
    code = row.code_for(vendor)
    async with adapter_on_fake(vendor, row.fault(), fake.Answer(PLAN)) as (server, primary):
        harness = Harness([primary, fallback])
        call = harness.chain.complete(
            make_request(), gate=ScriptedGate(), on_attempt=harness.record
        )
        if row.then == "fatal":
            with pytest.raises(FatalProviderError) as raised:
                await call
            attempts = raised.value.attempts
            assert raised.value.cause.code == code
        else:
            answer = await call
            attempts = answer.attempts
            assert answer.text == PLAN

    first = attempts[0]
    assert (first.error_code, first.classification) == (code, row.classification)
    assert first.detail and first.detail.startswith("primary: ")
    expected = {
        "retry": [("primary", "first", "error", code), ("primary", "retry", "ok", None)],
        "repair": [("primary", "first", "error", code), ("primary", "repair", "ok", None)],
        "fallback": [("primary", "first", "error", code), ("fallback", "fallback", "ok", None)],
        "fatal": [("primary", "first", "error", code)],
    }[row.then]
    assert summary(attempts) == expected
    assert tuple(harness.seen) == attempts
    assert harness.sleep.delays == ([row.delay] if row.delay is not None else [])
    assert len(server.received) == sum(a.provider == "primary" for a in attempts)
    assert server.problems == []
    if row.then == "fatal":
        assert fallback.requests == []


@pytest.mark.parametrize("vendor", VENDORS)
async def test_an_answer_is_used_at_once_and_recorded(vendor: Vendor) -> None:
    async with adapter_on_fake(vendor, fake.Answer(PLAN)) as (server, primary):
        harness = Harness([primary])
        answer = await harness.chain.complete(make_request(), gate=ScriptedGate())

    assert (answer.text, answer.provider) == (PLAN, "primary")
    assert summary(answer.attempts) == [("primary", "first", "ok", None)]
    assert answer.attempts[0].used
    assert answer.model == {"openai": "gpt-test", "anthropic": "claude-test"}[vendor]
    assert server.problems == []


@pytest.mark.parametrize("vendor", VENDORS)
async def test_the_repair_request_quotes_the_answer_and_the_parse_error_on_the_wire(
    vendor: Vendor,
) -> None:
    bad = "Sure! The plan: change the date."
    async with adapter_on_fake(vendor, fake.Answer(bad), fake.Answer(PLAN)) as (server, primary):
        await Harness([primary]).chain.complete(make_request(), gate=ScriptedGate())

    first, repair = (r.body["messages"] for r in server.received)
    shown, asked = repair[-2:]
    assert repair[: len(first)] == first
    assert (shown["role"], shown["content"]) == ("assistant", bad)
    assert asked["role"] == "user"
    if vendor == "openai":
        assert "not valid JSON: Expecting value: line 1 column 1 (char 0)" in asked["content"]
    else:
        assert "answer by calling the 'answer' tool" in asked["content"]
    assert server.problems == []


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_provider_that_hangs_past_its_own_timeout_is_retried(vendor: Vendor) -> None:
    steps = (fake.Hang(), fake.Answer(PLAN))
    async with adapter_on_fake(vendor, *steps, timeout=0.2) as (_, primary):
        answer = await Harness([primary]).chain.complete(make_request(), gate=ScriptedGate())

    assert summary(answer.attempts) == [
        ("primary", "first", "error", "turnframe.provider.timeout"),
        ("primary", "retry", "ok", None),
    ]
    assert answer.attempts[0].classification is Classification.RETRY


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_late_answer_after_the_chains_deadline_is_recorded_once_and_never_used(
    vendor: Vendor,
) -> None:
    late = fake.Hang(then=fake.Answer('{"acts": [{"kind": "chitchat"}]}'))
    held = Hang(answer=PLAN)
    fallback = ScriptedProvider(name="fallback", script=[held])
    answers: list[ChainAnswer] = []
    async with adapter_on_fake(vendor, late) as (server, adapter):
        primary = Observed(adapter)
        harness = Harness([primary, fallback])

        async def run() -> None:
            answers.append(await harness.chain.complete(make_request(), gate=ScriptedGate()))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await late.reached()
            harness.deadline.expire()  # the chain stops waiting: primary is timed out
            await held.reached()
            late.release()  # the primary's answer arrives, late
            await primary.returned.wait()
            held.release()

    (answer,) = answers
    assert (answer.text, answer.provider) == (PLAN, "fallback")
    assert summary(answer.attempts) == [
        ("primary", "first", "timed_out", "turnframe.provider.timed_out"),
        ("primary", "first", "late_answer", None),
        ("fallback", "fallback", "ok", None),
    ]
    assert (answer.attempts[1].late_of, answer.attempts[1].used) == (1, False)
    assert len(server.received) == 1


@pytest.mark.parametrize("vendor", VENDORS)
async def test_the_sdks_own_retries_are_off(vendor: Vendor) -> None:
    failing = [fake.ApiError(kind=fake.ErrorKind.SERVER_ERROR) for _ in range(3)]
    async with adapter_on_fake(vendor, *failing, fake.Answer(PLAN)) as (server, primary):
        harness = Harness([primary])
        with pytest.raises(ProvidersExhausted):
            await harness.chain.complete(make_request(), gate=ScriptedGate())

    assert len(server.received) == 3
    assert server.remaining == 1
