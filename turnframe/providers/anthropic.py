"""A provider for the Anthropic Messages API, on the official ``anthropic`` SDK (the
``anthropic`` extra).

Structured output (``structured=``): ``"tool"`` (default) forces one tool call whose
``input_schema`` is the answer schema, and the answer is that input as JSON; ``"json_schema"``
asks for JSON output in the schema's format (``output_config.format``) and reads the text;
``"text"`` reads the text blocks. A text answer must be JSON of the schema's top-level type, and
a model that answers in text instead of calling the forced tool gave a malformed answer: both
are a :class:`~turnframe.providers.errors.MalformedAnswer` (the chain gives one repair round).

A ``refusal`` stop is fatal, as are "prompt is too long", 413 and a
``model_context_window_exceeded`` stop, and "content filtering policy" errors;
``overloaded_error`` (529) is retried; ``billing_error`` falls back; a ``max_tokens`` stop is a
bad response.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import anthropic
from anthropic.types import (
    AssistantMessageParam,
    Message,
    MessageParam,
    ToolChoiceToolParam,
    ToolParam,
    UserMessageParam,
)
from anthropic.types.output_config_param import OutputConfigParam

from turnframe.errors import ConfigError
from turnframe.providers._sdk import (
    SdkProvider,
    check_json_answer,
    error_for_status,
    error_words,
)
from turnframe.providers.base import ProviderAnswer, ProviderRequest
from turnframe.providers.errors import (
    BadProviderResponse,
    ContentFiltered,
    ContextOverflow,
    MalformedAnswer,
    ProviderError,
    ProviderRefused,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExhausted,
)
from turnframe.providers.redaction import Redactor

Structured = Literal["tool", "json_schema", "text"]
ANSWER_TOOL = "answer"


class AnthropicProvider(SdkProvider):
    """``POST {base_url}/v1/messages`` through :class:`anthropic.AsyncAnthropic`."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        name: str = "anthropic",
        base_url: str | None = None,
        context_budget_tokens: int = 200_000,
        timeout: float = 60.0,
        structured: Structured = "tool",
        client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        """``api_key`` defaults to ``ANTHROPIC_API_KEY`` (the SDK reads it). ``client`` shares
        an adopter's client (its retries are turned off in our copy; the adopter closes it)."""
        super().__init__(
            name=name, context_budget_tokens=context_budget_tokens, owns_client=client is None
        )
        if client is None:
            try:
                client = anthropic.AsyncAnthropic(
                    api_key=api_key, base_url=base_url, timeout=timeout
                )
            except (anthropic.AnthropicError, TypeError) as error:
                raise ConfigError(
                    f"provider {name!r}: {error}", hint="pass api_key= or set ANTHROPIC_API_KEY"
                ) from None
        self._client = client.with_options(max_retries=0, timeout=timeout)
        self._original = client
        self.base_url = str(self._client.base_url)
        self.model = model
        self.structured: Structured = structured
        key = self._client.api_key
        self.secrets: tuple[str, ...] = (key,) if key else ()
        self._redact = Redactor(self.secrets)

    def _closeable(self) -> anthropic.AsyncAnthropic:
        return self._original

    def messages(self, request: ProviderRequest) -> list[MessageParam]:
        """The messages sent for ``request`` (the system text travels apart)."""
        messages: list[MessageParam] = []
        for message in request.messages:
            if message.role == "user":
                messages.append(UserMessageParam(role="user", content=message.content))
            else:
                messages.append(AssistantMessageParam(role="assistant", content=message.content))
        return messages

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        failure: ProviderError
        try:
            message = await self._create(request)
        except anthropic.APIStatusError as error:
            failure = self._status_error(error)
        except anthropic.APITimeoutError:
            failure = ProviderTimeout(f"{self.name}: the request timed out")
        except anthropic.APIConnectionError as error:
            cause = type(error.__cause__).__name__ if error.__cause__ else "no answer"
            failure = ProviderUnavailable(f"{self.name}: connection failed ({cause})")
        except (anthropic.APIResponseValidationError, json.JSONDecodeError):
            failure = BadProviderResponse(f"{self.name}: the response body is not the API's JSON")
        else:
            return self._answer(message, request)
        raise failure

    async def _create(self, request: ProviderRequest) -> Message:
        tools: list[ToolParam] | anthropic.Omit = anthropic.omit
        tool_choice: ToolChoiceToolParam | anthropic.Omit = anthropic.omit
        output: OutputConfigParam | anthropic.Omit = anthropic.omit
        if self.structured == "tool":
            tools = [
                {
                    "name": ANSWER_TOOL,
                    "description": "Give the whole answer, following the schema exactly.",
                    "input_schema": request.answer_schema,
                }
            ]
            tool_choice = {"type": "tool", "name": ANSWER_TOOL}
        elif self.structured == "json_schema":
            output = {"format": {"type": "json_schema", "schema": request.answer_schema}}
        return await self._client.messages.create(
            model=self.model,
            max_tokens=request.max_answer_tokens,
            system=request.system,
            messages=self.messages(request),
            tools=tools,
            tool_choice=tool_choice,
            output_config=output,
        )

    def _status_error(self, error: anthropic.APIStatusError) -> ProviderError:
        kind, detail = error_words(error.body, self._redact)
        status = error.status_code
        message = f"{self.name}: HTTP {status}: {detail}"
        lowered = detail.lower()
        if status == 400 and "prompt is too long" in lowered:
            return ContextOverflow(message, hint="shrink the prompt: fewer references or thread")
        if "content filtering" in lowered:
            return ContentFiltered(message)
        if status == 402 or kind == "billing_error":
            return QuotaExhausted(message, hint=f"add credit for {self.name}")
        return error_for_status(self.name, status, error.response.headers, detail)

    def _answer(self, message: Any, request: ProviderRequest) -> ProviderAnswer:
        stop = getattr(message, "stop_reason", None)
        blocks = getattr(message, "content", None)
        if not isinstance(blocks, list):
            raise BadProviderResponse(f"{self.name}: the answer has no content list")
        if stop == "refusal":
            raise ProviderRefused(f"{self.name}: the model declined to answer")
        if stop == "model_context_window_exceeded":
            raise ContextOverflow(
                f"{self.name}: the answer ran out of the model's context window",
                hint="shrink the prompt: fewer references or thread",
            )
        if stop == "max_tokens":
            raise BadProviderResponse(
                f"{self.name}: the answer was cut at max_tokens",
                hint="raise max_answer_tokens or shorten what the answer must hold",
            )
        text = "".join(
            str(getattr(b, "text", "")) for b in blocks if getattr(b, "type", None) == "text"
        )
        if self.structured == "tool":
            for block in blocks:
                if getattr(block, "type", None) == "tool_use" and block.name == ANSWER_TOOL:
                    text = json.dumps(block.input, ensure_ascii=False)
                    break
            else:
                if not text:
                    raise BadProviderResponse(f"{self.name}: no {ANSWER_TOOL!r} tool call")
                raise MalformedAnswer(
                    f"{self.name}: the model answered in text instead of calling the "
                    f"{ANSWER_TOOL!r} tool",
                    answer=text,
                    parse_error=f"answer by calling the {ANSWER_TOOL!r} tool, not in text",
                )
        if not text:
            raise BadProviderResponse(f"{self.name}: the answer has no text content")
        check_json_answer(self.name, text, request.answer_schema)
        model = getattr(message, "model", None)
        return ProviderAnswer(text=text, model=model if isinstance(model, str) else None)
