"""What the SDK adapters send and how they read what comes back, against the fake server."""

from __future__ import annotations

import json
from typing import Any

import anyio
import openai
import pytest
from adapter_support import ANTHROPIC_KEY, OPENAI_KEY, VENDORS, Vendor, adapter_on_fake
from anyio.abc import SocketAttribute
from chain_support import PLAN, make_request

from turnframe.errors import ConfigError
from turnframe.providers import (
    Classification,
    ContextOverflow,
    ProviderAuthFailed,
    ProviderError,
    ProviderRequest,
    Purpose,
)
from turnframe.providers.anthropic import AnthropicProvider
from turnframe.providers.openai_compat import OpenAICompatProvider, is_strict_schema
from turnframe.testing import fake_provider as fake

pytestmark = pytest.mark.anyio

OPEN_SCHEMA = {"type": "object", "required": ["acts"], "properties": {"acts": {"type": "array"}}}
STRICT_SCHEMA = {
    "type": "object",
    "properties": {"reply": {"type": "string"}},
    "required": ["reply"],
    "additionalProperties": False,
}


def request_with(schema: dict[str, Any]) -> ProviderRequest:
    return ProviderRequest.from_text(
        purpose=Purpose.NARRATE,
        turn_id="turn-1",
        correlation_id="corr-9",
        system="You narrate.",
        user="Say it.",
        answer_schema=schema,
        template_hash="t",
    )


async def test_an_openai_request_speaks_chat_completions_with_the_key_and_the_correlation_id() -> (
    None
):
    async with adapter_on_fake("openai", fake.Answer(PLAN)) as (server, provider):
        answer = await provider.complete(make_request())

    (sent,) = server.received
    assert (answer.text, answer.model) == (PLAN, "gpt-test")
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert sent.headers["x-request-id"] == "corr-1"
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert sent.body["max_tokens"] == 2048
    assert server.problems == []


async def test_a_schema_openai_cannot_take_strictly_is_sent_as_guidance_not_strict() -> None:
    async with adapter_on_fake("openai", fake.Answer("{}"), fake.Answer('{"reply": "hi"}')) as (
        server,
        provider,
    ):
        await provider.complete(request_with(OPEN_SCHEMA))
        await provider.complete(request_with(STRICT_SCHEMA))

    loose, strict = (r.body["response_format"]["json_schema"] for r in server.received)
    assert (loose["strict"], loose["schema"], loose["name"]) == (
        False,
        OPEN_SCHEMA,
        "narrate_answer",
    )
    assert (strict["strict"], strict["schema"]) == (True, STRICT_SCHEMA)
    assert server.problems == []


def test_strictness_needs_every_object_closed_and_every_property_required() -> None:
    nested_open = {**STRICT_SCHEMA, "properties": {"reply": {"type": "object"}}}

    assert is_strict_schema(STRICT_SCHEMA)
    assert not is_strict_schema(OPEN_SCHEMA)
    assert not is_strict_schema(nested_open)


async def test_openai_tool_mode_forces_one_function_and_reads_its_arguments() -> None:
    async with adapter_on_fake("openai", fake.Answer(PLAN), structured="tool") as (
        server,
        provider,
    ):
        answer = await provider.complete(make_request())

    body = server.received[0].body
    assert answer.text == PLAN
    assert body["tool_choice"] == {"type": "function", "function": {"name": "answer"}}
    assert body["tools"][0]["function"]["parameters"] == {"type": "object"}
    assert "response_format" not in body
    assert server.problems == []


