"""What the HTTP providers share: one httpx client, status codes to typed errors, retry-after.

Needs the ``httpx`` package (the ``openai`` / ``anthropic`` extras). The client is injectable
(``client=``) so an adopter can share a pool or swap the transport; a provider that made its own
client closes it in :meth:`HttpProvider.aclose` (or ``async with provider:``).
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, Self

import httpx

from turnframe.providers.errors import (
    BadProviderResponse,
    ContextOverflow,
    ModelNotFound,
    ProviderAuthFailed,
    ProviderBadRequest,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """The delay a response asks for: ``retry-after-ms``, or ``retry-after`` in seconds or as an
    HTTP date (measured against the response's own ``date`` header, never our clock)."""
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    sent = headers.get("date")
    if sent is None:
        return None
    try:
        delta = parsedate_to_datetime(value) - parsedate_to_datetime(sent)
    except (TypeError, ValueError):
        return None
    return max(0.0, delta.total_seconds())


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def error_for_status(provider: str, response: httpx.Response, detail: str) -> ProviderError:
    """The typed error for an HTTP error status (provider-specific cases are checked first)."""
    status = response.status_code
    message = f"{provider}: HTTP {status}: {detail}"
    delay = retry_after_seconds(response.headers)
    if status in (401, 403):
        return ProviderAuthFailed(message, hint=f"check the API key configured for {provider}")
    if status == 404:
        return ModelNotFound(message, hint=f"check the model name configured for {provider}")
    if status in (408, 504):
        return ProviderTimeout(message, retry_after=delay)
    if status == 413:
        return ContextOverflow(message, hint="shrink the prompt: fewer references or thread")
    if status == 429:
        return RateLimited(message, retry_after=delay)
    if status >= 500 or status == 409:
        return ProviderUnavailable(message, retry_after=delay)
    return ProviderBadRequest(message)


def error_body(response: httpx.Response) -> Any:
    """The JSON body of an error response, or None when it is not JSON (a gateway's HTML)."""
    try:
        return response.json()
    except ValueError:
        return None


def json_body(provider: str, response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as error:
        raise BadProviderResponse(
            f"{provider}: HTTP {response.status_code} with a body that is not JSON"
        ) from error


class HttpProvider:
    """Base of the HTTP providers: posts JSON and turns transport failures into typed errors."""

    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        context_budget_tokens: int,
        timeout: float,
        client: httpx.AsyncClient | None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.context_budget_tokens = context_budget_tokens
        self.timeout = timeout
        self._client = client
        self._owns_client = client is None

    async def _post(self, path: str, headers: dict[str, str], body: Any) -> httpx.Response:
        if self._client is None:
            self._client = httpx.AsyncClient()
        try:
            return await self._client.post(
                self.base_url + path, headers=headers, json=body, timeout=self.timeout
            )
        except httpx.TimeoutException as error:
            raise ProviderTimeout(f"{self.name}: {type(error).__name__}") from error
        except httpx.TransportError as error:
            raise ProviderUnavailable(f"{self.name}: {type(error).__name__}: {error}") from error

    async def aclose(self) -> None:
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
