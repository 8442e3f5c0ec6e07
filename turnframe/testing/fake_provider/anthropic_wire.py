"""The Anthropic Messages API as the fake server speaks it (``POST /v1/messages``).

Requests are checked as Anthropic checks them: ``anthropic-version`` and a key (``x-api-key`` or
``authorization: Bearer``) present, ``max_tokens`` given, the first message from the user, no
empty text, a forced tool that is declared. Errors are ``{"type": "error", "error": {"type",
"message"}, "request_id"}`` with ``request-id``, ``x-should-retry`` and ``retry-after`` headers.
"""

from __future__ import annotations

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
    parsed_object,
    pydantic_problems,
    retry_headers,
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Message(_Model):
    role: Literal["user", "assistant"]
    content: str | list[dict[str, Any]]


class _Tool(_Model):
    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,128}$")
    input_schema: dict[str, Any]


class _ToolChoice(_Model):
    type: Literal["auto", "any", "tool", "none"]
    name: str | None = None


class _Format(_Model):
    type: Literal["json_schema"]
    schema_: dict[str, Any] = Field(alias="schema")


class _OutputConfig(_Model):
    format: _Format | None = None


class _Request(_Model):
    model: str = Field(min_length=1)
    max_tokens: int = Field(ge=1)
    messages: list[_Message] = Field(min_length=1)
    system: str | list[dict[str, Any]] | None = None
    tools: list[_Tool] | None = None
    tool_choice: _ToolChoice | None = None
    output_config: _OutputConfig | None = None
    stream: bool | None = None


def _forced_tool(request: _Request) -> str | None:
    choice = request.tool_choice
    return choice.name if choice is not None and choice.type == "tool" else None


def _empty_text(content: str | list[dict[str, Any]]) -> bool:
    if isinstance(content, str):
        return not content.strip()
    texts = [b.get("text") for b in content if b.get("type") == "text"]
    return any(not isinstance(t, str) or not t.strip() for t in texts)


