"""What the SDK-backed providers share: HTTP status to typed error, the asked delay, the check
that an answer is the JSON the schema asked for, and the client's lifetime.

The SDKs' own retries are off (``max_retries=0``): the provider chain owns every retry and
fallback, and asks the gate before each. SDK exceptions are never chained onto ours: their text
holds the provider's raw error body, which may echo a key. Our errors carry the redacted words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, Protocol, Self

from turnframe.providers.errors import (
    ContextOverflow,
    MalformedAnswer,
    ModelNotFound,
    ProviderAuthFailed,
    ProviderBadRequest,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)
from turnframe.providers.redaction import Redactor

#: The longest error detail kept from a provider's words.
DETAIL_LIMIT = 500


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
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
        seconds = float(value)
    except ValueError:
        return None
    return max(0.0, seconds) if seconds == seconds else None  # NaN asks for nothing


def error_for_status(
    provider: str, status: int, headers: Mapping[str, str], detail: str
) -> ProviderError:
    """The typed error for an HTTP error status (vendor-specific cases are checked first)."""
    message = f"{provider}: HTTP {status}: {detail}"
    delay = retry_after_seconds(headers)
    if status in (401, 403):
        return ProviderAuthFailed(message, hint=f"check the API key configured for {provider}")
    if status == 404:
        return ModelNotFound(
            message, hint=f"check the model name and base_url configured for {provider}"
        )
    if status in (408, 504):
        return ProviderTimeout(message, retry_after=delay)
    if status == 413:
        return ContextOverflow(message, hint="shrink the prompt: fewer references or thread")
    if status == 429:
        return RateLimited(message, retry_after=delay)
    if status >= 500 or status == 409:
        return ProviderUnavailable(message, retry_after=delay)
    return ProviderBadRequest(message)


def error_words(body: object, redact: Redactor) -> tuple[str, str]:
    """The (type or code, message) of a vendor's error body, redacted and cut to a readable
    length; a body that is not the vendor's JSON (a gateway's page) gives no words."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return "", "no detail"
    kind = str(error.get("code") or error.get("type") or "")
    message = str(error.get("message") or kind or "no detail")
    return kind, redact(message)[:DETAIL_LIMIT]


def check_json_answer(provider: str, text: str, schema: Mapping[str, Any]) -> None:
    """Raise :class:`MalformedAnswer` unless ``text`` is JSON of the schema's top-level type."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise MalformedAnswer(
            f"{provider}: the answer is not valid JSON: {error}",
            answer=text,
            parse_error=f"not valid JSON: {error}",
        ) from None
    except RecursionError:
        raise MalformedAnswer(
            f"{provider}: the answer is nested too deeply to read",
            answer=text,
            parse_error="the JSON is nested too deeply",
        ) from None
    if schema.get("type") == "object" and not isinstance(value, dict):
        raise MalformedAnswer(
            f"{provider}: the answer is JSON but not an object",
            answer=text,
            parse_error=f"expected a JSON object, got {type(value).__name__}",
        )


class _Closeable(Protocol):
    async def close(self) -> None: ...


class SdkProvider:
    """The lifetime of an SDK client: closed by :meth:`aclose` (or ``async with provider:``)
    when the provider made it; a client passed in belongs to the caller."""

    def __init__(self, *, name: str, context_budget_tokens: int, owns_client: bool) -> None:
        self.name = name
        self.context_budget_tokens = context_budget_tokens
        self._owns_client = owns_client

    def _closeable(self) -> _Closeable:
        raise NotImplementedError

    async def aclose(self) -> None:
        if self._owns_client:
            await self._closeable().close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
