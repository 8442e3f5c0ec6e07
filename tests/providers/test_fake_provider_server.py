"""The fake provider server checks requests as the vendors do and answers as they do."""

from __future__ import annotations

import threading
from typing import Any

import anthropic
import openai
import pytest

from turnframe.testing import fake_provider as fake
from turnframe.testing.scripted import ScriptError

pytestmark = pytest.mark.anyio

USER = [{"role": "user", "content": "Answer in JSON."}]


def openai_client(server: fake.FakeProviderServer, key: str = "sk-test") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key=key, base_url=server.openai_base_url, max_retries=0)


def anthropic_client(server: fake.FakeProviderServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="ak-test", base_url=server.url, max_retries=0)


async def openai_error(server: fake.FakeProviderServer, **params: Any) -> openai.APIStatusError:
    async with openai_client(server) as client:
        with pytest.raises(openai.APIStatusError) as raised:
            await client.chat.completions.create(**{"model": "gpt-test", **params})
    return raised.value


async def anthropic_error(
    server: fake.FakeProviderServer, **params: Any
) -> anthropic.APIStatusError:
    async with anthropic_client(server) as client:
        with pytest.raises(anthropic.APIStatusError) as raised:
            await client.messages.create(**{"model": "claude-test", "max_tokens": 10, **params})
    return raised.value


async def test_a_request_that_breaks_openais_api_gets_its_400_and_takes_no_step() -> None:
    async with fake.FakeProviderServer(fake.Answer("{}")) as server:
        error = await openai_error(server, messages=[{"role": "robot", "content": "hi"}])

    assert error.status_code == 400
    assert (error.type, error.code, error.param) == (
        "invalid_request_error",
        "invalid_value",
        "messages.0.role",
    )
    assert server.remaining == 1
    assert server.problems and server.problems[0].startswith("request 1: messages.0.role")


async def test_a_strict_schema_openai_would_refuse_is_refused_naming_the_rule() -> None:
    loose = {"type": "object", "properties": {"acts": {"type": "array"}}}
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": loose, "strict": True}}
    async with fake.FakeProviderServer(fake.Answer("{}")) as server:
        error = await openai_error(server, messages=USER, response_format=fmt)

    assert error.status_code == 400
    assert "'additionalProperties' is required to be supplied and to be false" in error.message


async def test_openai_json_mode_without_json_in_the_prompt_is_refused() -> None:
    async with fake.FakeProviderServer(fake.Answer("{}")) as server:
        error = await openai_error(
            server,
            messages=[{"role": "user", "content": "hi"}],
            response_format={"type": "json_object"},
        )

    assert "must contain the word 'json'" in error.message


async def test_a_request_that_breaks_anthropics_api_gets_its_400_and_takes_no_step() -> None:
    async with fake.FakeProviderServer(fake.Answer("{}")) as server:
        error = await anthropic_error(server, messages=[{"role": "assistant", "content": "  "}])

    assert error.status_code == 400
    assert error.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert 'first message must use the "user" role' in str(error.body)
    assert server.remaining == 1


async def test_a_forced_tool_that_is_not_declared_is_refused() -> None:
    async with fake.FakeProviderServer(fake.Answer("{}")) as server:
        error = await anthropic_error(
            server, messages=USER, tool_choice={"type": "tool", "name": "answer"}
        )

    assert "tool 'answer' is not in tools" in str(error.body)


async def test_a_rate_limit_carries_the_vendors_headers_and_body() -> None:
    limited = fake.ApiError(kind=fake.ErrorKind.RATE_LIMITED, retry_after=7)
    async with fake.FakeProviderServer(limited, limited) as server:
        from_openai = await openai_error(server, messages=USER)
        from_anthropic = await anthropic_error(server, messages=USER)

    assert (from_openai.status_code, from_openai.code) == (429, "rate_limit_exceeded")
    assert from_openai.response.headers["retry-after"] == "7"
    assert from_openai.response.headers["x-ratelimit-remaining-requests"] == "0"
    assert from_openai.request_id is not None
    assert from_anthropic.status_code == 429
    assert from_anthropic.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
    assert from_anthropic.response.headers["retry-after"] == "7"
    assert from_anthropic.response.headers["x-should-retry"] == "true"
    assert from_anthropic.request_id == from_anthropic.body["request_id"]  # type: ignore[index]


