"""A provider for OpenAI-compatible chat-completions APIs (OpenAI, Azure-style gateways, vLLM,
llama.cpp, Ollama's compatible endpoint, ...). Needs the ``openai`` extra (httpx only).

The answer schema is sent as a strict ``json_schema`` response format (``response_format=
"json_object"`` or ``"none"`` for servers without structured outputs). A refusal, a
``content_filter`` finish and ``context_length_exceeded`` are fatal; ``insufficient_quota`` falls
back; a truncated answer (``length``) is a bad response. Newer OpenAI models want
``token_limit_field="max_completion_tokens"``; most compatible servers take ``max_tokens``.
"""

from __future__ import annotations

from typing import Any, Literal

import httpx

from turnframe.providers.base import ProviderAnswer, ProviderRequest
from turnframe.providers.errors import (
    BadProviderResponse,
    ContentFiltered,
    ContextOverflow,
    ProviderError,
    ProviderRefused,
    QuotaExhausted,
)
from turnframe.providers.http import HttpProvider, error_body, error_for_status, json_body

ResponseFormat = Literal["json_schema", "json_object", "none"]


class OpenAICompatProvider(HttpProvider):
    """``POST {base_url}/chat/completions`` with a bearer key."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        name: str = "openai",
        base_url: str = "https://api.openai.com/v1",
        context_budget_tokens: int = 128_000,
        timeout: float = 60.0,
        response_format: ResponseFormat = "json_schema",
        token_limit_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
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
        self.response_format = response_format
        self.token_limit_field = token_limit_field

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``."""
        messages = [{"role": "system", "content": request.system}]
        messages += [{"role": m.role, "content": m.content} for m in request.messages]
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            self.token_limit_field: request.max_answer_tokens,
        }
        if self.response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": f"{request.purpose.value}_answer",
                    "schema": request.answer_schema,
                    "strict": True,
                },
            }
        elif self.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        headers = {"x-request-id": request.correlation_id}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        response = await self._post("/chat/completions", headers, self.body(request))
        if response.status_code >= 400:
            raise self._error(response, error_body(response))
        return self._answer(json_body(self.name, response))

    def _error(self, response: httpx.Response, data: Any) -> ProviderError:
        error = data.get("error") if isinstance(data, dict) else None
        error = error if isinstance(error, dict) else {}
        code = str(error.get("code") or error.get("type") or "")
        detail = str(error.get("message") or code or "no detail")
        message = f"{self.name}: HTTP {response.status_code}: {detail}"
        if code == "context_length_exceeded":
            return ContextOverflow(message, hint="shrink the prompt: fewer references or thread")
        if code in ("content_filter", "content_policy_violation"):
            return ContentFiltered(message)
        if code == "insufficient_quota":
            return QuotaExhausted(message, hint=f"add credit or raise the quota for {self.name}")
        return error_for_status(self.name, response, detail)

    def _answer(self, data: Any) -> ProviderAnswer:
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError) as error:
            raise BadProviderResponse(f"{self.name}: no choices[0].message in answer") from error
        finish = choice.get("finish_reason")
        if message.get("refusal"):
            raise ProviderRefused(f"{self.name}: {message['refusal']}")
        if finish == "content_filter":
            raise ContentFiltered(f"{self.name}: answer stopped by the content filter")
        if finish == "length":
            raise BadProviderResponse(
                f"{self.name}: answer truncated at {self.model}'s token limit",
                hint="raise max_answer_tokens or shorten what the answer must hold",
            )
        content = message.get("content")
        if not isinstance(content, str) or not content:
            raise BadProviderResponse(f"{self.name}: answer has no text content")
        model = data.get("model") if isinstance(data.get("model"), str) else None
        return ProviderAnswer(text=content, model=model)
