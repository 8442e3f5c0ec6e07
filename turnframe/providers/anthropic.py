"""A provider for the Anthropic Messages API. Needs the ``anthropic`` extra (httpx only).

The answer schema is enforced by forcing one tool call whose ``input_schema`` is the schema; the
answer text is that input as JSON (``structured="text"`` takes the text blocks instead). A
``refusal`` stop is fatal, as are "prompt is too long" and 413; ``overloaded_error`` (529) is
retried; a ``max_tokens`` stop is a bad response.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import httpx

from turnframe.providers.base import ProviderAnswer, ProviderRequest
from turnframe.providers.errors import (
    BadProviderResponse,
    ContextOverflow,
    ProviderError,
    ProviderRefused,
)
from turnframe.providers.http import HttpProvider, error_body, error_for_status, json_body

ANTHROPIC_VERSION = "2023-06-01"
ANSWER_TOOL = "answer"


class AnthropicProvider(HttpProvider):
    """``POST {base_url}/v1/messages`` with ``x-api-key`` and ``anthropic-version``."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        name: str = "anthropic",
        base_url: str = "https://api.anthropic.com",
        context_budget_tokens: int = 200_000,
        timeout: float = 60.0,
        structured: Literal["tool", "text"] = "tool",
        client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            name=name,
            base_url=base_url,
            context_budget_tokens=context_budget_tokens,
            timeout=timeout,
            client=client,
        )
        self.model = model
        self.api_key = api_key
        self.structured = structured

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_answer_tokens,
            "system": request.system,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if self.structured == "tool":
            body["tools"] = [
                {
                    "name": ANSWER_TOOL,
                    "description": "Give the whole answer, following the schema exactly.",
                    "input_schema": request.answer_schema,
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        return body

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        response = await self._post("/v1/messages", headers, self.body(request))
        if response.status_code >= 400:
            raise self._error(response, error_body(response))
        return self._answer(json_body(self.name, response))

    def _error(self, response: httpx.Response, data: Any) -> ProviderError:
        error = data.get("error") if isinstance(data, dict) else None
        error = error if isinstance(error, dict) else {}
        detail = str(error.get("message") or error.get("type") or "no detail")
        if response.status_code == 400 and "prompt is too long" in detail.lower():
            return ContextOverflow(
                f"{self.name}: HTTP 400: {detail}",
                hint="shrink the prompt: fewer references or thread",
            )
        return error_for_status(self.name, response, detail)

    def _answer(self, data: Any) -> ProviderAnswer:
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise BadProviderResponse(f"{self.name}: answer has no content list")
        stop = data.get("stop_reason")
        if stop == "refusal":
            raise ProviderRefused(f"{self.name}: the model declined to answer")
        if stop == "max_tokens":
            raise BadProviderResponse(
                f"{self.name}: answer truncated at max_tokens",
                hint="raise max_answer_tokens or shorten what the answer must hold",
            )
        blocks = [b for b in data["content"] if isinstance(b, dict)]
        model = data.get("model") if isinstance(data.get("model"), str) else None
        if self.structured == "tool":
            for block in blocks:
                if block.get("type") == "tool_use" and block.get("name") == ANSWER_TOOL:
                    return ProviderAnswer(text=json.dumps(block.get("input")), model=model)
            raise BadProviderResponse(f"{self.name}: answer has no {ANSWER_TOOL!r} tool call")
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        if not text:
            raise BadProviderResponse(f"{self.name}: answer has no text content")
        return ProviderAnswer(text=text, model=model)
