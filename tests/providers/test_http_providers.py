"""The OpenAI-compatible and Anthropic providers against a fake server speaking their HTTP APIs."""

from __future__ import annotations

import json
from typing import Literal

import anyio
import httpx
import pytest
from anyio.abc import SocketAttribute
from chain_support import PLAN, make_request
from fake_http import (
    Reply,
    anthropic_answer,
    anthropic_error,
    fake_provider_server,
    openai_answer,
    openai_error,
)

from turnframe.providers import (
    Classification,
    ContentFiltered,
    ContextOverflow,
    ProviderChain,
    ProviderError,
    ProviderRefused,
    RateLimited,
    RetryPolicy,
)
from turnframe.providers.anthropic import AnthropicProvider
from turnframe.providers.http import retry_after_seconds
from turnframe.providers.openai_compat import OpenAICompatProvider
from turnframe.testing.scripted import RecordedSleep, ScriptedGate

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object"}


def openai_at(url: str) -> OpenAICompatProvider:
    return OpenAICompatProvider(model="gpt-test", api_key="sk-test", base_url=url)


def anthropic_at(url: str, structured: Literal["tool", "text"] = "tool") -> AnthropicProvider:
    return AnthropicProvider(
        model="claude-test", api_key="ak-test", base_url=url, structured=structured
    )


async def test_an_openai_answer_is_the_message_content_and_the_request_speaks_the_api() -> None:
    async with (
        fake_provider_server(Reply(body=openai_answer(PLAN))) as server,
        openai_at(server.url) as provider,
    ):
        answer = await provider.complete(make_request())

    assert (answer.text, answer.model) == (PLAN, "gpt-test")
    sent = server.received[0]
    assert (sent.method, sent.path) == ("POST", "/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert sent.body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert sent.body["response_format"]["json_schema"]["strict"] is True
    assert sent.body["max_tokens"] == 2048


@pytest.mark.parametrize(
    ("status", "code", "classification"),
    [
        (401, "turnframe.provider.auth_failed", Classification.FALLBACK),
        (403, "turnframe.provider.auth_failed", Classification.FALLBACK),
        (404, "turnframe.provider.model_not_found", Classification.FALLBACK),
        (400, "turnframe.provider.bad_request", Classification.FALLBACK),
        (500, "turnframe.provider.unavailable", Classification.RETRY),
        (503, "turnframe.provider.unavailable", Classification.RETRY),
        (504, "turnframe.provider.timeout", Classification.RETRY),
    ],
)
async def test_an_openai_error_status_becomes_its_classified_error(
    status: int, code: str, classification: Classification
) -> None:
    reply = Reply(status=status, body=openai_error("whatever"))
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert (raised.value.code, raised.value.classification) == (code, classification)


async def test_an_openai_rate_limit_carries_the_asked_delay() -> None:
    reply = Reply(
        status=429, body=openai_error("rate_limit_exceeded"), headers={"retry-after": "3"}
    )
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(RateLimited) as raised:
            await provider.complete(make_request())

    assert raised.value.retry_after == 3.0


async def test_an_openai_quota_error_falls_back_instead_of_waiting() -> None:
    reply = Reply(status=429, body=openai_error("insufficient_quota"))
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert raised.value.code == "turnframe.provider.quota_exhausted"
    assert raised.value.classification is Classification.FALLBACK


async def test_an_openai_context_length_error_is_a_fatal_context_overflow() -> None:
    reply = Reply(status=400, body=openai_error("context_length_exceeded"))
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ContextOverflow):
            await provider.complete(make_request())


async def test_an_openai_content_filter_finish_is_fatal() -> None:
    reply = Reply(body=openai_answer(None, finish="content_filter"))
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ContentFiltered):
            await provider.complete(make_request())


async def test_an_openai_refusal_is_fatal() -> None:
    reply = Reply(body=openai_answer(None, refusal="I can't help with that."))
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ProviderRefused):
            await provider.complete(make_request())


async def test_a_truncated_openai_answer_is_a_bad_response() -> None:
    reply = Reply(body=openai_answer('{"acts": [', finish="length"))
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert raised.value.code == "turnframe.provider.bad_response"