class AnthropicWire:
    name = "anthropic"

    def presented_key(self, headers: dict[str, str]) -> str | None:
        if "x-api-key" in headers:
            return headers["x-api-key"]
        value = headers.get("authorization", "")
        return value[7:] if value.lower().startswith("bearer ") else None

    def check(self, headers: dict[str, str], body: Any) -> list[Problem]:
        problems: list[Problem] = []
        if "anthropic-version" not in headers:
            problems.append(
                Problem(param="anthropic-version", message="header is required", missing=True)
            )
        try:
            request = _Request.model_validate(body)
        except ValidationError as error:
            return problems + pydantic_problems(error)
        if request.messages[0].role != "user":
            problems.append(
                Problem(param="messages", message='first message must use the "user" role')
            )
        for i, message in enumerate(request.messages):
            if _empty_text(message.content):
                problems.append(
                    Problem(
                        param=f"messages.{i}.content",
                        message="text content blocks must contain non-whitespace text",
                    )
                )
        if request.stream:
            problems.append(Problem(param="stream", message="the fake server does not stream"))
        forced = _forced_tool(request)
        declared = {tool.name for tool in request.tools or []}
        if forced is not None and forced not in declared:
            problems.append(
                Problem(param="tool_choice.name", message=f"tool {forced!r} is not in tools")
            )
        for i, tool in enumerate(request.tools or []):
            if tool.input_schema.get("type") != "object":
                problems.append(
                    Problem(param=f"tools.{i}.input_schema.type", message="must be 'object'")
                )
        return problems

    def invalid(self, problems: list[Problem], ids: Ids) -> Reply:
        first = problems[0]
        message = (
            f"{first.param}: Field required" if first.missing else f"{first.param}: {first.message}"
        )
        return self._error_reply(400, "invalid_request_error", message, ids)

    def answer(self, step: AnswerStep, request: Any, ids: Ids) -> Reply:
        parsed = _Request.model_validate(request)
        forced = _forced_tool(parsed)
        content: list[dict[str, Any]] = []
        stop = "end_turn"
        if isinstance(step, Answer):
            tool_input = parsed_object(step.text) if forced is not None else None
            if forced is not None and tool_input is not None:
                content.append(
                    {
                        "type": "tool_use",
                        "id": ids.next("toolu_fake"),
                        "name": forced,
                        "input": tool_input,
                    }
                )
                stop = "tool_use"
            else:
                # Not a JSON object, so no tool input: answered as text, like a model that
                # ignored the tool.
                content.append({"type": "text", "text": step.text})
        elif isinstance(step, Refuse):
            content.append({"type": "text", "text": step.message})
            stop = "refusal"
        elif isinstance(step, FilterContent):
            if step.partial:
                content.append({"type": "text", "text": step.partial})
            stop = "refusal"
        elif isinstance(step, Truncate):
            content.append({"type": "text", "text": step.text})
            stop = "max_tokens"
        model = step.model if isinstance(step, Answer) and step.model else parsed.model
        body = {
            "id": ids.next("msg_fake"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": estimate_tokens([m.content for m in parsed.messages]),
                "output_tokens": estimate_tokens(content),
            },
        }
        return Reply(status=200, body=body, headers=self._headers(ids))

    def error(self, step: ApiError, request: Any, key: str | None, ids: Ids) -> Reply:
        model = request.get("model") if isinstance(request, dict) else None
        status, kind, template = _ERRORS[step.kind]
        shown = key if step.echo_key and key is not None else "(hidden)"
        message = error_message(step, template, model=str(model), key=shown)
        reply = self._error_reply(status, kind, message, ids)
        reply.headers.update(retry_headers(step, ids.now()))
        return reply

    def unscripted(self, number: int, ids: Ids) -> Reply:
        message = f"The fake provider has no scripted reply left for request {number}."
        return self._error_reply(500, "api_error", message, ids)

    def _error_reply(self, status: int, kind: str, message: str, ids: Ids) -> Reply:
        request_id = ids.next("req_fake")
        body = {
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": request_id,
        }
        headers = self._headers(ids, request_id)
        headers["x-should-retry"] = (
            "true" if status in (408, 409, 429) or status >= 500 else "false"
        )
        return Reply(status=status, body=body, headers=headers)

    def _headers(self, ids: Ids, request_id: str | None = None) -> dict[str, str]:
        now = ids.now()
        return {
            **date_header(now),
            "request-id": request_id or ids.next("req_fake"),
            "anthropic-organization-id": "00000000-0000-4000-8000-000000000000",
            "anthropic-ratelimit-requests-limit": "4000",
            "anthropic-ratelimit-requests-remaining": "3999",
            "anthropic-ratelimit-requests-reset": now.isoformat().replace("+00:00", "Z"),
        }


#: kind: (status, error type, message template); {model} and {key} are filled in.
_ERRORS: dict[ErrorKind, tuple[int, str, str]] = {
    ErrorKind.UNAUTHORIZED: (401, "authentication_error", "invalid x-api-key"),
    ErrorKind.FORBIDDEN: (
        403,
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    ErrorKind.MODEL_NOT_FOUND: (404, "not_found_error", "model: {model}"),
    ErrorKind.REQUEST_TIMEOUT: (408, "timeout_error", "Request timed out"),
    ErrorKind.CONFLICT: (409, "conflict_error", "Conflict: the resource is being modified"),
    ErrorKind.RATE_LIMITED: (
        429,
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per "
        "minute. Please try again later.",
    ),
    ErrorKind.QUOTA_EXHAUSTED: (
        402,
        "billing_error",
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
    ),
    ErrorKind.SERVER_ERROR: (500, "api_error", "Internal server error"),
    ErrorKind.UNAVAILABLE: (503, "api_error", "Service unavailable"),
    ErrorKind.OVERLOADED: (529, "overloaded_error", "Overloaded"),
    ErrorKind.GATEWAY_TIMEOUT: (504, "timeout_error", "Request timed out"),
    ErrorKind.CONTEXT_OVERFLOW: (
        400,
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
    ),
    ErrorKind.CONTENT_FILTERED: (
        400,
        "invalid_request_error",
        "Output blocked by content filtering policy",
    ),
    ErrorKind.REQUEST_TOO_LARGE: (
        413,
        "request_too_large",
        "Request exceeds the maximum allowed number of bytes.",
    ),
    ErrorKind.BAD_REQUEST: (400, "invalid_request_error", "messages: Field required"),
}
