"""The OpenAI chat-completions API as the fake server speaks it (``POST /v1/chat/completions``).

Requests are checked as OpenAI checks them, including its rules for strict JSON schemas (every
object closed with ``additionalProperties: false`` and every property required) and for
``json_object`` mode (the prompt must mention JSON). Errors are ``{"error": {"message", "type",
"param", "code"}}`` with OpenAI's headers (``x-request-id``, ``x-ratelimit-*``, ``retry-after``).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from turnframe.testing.fake_provider.steps import (
    Answer,
    ApiError,
    ErrorKind,
    FilterContent,
    Refuse,
    Truncate,
)
from turnframe.testing.fake_provider.wire import (
    AnswerStep,
    Ids,
    Problem,
    Reply,
    date_header,
    error_message,
    estimate_tokens,
    pydantic_problems,
    retry_headers,
)

_NAME = r"^[a-zA-Z0-9_-]{1,64}$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Message(_Model):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None


class _JsonSchema(_Model):
    name: str = Field(pattern=_NAME)
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class _ResponseFormat(_Model):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: _JsonSchema | None = None


class _Function(_Model):
    name: str = Field(pattern=_NAME)
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class _Tool(_Model):
    type: Literal["function"]
    function: _Function


class _Request(_Model):
    model: str = Field(min_length=1)
    messages: list[_Message] = Field(min_length=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    response_format: _ResponseFormat | None = None
    tools: list[_Tool] | None = None
    tool_choice: str | dict[str, Any] | None = None
    stream: bool | None = None


def strict_schema_problems(schema: Any, context: tuple[str, ...] = ()) -> list[str]:
    """Where ``schema`` breaks OpenAI's rules for strict structured outputs."""
    if not isinstance(schema, dict):
        return []
    problems: list[str] = []
    where = f"In context={context!r}, "
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(
                where + "'additionalProperties' is required to be supplied and to be false."
            )
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        missing = [name for name in properties if name not in required]
        if missing:
            problems.append(
                where + "'required' is required to be supplied and to be an array including "
                f"every key in properties. Missing '{missing[0]}'."
            )
        for name, sub in properties.items():
            problems += strict_schema_problems(sub, (*context, "properties", name))
    for key in ("items", "anyOf", "allOf", "$defs", "definitions"):
        sub = schema.get(key)
        if isinstance(sub, list):
            for i, each in enumerate(sub):
                problems += strict_schema_problems(each, (*context, key, str(i)))
        elif isinstance(sub, dict) and key in ("$defs", "definitions"):
            for name, each in sub.items():
                problems += strict_schema_problems(each, (*context, key, name))
        elif isinstance(sub, dict):
            problems += strict_schema_problems(sub, (*context, key))
    return problems


def _forced_function(request: _Request) -> str | None:
    choice = request.tool_choice
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name")
        return str(name) if name else None
    return None


class OpenAIWire:
    name = "openai"

    def presented_key(self, headers: dict[str, str]) -> str | None:
        value = headers.get("authorization", "")
        return value[7:] if value.lower().startswith("bearer ") else None

    def check(self, headers: dict[str, str], body: Any) -> list[Problem]:
        try:
            request = _Request.model_validate(body)
        except ValidationError as error:
            return pydantic_problems(error)
        problems: list[Problem] = []
        if request.stream:
            problems.append(Problem(param="stream", message="the fake server does not stream"))
        fmt = request.response_format
        if fmt is not None and fmt.type == "json_schema":
            if fmt.json_schema is None:
                problems.append(Problem(param="response_format.json_schema", message="missing"))
            elif fmt.json_schema.strict:
                name = fmt.json_schema.name
                problems += [
                    Problem(
                        param="response_format",
                        message=f"Invalid schema for response_format '{name}': {text}",
                    )
                    for text in strict_schema_problems(fmt.json_schema.schema_)
                ]
        if fmt is not None and fmt.type == "json_object":
            said = json.dumps([m.content for m in request.messages]).lower()
            if "json" not in said:
                problems.append(
                    Problem(
                        param="messages",
                        message="'messages' must contain the word 'json' in some form, to use "
                        "'response_format' of type 'json_object'.",
                    )
                )
        forced = _forced_function(request)
        declared = {tool.function.name for tool in request.tools or []}
        if forced is not None and forced not in declared:
            problems.append(
                Problem(param="tool_choice", message=f"Tool '{forced}' is not among the tools.")
            )
        return problems

    def invalid(self, problems: list[Problem], ids: Ids) -> Reply:
        first = problems[0]
        code = "missing_required_parameter" if first.missing else "invalid_value"
        message = (
            f"Missing required parameter: '{first.param}'."
            if first.missing
            else f"Invalid value for '{first.param}': {first.message}"
        )
        return self._error_reply(400, message, "invalid_request_error", code, first.param, ids)

    def answer(self, step: AnswerStep, request: Any, ids: Ids) -> Reply:
        parsed = _Request.model_validate(request)
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        finish = "stop"
        text: str | None = None
        if isinstance(step, Answer):
            text = step.text
        elif isinstance(step, Refuse):
            message["refusal"] = step.message
        elif isinstance(step, FilterContent):
            text, finish = step.partial, "content_filter"
        elif isinstance(step, Truncate):
            text, finish = step.text, "length"
        forced = _forced_function(parsed)
        if forced is not None and text is not None:
            message["tool_calls"] = [
                {
                    "id": ids.next("call_fake"),
                    "type": "function",
                    "function": {"name": forced, "arguments": text},
                }
            ]
        else:
            message["content"] = text
        message["annotations"] = []
        model = step.model if isinstance(step, Answer) and step.model else parsed.model
        prompt = estimate_tokens([m.content for m in parsed.messages])
        completion = estimate_tokens(text or message["refusal"] or "")
        body = {
            "id": ids.next("chatcmpl-fake"),
            "object": "chat.completion",
            "created": int(ids.now().timestamp()),
            "model": model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
            "service_tier": "default",
            "system_fingerprint": "fp_fake",
        }
        return Reply(status=200, body=body, headers=self._headers(ids))

    def error(self, step: ApiError, request: Any, key: str | None, ids: Ids) -> Reply:
        model = request.get("model") if isinstance(request, dict) else None
        status, kind, code, template, param = _ERRORS[step.kind]
        shown = shown_key(key, step.echo_key)
        message = error_message(step, template, model=str(model), key=shown)
        reply = self._error_reply(status, message, kind, code, param, ids)
        reply.headers.update(retry_headers(step, ids.now()))
        if step.kind is ErrorKind.RATE_LIMITED:
            reply.headers["x-ratelimit-remaining-requests"] = "0"
        return reply

    def unscripted(self, number: int, ids: Ids) -> Reply:
        message = f"The fake provider has no scripted reply left for request {number}."
        return self._error_reply(500, message, "server_error", None, None, ids)

    def _error_reply(
        self,
        status: int,
        message: str,
        kind: str | None,
        code: str | None,
        param: str | None,
        ids: Ids,
    ) -> Reply:
        body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
        return Reply(status=status, body=body, headers=self._headers(ids))

    def _headers(self, ids: Ids) -> dict[str, str]:
        return {
            **date_header(ids.now()),
            "x-request-id": ids.next("req_fake"),
            "openai-version": "2020-10-01",
            "openai-organization": "org-fake",
            "openai-processing-ms": "1",
            "x-ratelimit-limit-requests": "10000",
            "x-ratelimit-remaining-requests": "9999",
            "x-ratelimit-reset-requests": "6ms",
            "x-ratelimit-limit-tokens": "2000000",
            "x-ratelimit-remaining-tokens": "1999000",
            "x-ratelimit-reset-tokens": "30ms",
        }