async def test_a_gateway_error_page_is_classified_by_its_status() -> None:
    reply = Reply(status=502, raw=b"<html>Bad Gateway</html>")
    async with fake_provider_server(reply) as server, openai_at(server.url) as provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert raised.value.classification is Classification.RETRY


async def test_a_provider_nobody_listens_for_is_unavailable() -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(SocketAttribute.local_port)
    await listener.aclose()

    async with openai_at(f"http://127.0.0.1:{port}") as provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert raised.value.code == "turnframe.provider.unavailable"


async def test_an_anthropic_tool_answer_is_its_input_as_json_and_the_request_speaks_the_api() -> (
    None
):
    tool_use = {"type": "tool_use", "id": "t1", "name": "answer", "input": {"acts": []}}
    async with (
        fake_provider_server(Reply(body=anthropic_answer([tool_use]))) as server,
        anthropic_at(server.url) as provider,
    ):
        answer = await provider.complete(make_request())

    assert json.loads(answer.text) == {"acts": []}
    sent = server.received[0]
    assert sent.path == "/v1/messages"
    assert (sent.headers["x-api-key"], sent.headers["anthropic-version"]) == (
        "ak-test",
        "2023-06-01",
    )
    assert sent.body["tools"][0]["input_schema"] == SCHEMA
    assert sent.body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert sent.body["system"].startswith("You interpret")


async def test_anthropic_text_mode_joins_the_text_blocks() -> None:
    blocks = [{"type": "text", "text": '{"acts"'}, {"type": "text", "text": ": []}"}]
    reply = Reply(body=anthropic_answer(blocks, stop="end_turn"))
    async with (
        fake_provider_server(reply) as server,
        anthropic_at(server.url, structured="text") as provider,
    ):
        answer = await provider.complete(make_request())

    assert answer.text == PLAN
    assert "tools" not in server.received[0].body


async def test_an_anthropic_refusal_stop_is_fatal() -> None:
    reply = Reply(body=anthropic_answer([], stop="refusal"))
    async with fake_provider_server(reply) as server, anthropic_at(server.url) as provider:
        with pytest.raises(ProviderRefused):
            await provider.complete(make_request())


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=400, body=anthropic_error("invalid_request_error", "prompt is too long")),
        Reply(status=413, body=anthropic_error("request_too_large")),
    ],
)
async def test_an_anthropic_prompt_that_does_not_fit_is_a_context_overflow(reply: Reply) -> None:
    async with fake_provider_server(reply) as server, anthropic_at(server.url) as provider:
        with pytest.raises(ContextOverflow):
            await provider.complete(make_request())


async def test_an_anthropic_overload_is_retried_after_the_asked_delay() -> None:
    reply = Reply(
        status=529, body=anthropic_error("overloaded_error"), headers={"retry-after": "4"}
    )
    async with fake_provider_server(reply) as server, anthropic_at(server.url) as provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert (raised.value.classification, raised.value.retry_after) == (Classification.RETRY, 4.0)


async def test_the_chain_retries_an_http_rate_limit_after_the_asked_delay() -> None:
    limited = Reply(
        status=429, body=openai_error("rate_limit_exceeded"), headers={"retry-after": "2"}
    )
    async with (
        fake_provider_server(limited, Reply(body=openai_answer(PLAN))) as server,
        openai_at(server.url) as provider,
    ):
        sleep = RecordedSleep()
        chain = ProviderChain([provider], policy=RetryPolicy(), sleep=sleep)
        answer = await chain.complete(make_request(), gate=ScriptedGate())

    assert (answer.text, sleep.delays, len(server.received)) == (PLAN, [2.0], 2)


def test_a_retry_after_date_is_measured_against_the_response_date() -> None:
    headers = httpx.Headers(
        {"retry-after": "Wed, 21 Oct 2026 07:28:30 GMT", "date": "Wed, 21 Oct 2026 07:28:00 GMT"}
    )

    assert retry_after_seconds(headers) == 30.0
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "250"})) == 0.25
