"""A provider for OpenAI-compatible chat-completions APIs, on the official ``openai`` SDK (the
``openai`` extra): OpenAI itself, gateways, and local servers (vLLM, Ollama, llama.cpp) through
``base_url`` — :meth:`OpenAICompatProvider.local` takes a profile for each.

Structured output (``structured=``): ``"json_schema"`` sends the answer schema as a
``json_schema`` response format, strict whenever the schema meets OpenAI's strict rules (every
object closed and every property required; otherwise the schema is sent as guidance, not
strict); ``"tool"`` forces one function call whose parameters are the schema; ``"json_object"``
asks for any JSON; ``"none"`` sends no format, for servers without structured outputs.

Whatever the mode, the answer must be JSON of the schema's top-level type, or it is a
:class:`~turnframe.providers.errors.MalformedAnswer` (the chain gives one repair round). A
refusal, a ``content_filter`` finish and ``context_length_exceeded`` are fatal;
``insufficient_quota`` falls back; a truncated answer (``length``) is a bad response.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import openai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageParam,
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionToolParam,
)
from openai.types.chat.completion_create_params import ResponseFormat

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
    ProviderError,
    ProviderRefused,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExhausted,
)
from turnframe.providers.profiles import LocalServerProfile, local_profile
from turnframe.providers.redaction import Redactor

Structured = Literal["json_schema", "tool", "json_object", "none"]
TokenLimitField = Literal["max_tokens", "max_completion_tokens"]
ANSWER_TOOL = "answer"


def is_strict_schema(schema: Any) -> bool:
    """Whether OpenAI accepts ``schema`` in strict mode: every object closed
    (``additionalProperties: false``) with every property required, all the way down."""
    if isinstance(schema, list):
        return all(is_strict_schema(each) for each in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False:
            return False
        if set(properties) - set(schema.get("required") or []):
            return False
    nested = [schema.get(k) for k in ("items", "anyOf", "allOf", "oneOf")]
    nested += list((schema.get("properties") or {}).values())
    nested += list((schema.get("$defs") or {}).values())
    return all(is_strict_schema(each) for each in nested if each is not None)


class OpenAICompatProvider(SdkProvider):
    """``POST {base_url}/chat/completions`` through :class:`openai.AsyncOpenAI`."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        name: str = "openai",
        base_url: str | None = None,
        context_budget_tokens: int = 128_000,
        timeout: float = 60.0,
        structured: Structured = "json_schema",
        token_limit_field: TokenLimitField = "max_tokens",
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        """``api_key`` defaults to ``OPENAI_API_KEY`` (the SDK reads it). ``client`` shares an
        adopter's client (its retries are turned off in our copy; the adopter closes it)."""
        super().__init__(
            name=name, context_budget_tokens=context_budget_tokens, owns_client=client is None
        )
        if client is None:
            try:
                client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout)
            except openai.OpenAIError as error:
                raise ConfigError(
                    f"provider {name!r}: {error}", hint="pass api_key= or set OPENAI_API_KEY"
                ) from None
        self._client = client.with_options(max_retries=0, timeout=timeout)
        self._original = client
        self.base_url = str(self._client.base_url)
        self.model = model
        self.structured: Structured = structured
        self.token_limit_field: TokenLimitField = token_limit_field
        self.secrets: tuple[str, ...] = (self._client.api_key,) if self._client.api_key else ()
        self._redact = Redactor(self.secrets)

    @classmethod
    def local(
        cls,
        profile: str | LocalServerProfile,
        *,
        model: str,
        base_url: str | None = None,
        **options: Any,
    ) -> OpenAICompatProvider:
        """A provider for a local OpenAI-compatible server: ``"vllm"``, ``"ollama"`` or
        ``"llama_cpp"`` (or a :class:`LocalServerProfile`), at the profile's usual address
        unless ``base_url`` says otherwise. ``options`` override the profile's settings."""
        chosen = local_profile(profile)
        settings: dict[str, Any] = {
            "name": chosen.name,
            "api_key": chosen.api_key,
            "base_url": base_url or chosen.base_url,
            "context_budget_tokens": chosen.context_budget_tokens,
            "structured": chosen.structured,
            "token_limit_field": chosen.token_limit_field,
        }
        return cls(model=model, **{**settings, **options})

    def _closeable(self) -> openai.AsyncOpenAI:
        return self._original

    def messages(self, request: ProviderRequest) -> list[ChatCompletionMessageParam]:
        """The chat messages sent for ``request``: the system text first."""
        system = request.system
        if self.structured == "json_object" and "json" not in system.lower():
            system += "\n\nAnswer with one JSON object."  # JSON mode needs the prompt to ask
        messages: list[ChatCompletionMessageParam] = [{"role": "system", "content": system}]
        for message in request.messages:
            if message.role == "user":
                messages.append({"role": "user", "content": message.content})
            else:
                messages.append({"role": "assistant", "content": message.content})
        return messages

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        failure: ProviderError
        try:
            completion = await self._create(request)
        except openai.APIStatusError as error:
            failure = self._status_error(error)
        except openai.APITimeoutError:
            failure = ProviderTimeout(f"{self.name}: the request timed out")
        except openai.APIConnectionError as error:
            cause = type(error.__cause__).__name__ if error.__cause__ else "no answer"
            failure = ProviderUnavailable(f"{self.name}: connection failed ({cause})")
        except (openai.APIResponseValidationError, json.JSONDecodeError):
            failure = BadProviderResponse(f"{self.name}: the response body is not the API's JSON")
        else:
            return self._answer(completion, request)
        raise failure

    async def _create(self, request: ProviderRequest) -> ChatCompletion:
        limit = request.max_answer_tokens
        tools: list[ChatCompletionToolParam] | openai.Omit = openai.omit
        tool_choice: ChatCompletionNamedToolChoiceParam | openai.Omit = openai.omit
        if self.structured == "tool":
            tools = [
                {
                    "type": "function",
                    "function": {
                        "name": ANSWER_TOOL,
                        "description": "Give the whole answer, following the schema exactly.",
                        "parameters": request.answer_schema,
                        "strict": is_strict_schema(request.answer_schema),
                    },
                }
            ]
            tool_choice = {"type": "function", "function": {"name": ANSWER_TOOL}}
        return await self._client.chat.completions.create(
            model=self.model,
            messages=self.messages(request),
            response_format=self._response_format(request),
            tools=tools,
            tool_choice=tool_choice,
            max_tokens=limit if self.token_limit_field == "max_tokens" else openai.omit,
            max_completion_tokens=(
                limit if self.token_limit_field == "max_completion_tokens" else openai.omit
            ),
            extra_headers={"x-request-id": request.correlation_id},
        )

    def _response_format(self, request: ProviderRequest) -> ResponseFormat | openai.Omit:
        if self.structured == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {
                    "name": f"{request.purpose.value}_answer",
                    "schema": request.answer_schema,
                    "strict": is_strict_schema(request.answer_schema),
                },
            }
        if self.structured == "json_object":
            return {"type": "json_object"}
        return openai.omit

    def _status_error(self, error: openai.APIStatusError) -> ProviderError:
        code, detail = error_words(error.body, self._redact)
        code = str(error.code or code)
        message = f"{self.name}: HTTP {error.status_code}: {detail}"
        if code == "context_length_exceeded":
            return ContextOverflow(message, hint="shrink the prompt: fewer references or thread")
        if code in ("content_filter", "content_policy_violation"):
            return ContentFiltered(message)
        if code == "insufficient_quota":
            return QuotaExhausted(message, hint=f"add credit or raise the quota for {self.name}")
        return error_for_status(self.name, error.status_code, error.response.headers, detail)

    def _answer(self, completion: Any, request: ProviderRequest) -> ProviderAnswer:
        try:
            choice = completion.choices[0]
            message = choice.message
            finish = choice.finish_reason
            refusal = message.refusal
            content = message.content
            calls = message.tool_calls
        except (AttributeError, TypeError, IndexError):
            raise BadProviderResponse(f"{self.name}: no choices[0].message in the answer") from None
        if refusal:
            raise ProviderRefused(f"{self.name}: the model refused: {self._redact(str(refusal))}")
        if finish == "content_filter":
            raise ContentFiltered(f"{self.name}: the answer was stopped by the content filter")
        if finish == "length":
            raise BadProviderResponse(
                f"{self.name}: the answer was cut at {self.model}'s token limit",
                hint="raise max_answer_tokens or shorten what the answer must hold",
            )
        if self.structured == "tool":
            text = self._tool_arguments(calls, content)
        else:
            text = content if isinstance(content, str) else None
        if not text:
            raise BadProviderResponse(f"{self.name}: the answer has no text content")
        check_json_answer(self.name, text, request.answer_schema)
        model = getattr(completion, "model", None)
        return ProviderAnswer(text=text, model=model if isinstance(model, str) else None)

    def _tool_arguments(self, calls: Any, content: Any) -> str | None:
        for call in calls or []:
            function = getattr(call, "function", None)
            if getattr(function, "name", None) == ANSWER_TOOL:
                arguments = getattr(function, "arguments", None)
                return arguments if isinstance(arguments, str) else None
        if isinstance(content, str) and content:
            return content  # answered in text despite the forced tool: checked as JSON
        return None