def shown_key(key: str | None, echo: bool) -> str:
    """The key as OpenAI words it in an error: masked, or whole when the step echoes it."""
    if key is None:
        return "(none)"
    if echo:
        return key
    return f"{key[:3]}{'*' * 10}{key[-4:]}" if len(key) > 8 else "*" * len(key)


#: kind: (status, type, code, message template, param); {model} and {key} are filled in.
_ERRORS: dict[ErrorKind, tuple[int, str | None, str | None, str, str | None]] = {
    ErrorKind.UNAUTHORIZED: (
        401,
        "invalid_request_error",
        "invalid_api_key",
        "Incorrect API key provided: {key}. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        None,
    ),
    ErrorKind.FORBIDDEN: (
        403,
        "request_forbidden",
        "unsupported_country_region_territory",
        "Country, region, or territory not supported",
        None,
    ),
    ErrorKind.MODEL_NOT_FOUND: (
        404,
        "invalid_request_error",
        "model_not_found",
        "The model `{model}` does not exist or you do not have access to it.",
        None,
    ),
    ErrorKind.REQUEST_TIMEOUT: (408, "server_error", "timeout", "Request timed out.", None),
    ErrorKind.CONFLICT: (
        409,
        "invalid_request_error",
        "conflict",
        "Another request is being processed for this resource; try again.",
        None,
    ),
    ErrorKind.RATE_LIMITED: (
        429,
        "requests",
        "rate_limit_exceeded",
        "Rate limit reached for {model} in organization org-fake on requests per min (RPM): "
        "Limit 3, Used 3, Requested 1. Please try again later.",
        None,
    ),
    ErrorKind.QUOTA_EXHAUSTED: (
        429,
        "insufficient_quota",
        "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details.",
        None,
    ),
    ErrorKind.SERVER_ERROR: (
        500,
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
        None,
    ),
    ErrorKind.UNAVAILABLE: (
        503,
        "server_error",
        None,
        "The server is overloaded or not ready yet.",
        None,
    ),
    ErrorKind.OVERLOADED: (
        503,
        "server_error",
        "engine_overloaded",
        "The engine is currently overloaded, please try again later.",
        None,
    ),
    ErrorKind.GATEWAY_TIMEOUT: (504, "server_error", None, "Gateway timeout.", None),
    ErrorKind.CONTEXT_OVERFLOW: (
        400,
        "invalid_request_error",
        "context_length_exceeded",
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 131072 tokens. Please reduce the length of the messages.",
        "messages",
    ),
    ErrorKind.CONTENT_FILTERED: (
        400,
        None,
        "content_filter",
        "The response was filtered due to the prompt triggering the content management "
        "policy. Please modify your prompt and retry.",
        "prompt",
    ),
    ErrorKind.REQUEST_TOO_LARGE: (
        413,
        "invalid_request_error",
        "request_too_large",
        "Request too large: the request body exceeds the maximum size.",
        None,
    ),
    ErrorKind.BAD_REQUEST: (
        400,
        "invalid_request_error",
        None,
        "We could not parse the JSON body of your request.",
        None,
    ),
}
