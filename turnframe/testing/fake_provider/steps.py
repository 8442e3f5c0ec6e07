"""What the fake provider server does with each request: the scripted steps.

Steps are vendor-neutral; the server renders each one in the wire format of the API that was
called (OpenAI chat completions or Anthropic Messages), with that vendor's bodies and headers.
"""

from __future__ import annotations

import contextlib
import enum
import threading
from typing import Any, Literal, TypeAlias

import anyio
import anyio.from_thread
import attrs
from anyio.lowlevel import EventLoopToken, current_token

#: The answer a truncated or dropped reply starts with: a plan cut short.
PARTIAL_PLAN = '{"acts": [{"kind": '


@attrs.frozen
class Answer:
    """A 200 with the model's answer ``text``: the message content, the forced tool's arguments or
    input, or a text block, whichever the request asked for. ``model`` defaults to the
    request's model."""

    text: str
    model: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class Refuse:
    """The model declines: OpenAI ``message.refusal``; Anthropic ``stop_reason: refusal``."""

    message: str = "I'm sorry, but I can't help with that request."


@attrs.frozen
class FilterContent:
    """The provider's content filter stops the answer: OpenAI ``finish_reason: content_filter``.
    Anthropic has no content-filter stop; its classifiers stop an answer with
    ``stop_reason: refusal``, which is what the fake sends."""

    partial: str | None = None


@attrs.frozen
class Truncate:
    """The answer hits the token limit: OpenAI ``finish_reason: length``; Anthropic
    ``stop_reason: max_tokens``. ``text`` is the cut-off answer."""

    text: str = PARTIAL_PLAN


class ErrorKind(enum.StrEnum):
    """An API error as the vendor words it (status, type, code, message, headers)."""

    UNAUTHORIZED = "unauthorized"  # 401
    FORBIDDEN = "forbidden"  # 403
    MODEL_NOT_FOUND = "model_not_found"  # 404
    REQUEST_TIMEOUT = "request_timeout"  # 408
    CONFLICT = "conflict"  # 409
    RATE_LIMITED = "rate_limited"  # 429 with Retry-After
    QUOTA_EXHAUSTED = "quota_exhausted"  # OpenAI 429 insufficient_quota; Anthropic 402 billing
    SERVER_ERROR = "server_error"  # 500
    UNAVAILABLE = "unavailable"  # 503
    OVERLOADED = "overloaded"  # Anthropic 529 overloaded_error; OpenAI 503 "overloaded"
    GATEWAY_TIMEOUT = "gateway_timeout"  # 504
    CONTEXT_OVERFLOW = "context_overflow"  # 400 context_length_exceeded / prompt is too long
    CONTENT_FILTERED = "content_filtered"  # OpenAI 400 content_filter (the prompt was filtered)
    REQUEST_TOO_LARGE = "request_too_large"  # 413
    BAD_REQUEST = "bad_request"  # 400 invalid_request_error


RetryAfterFormat = Literal["seconds", "milliseconds", "http-date"]


@attrs.frozen(kw_only=True)
class ApiError:
    """An error response in the vendor's shape.

    ``retry_after`` (seconds) is sent as ``retry-after`` (``retry_after_format="seconds"``),
    ``retry-after-ms``, or an HTTP date measured from the response's own ``date`` header.
    ``message`` replaces the vendor's wording. ``echo_key=True`` puts the API key the request
    presented into the message, whole, as a careless gateway would: for testing redaction.
    """

    kind: ErrorKind = attrs.field(converter=ErrorKind)
    retry_after: float | None = None
    retry_after_format: RetryAfterFormat = "seconds"
    message: str | None = None
    echo_key: bool = False


@attrs.frozen(kw_only=True)
class DropMidBody:
    """A 200 whose headers promise a whole answer, then the connection drops after
    ``after_bytes`` bytes of the body."""

    after_bytes: int = 12


@attrs.frozen(kw_only=True)
class MalformedBody:
    """A 200 ``application/json`` whose body is not JSON."""

    body: bytes = b'{"id": "fake", "choices": [{"index": 0, "message": '


@attrs.frozen(kw_only=True)
class ErrorPage:
    """A gateway's HTML error page instead of the vendor's JSON (e.g. a proxy's 502)."""

    status: int = 502
    html: str = "<html><body><h1>502 Bad Gateway</h1></body></html>"


@attrs.frozen(kw_only=True)
class RawReply:
    """Exactly these bytes, status and headers: for a wire detail no other step models."""

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    content_type: str = "application/json"


class _Signal:
    """A one-shot flag that tasks on any event loop, and plain threads, can wait for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._flag = threading.Event()
        self._waiters: list[tuple[anyio.Event, EventLoopToken, int]] = []

    @property
    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        with self._lock:
            if self._set:
                return
            self._set = True
            waiters, self._waiters = self._waiters, []
        self._flag.set()
        for event, token, thread in waiters:
            if thread == threading.get_ident():
                event.set()
            else:
                with contextlib.suppress(anyio.RunFinishedError):  # that loop is gone
                    anyio.from_thread.run_sync(event.set, token=token)

    async def wait(self) -> None:
        with self._lock:
            if self._set:
                return
            event = anyio.Event()
            self._waiters.append((event, current_token(), threading.get_ident()))
        await event.wait()

    def wait_blocking(self, timeout: float | None) -> bool:
        return self._flag.wait(timeout)


@attrs.define(eq=False)
class Hang:
    """The server takes the request and does not answer until the test calls :meth:`release`
    (or the server closes). Then it answers with ``then`` — a late answer — or, without
    ``then``, drops the connection.

    ``await hang.reached()`` (or ``hang.wait_reached(timeout)`` from a thread) waits until a
    request is hanging here. A Hang is one step: it serves one request.
    """

    then: Answer | Refuse | FilterContent | Truncate | ApiError | None = None
    _reached: _Signal = attrs.field(factory=_Signal, init=False, repr=False)
    _released: _Signal = attrs.field(factory=_Signal, init=False, repr=False)
    _woken: _Signal = attrs.field(factory=_Signal, init=False, repr=False)

    def release(self) -> None:
        """Let the hanging request go on (thread-safe; releasing early is kept for later)."""
        self._released.set()
        self._woken.set()

    @property
    def is_released(self) -> bool:
        return self._released.is_set

    async def reached(self) -> None:
        await self._reached.wait()

    def wait_reached(self, timeout: float | None = None) -> bool:
        return self._reached.wait_blocking(timeout)

    # The server's side.
    async def _hold(self) -> bool:
        """Block until released (True) or abandoned because the server closes (False)."""
        self._reached.set()
        await self._woken.wait()
        return self._released.is_set

    def _abandon(self) -> None:
        self._woken.set()


Step: TypeAlias = (
    Answer
    | Refuse
    | FilterContent
    | Truncate
    | ApiError
    | Hang
    | DropMidBody
    | MalformedBody
    | ErrorPage
    | RawReply
)
STEP_TYPES: tuple[type[Any], ...] = (
    Answer,
    Refuse,
    FilterContent,
    Truncate,
    ApiError,
    Hang,
    DropMidBody,
    MalformedBody,
    ErrorPage,
    RawReply,
)