async def test_openai_json_mode_asks_for_json_in_the_prompt_as_the_api_requires() -> None:
    async with adapter_on_fake("openai", fake.Answer(PLAN), structured="json_object") as (
        server,
        provider,
    ):
        await provider.complete(make_request())

    body = server.received[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert "JSON" in body["messages"][0]["content"]
    assert server.problems == []


async def test_newer_openai_models_get_max_completion_tokens() -> None:
    options = {"token_limit_field": "max_completion_tokens"}
    async with adapter_on_fake("openai", fake.Answer(PLAN), **options) as (server, provider):
        await provider.complete(make_request())

    body = server.received[0].body
    assert (body["max_completion_tokens"], "max_tokens" in body) == (2048, False)


async def test_an_anthropic_request_forces_the_answer_tool_and_reads_its_input() -> None:
    async with adapter_on_fake("anthropic", fake.Answer(PLAN)) as (server, provider):
        answer = await provider.complete(make_request())

    (sent,) = server.received
    assert json.loads(answer.text) == {"acts": []}
    assert sent.path == "/v1/messages"
    assert sent.api_key == ANTHROPIC_KEY
    assert "anthropic-version" in sent.headers
    assert sent.body["system"] == "You interpret one user turn as a plan."
    assert sent.body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert sent.body["tools"][0]["input_schema"] == {"type": "object"}
    assert sent.body["max_tokens"] == 2048
    assert server.problems == []


@pytest.mark.parametrize("structured", ["json_schema", "text"])
async def test_anthropic_json_schema_and_text_modes_read_the_text(structured: str) -> None:
    async with adapter_on_fake("anthropic", fake.Answer(PLAN), structured=structured) as (
        server,
        provider,
    ):
        answer = await provider.complete(make_request())

    body = server.received[0].body
    assert answer.text == PLAN
    assert "tools" not in body
    if structured == "json_schema":
        assert body["output_config"] == {
            "format": {"type": "json_schema", "schema": {"type": "object"}}
        }
    else:
        assert "output_config" not in body


async def test_an_anthropic_answer_stopped_by_the_context_window_is_a_context_overflow() -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "{"}],
        "stop_reason": "model_context_window_exceeded",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    reply = fake.RawReply(body=json.dumps(message).encode())
    async with adapter_on_fake("anthropic", reply) as (_, provider):
        with pytest.raises(ContextOverflow):
            await provider.complete(make_request())


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_200_that_is_not_the_apis_shape_is_a_bad_response(vendor: Vendor) -> None:
    page = fake.RawReply(body=b"<html>captive portal</html>", content_type="text/html")
    async with adapter_on_fake(vendor, page) as (_, provider):
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert raised.value.code == "turnframe.provider.bad_response"


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_provider_nobody_listens_for_is_unavailable(vendor: Vendor) -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(SocketAttribute.local_port)
    await listener.aclose()
    url = f"http://127.0.0.1:{port}"
    provider: OpenAICompatProvider | AnthropicProvider = (
        OpenAICompatProvider(model="m", api_key="k", base_url=url + "/v1")
        if vendor == "openai"
        else AnthropicProvider(model="m", api_key="k", base_url=url)
    )

    async with provider:
        with pytest.raises(ProviderError) as raised:
            await provider.complete(make_request())

    assert (raised.value.code, raised.value.classification) == (
        "turnframe.provider.unavailable",
        Classification.RETRY,
    )


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_server_that_checks_keys_refuses_the_wrong_one(vendor: Vendor) -> None:
    async with fake.FakeProviderServer(fake.Answer(PLAN), api_key="the-right-key-123") as server:
        provider: OpenAICompatProvider | AnthropicProvider = (
            OpenAICompatProvider(
                model="m", api_key="wrong-key-456", base_url=server.openai_base_url
            )
            if vendor == "openai"
            else AnthropicProvider(model="m", api_key="wrong-key-456", base_url=server.url)
        )
        async with provider:
            with pytest.raises(ProviderAuthFailed):
                await provider.complete(make_request())

    assert server.remaining == 1


@pytest.mark.parametrize(
    ("profile", "key", "budget"),
    [("vllm", "EMPTY", 32_768), ("ollama", "ollama", 8_192), ("llama_cpp", "not-needed", 8_192)],
)
async def test_a_local_server_profile_speaks_openai_at_the_given_base_url(
    profile: str, key: str, budget: int
) -> None:
    async with fake.FakeProviderServer(fake.Answer(PLAN)) as server:
        provider = OpenAICompatProvider.local(
            profile, model="qwen2.5:7b", base_url=server.openai_base_url
        )
        async with provider:
            answer = await provider.complete(make_request())

    sent = server.received[0]
    assert (provider.name, provider.context_budget_tokens, answer.text) == (profile, budget, PLAN)
    assert sent.api_key == key
    assert sent.body["model"] == "qwen2.5:7b"
    assert sent.body["response_format"]["type"] == "json_schema"
    assert server.problems == []


def test_an_unknown_local_profile_is_a_config_error_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError) as raised:
        OpenAICompatProvider.local("lmstudio", model="m")

    assert "llama_cpp, ollama, vllm" in str(raised.value)


def test_a_local_profile_usually_listens_on_loopback() -> None:
    provider = OpenAICompatProvider.local("ollama", model="llama3.2")

    assert provider.base_url.startswith("http://127.0.0.1:11434/v1")


def test_an_openai_provider_without_any_key_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ConfigError) as raised:
        OpenAICompatProvider(model="m")

    assert raised.value.hint == "pass api_key= or set OPENAI_API_KEY"


async def test_an_adopters_client_is_shared_with_its_retries_off_and_left_open() -> None:
    failures = [fake.ApiError(kind=fake.ErrorKind.SERVER_ERROR) for _ in range(4)]
    async with fake.FakeProviderServer(*failures) as server:
        client = openai.AsyncOpenAI(api_key="k", base_url=server.openai_base_url, max_retries=3)
        provider = OpenAICompatProvider(model="m", client=client)
        with pytest.raises(ProviderError):
            await provider.complete(make_request())
        await provider.aclose()

        assert len(server.received) == 1  # our copy sent once; the chain owns retries
        assert not client.is_closed()
        await client.close()