async def test_anthropics_overload_is_its_529() -> None:
    async with fake.FakeProviderServer(fake.ApiError(kind="overloaded")) as server:
        error = await anthropic_error(server, messages=USER)

    assert isinstance(error, anthropic.OverloadedError)
    assert error.body["error"]["type"] == "overloaded_error"  # type: ignore[index]


async def test_an_echoed_key_is_the_presented_key_whole() -> None:
    echo = fake.ApiError(kind=fake.ErrorKind.UNAUTHORIZED, echo_key=True)
    async with fake.FakeProviderServer(echo, fake.ApiError(kind="unauthorized")) as server:
        echoed = await openai_error(server, messages=USER)
        masked = await openai_error(server, messages=USER)

    assert "Incorrect API key provided: sk-test." in echoed.message
    assert "sk-test" not in masked.message


async def test_a_request_beyond_the_script_gets_a_500_and_is_a_problem() -> None:
    async with fake.FakeProviderServer() as server:
        error = await openai_error(server, messages=USER)

    assert error.status_code == 500
    assert server.problems == ["request 1: script: no scripted reply left"]


async def test_an_unknown_path_gets_the_vendors_404() -> None:
    async with fake.FakeProviderServer() as server, openai_client(server) as client:
        with pytest.raises(openai.NotFoundError) as raised:
            await client.models.list()

    assert "Invalid URL (GET /v1/models)" in raised.value.message


async def test_a_hang_released_with_nothing_to_say_drops_the_connection() -> None:
    hang = fake.Hang()
    async with fake.FakeProviderServer(hang) as server, openai_client(server) as client:
        hang.release()
        with pytest.raises(openai.APIConnectionError):
            await client.chat.completions.create(model="m", messages=USER)  # type: ignore[arg-type]


def test_from_a_thread_a_synchronous_client_gets_a_late_answer_when_the_test_releases_it() -> None:
    hang = fake.Hang(then=fake.Answer('{"late": true}'))
    answers: list[str | None] = []
    with fake.FakeProviderServer.in_thread(hang) as server:
        client = openai.OpenAI(api_key="k", base_url=server.openai_base_url, max_retries=0)

        def ask() -> None:
            completion = client.chat.completions.create(model="m", messages=USER)  # type: ignore[arg-type]
            answers.append(completion.choices[0].message.content)

        caller = threading.Thread(target=ask)
        caller.start()
        assert hang.wait_reached(timeout=30)
        hang.release()
        caller.join(timeout=30)
        client.close()

    assert answers == ['{"late": true}']


def test_a_step_that_is_not_a_step_is_refused_when_scripted() -> None:
    with pytest.raises(ScriptError) as raised:
        fake.FakeProviderServer("not a step")  # type: ignore[arg-type]

    assert raised.value.code == "turnframe.testing.script_invalid"


def test_a_server_that_is_not_running_has_no_address() -> None:
    with pytest.raises(ScriptError):
        _ = fake.FakeProviderServer().url


async def test_a_withdrawn_step_answers_no_request_and_the_next_step_answers_instead() -> None:
    hang, answer = fake.Hang(), fake.Answer('{"acts": []}')
    async with fake.FakeProviderServer(hang, answer) as server:
        assert server.withdraw(hang) is True
        assert server.withdraw(hang) is False  # gone already
        async with openai_client(server) as client:
            reply = await client.chat.completions.create(model="gpt-test", messages=USER)
    assert reply.choices[0].message.content == '{"acts": []}'
    assert [r.step for r in server.received] == ["Answer"]
    assert server.withdraw(answer) is False  # taken by the request
