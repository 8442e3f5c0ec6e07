"""The fake provider server: real HTTP on 127.0.0.1, scripted answers and faults per request.

Served by hypercorn (it runs natively on both asyncio and trio, so the server lives in the test's
own event loop on either backend, and it serves from a pre-bound loopback socket, so the port is
known before the first request); the app is a small Starlette application. Needs the
``fake-provider`` extra.

::

    async with FakeProviderServer(Answer('{"acts": []}')) as server:
        provider = OpenAICompatProvider(model="m", api_key="k", base_url=server.openai_base_url)

    with FakeProviderServer.in_thread(Answer("{}")) as server:   # for synchronous code
        ...

Each request takes the next scripted step, whichever API it called; one server plays one
provider (start one per provider of a chain). A request that does not follow the vendor's API
is answered with the vendor's 400 and takes no step; it is kept in :attr:`problems`.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Iterator
from types import TracebackType
from typing import Any, Self

import anyio
import anyio.abc
import anyio.from_thread
import attrs
import sniffio
from hypercorn.config import Config
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from turnframe.clock import Clock, SystemClock
from turnframe.testing.fake_provider.anthropic_wire import AnthropicWire
from turnframe.testing.fake_provider.openai_wire import OpenAIWire
from turnframe.testing.fake_provider.steps import (
    STEP_TYPES,
    Answer,
    ApiError,
    DropMidBody,
    ErrorKind,
    ErrorPage,
    FilterContent,
    Hang,
    MalformedBody,
    RawReply,
    Refuse,
    Step,
    Truncate,
)
from turnframe.testing.fake_provider.wire import Ids, Problem, Reply, Wire
from turnframe.testing.scripted import ScriptError


@attrs.frozen(kw_only=True)
class ReceivedRequest:
    """A request the server received: its API, headers (lower-case names), JSON body, the
    problems found in it (then no step was taken) and the step that answered it."""

    number: int
    api: str
    path: str
    headers: dict[str, str]
    body: Any
    problems: tuple[str, ...] = ()
    step: str | None = None

    @property
    def api_key(self) -> str | None:
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        value = self.headers.get("authorization", "")
        return value[7:] if value.lower().startswith("bearer ") else None


class _Dropped(Exception):
    """Raised inside the app to make the server close the connection mid-reply."""


class _DropAfter(Response):
    """Headers promising ``reply`` whole, then only its first ``keep`` bytes, then a drop."""

    def __init__(self, reply: Reply, keep: int) -> None:
        super().__init__(status_code=reply.status)
        self._reply = reply
        self._keep = keep

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        payload = self._reply.payload()
        headers = [
            (b"content-type", self._reply.content_type.encode()),
            (b"content-length", str(len(payload)).encode()),
            *((k.encode(), v.encode()) for k, v in self._reply.headers.items()),
        ]
        await send({"type": "http.response.start", "status": self.status_code, "headers": headers})
        body = {"type": "http.response.body", "body": payload[: self._keep], "more_body": True}
        await send(body)
        raise _Dropped


class FakeProviderServer:
    """A fake model provider on 127.0.0.1 speaking the OpenAI and Anthropic wire formats."""

    def __init__(
        self,
        *steps: Step,
        api_key: str | None = None,
        clock: Clock | None = None,
        shutdown_grace: float = 1.0,
    ) -> None:
        """``steps`` answer the requests in order (more with :meth:`script`). With ``api_key``,
        a request presenting another key gets the vendor's 401 and takes no step."""
        self.api_key = api_key
        self.shutdown_grace = shutdown_grace
        self._lock = threading.Lock()
        self._steps: deque[Step] = deque()
        self._received: list[ReceivedRequest] = []
        self._hanging: list[Hang] = []
        self._ids = Ids((clock or SystemClock()).now)
        self._port: int | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self.script(*steps)

    # -- scripting and inspection (thread-safe) ---------------------------------------------
    def script(self, *steps: Step) -> None:
        """Append ``steps`` to the script."""
        for step in steps:
            if not isinstance(step, STEP_TYPES):
                raise ScriptError(
                    f"not a fake provider step: {step!r}",
                    hint="script Answer, ApiError, Hang, ... from turnframe.testing.fake_provider",
                )
        with self._lock:
            self._steps.extend(steps)

    def withdraw(self, step: Step) -> bool:
        """Take ``step`` (this very object) out of the script if no request has taken it yet;
        whether it was still there. For a client that scripts a step, then gives up before
        its request reaches the server."""
        with self._lock:
            for index, waiting in enumerate(self._steps):
                if waiting is step:
                    del self._steps[index]
                    return True
        return False

    @property
    def remaining(self) -> int:
        """Scripted steps not used yet."""
        with self._lock:
            return len(self._steps)

    @property
    def received(self) -> list[ReceivedRequest]:
        """Every request received, in order."""
        with self._lock:
            return list(self._received)

    @property
    def problems(self) -> list[str]:
        """Every way a request broke its vendor's API (should stay empty in a good test)."""
        return [f"request {r.number}: {p}" for r in self.received for p in r.problems]

    @property
    def url(self) -> str:
        if self._port is None:
            raise ScriptError(
                "the fake provider server is not running",
                hint="use its address inside `async with FakeProviderServer(...)`",
            )
        return f"http://127.0.0.1:{self._port}"

    @property
    def openai_base_url(self) -> str:
        """The ``base_url`` an OpenAI client takes (it posts to ``/chat/completions``)."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``base_url`` an Anthropic client takes (it posts to ``/v1/messages``)."""
        return self.url

    # -- serving ----------------------------------------------------------------------------
    async def __aenter__(self) -> Self:
        if self._stack is not None:
            raise ScriptError("the fake provider server is already running")
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        self._port = listener.getsockname()[1]
        config = Config()
        config.bind = [f"fd://{listener.detach()}"]  # hypercorn owns (and closes) the socket
        config.errorlog = None  # scripted drops raise inside the app on purpose
        config.accesslog = None
        config.graceful_timeout = self.shutdown_grace
        config.include_date_header = False  # the vendor headers carry their own date
        stack = contextlib.AsyncExitStack()
        group = await stack.enter_async_context(anyio.create_task_group())
        closing = anyio.Event()
        stopped = anyio.Event()

        async def serve() -> None:
            try:
                await _serve(self._app(), config, closing)
            finally:
                stopped.set()

        async def shut_down() -> None:
            closing.set()
            self._abandon_hangs()
            with anyio.move_on_after(self.shutdown_grace + 1.0):
                await stopped.wait()
            group.cancel_scope.cancel()

        stack.push_async_callback(shut_down)
        group.start_soon(serve)
        self._stack = stack
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()
        self._port = None

    @classmethod
    @contextlib.contextmanager
    def in_thread(cls, *steps: Step, **options: Any) -> Iterator[FakeProviderServer]:
        """The server on an event loop of its own in a background thread, for synchronous code:
        ``with FakeProviderServer.in_thread(...) as server:``."""
        server = cls(*steps, **options)
        with (
            anyio.from_thread.start_blocking_portal() as portal,
            portal.wrap_async_context_manager(server),
        ):
            yield server

    # -- the app ----------------------------------------------------------------------------
    def _app(self) -> Starlette:
        openai, anthropic = OpenAIWire(), AnthropicWire()

        async def chat_completions(request: Request) -> Response:
            return await self._handle(openai, request)

        async def messages(request: Request) -> Response:
            return await self._handle(anthropic, request)

        async def unknown(request: Request) -> Response:
            message = f"Invalid URL ({request.method} {request.url.path})"
            body = {"error": {"message": message, "type": "invalid_request_error"}}
            return _response(Reply(status=404, body=body))

        return Starlette(
            routes=[
                Route("/v1/chat/completions", chat_completions, methods=["POST"]),
                Route("/v1/messages", messages, methods=["POST"]),
                Route("/{path:path}", unknown, methods=["GET", "POST", "PUT", "DELETE"]),
            ]
        )

    async def _handle(self, wire: Wire, request: Request) -> Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        body = _json_or_none(await request.body())
        key = wire.presented_key(headers)
        problems = (
            wire.check(headers, body)
            if body is not None
            else [Problem(param="body", message="the request body is not JSON")]
        )
        if key is None:
            problems.insert(0, Problem(param="authorization", message="no API key", missing=True))
        step: Step | None = None
        rejection: Reply | None = None
        with self._lock:
            number = len(self._received) + 1
            if problems:
                rejection = self._rejection(wire, problems, body)
            elif self.api_key is not None and key != self.api_key:
                step = ApiError(kind=ErrorKind.UNAUTHORIZED)
            elif self._steps:
                step = self._steps.popleft()
            else:
                problems.append(Problem(param="script", message="no scripted reply left"))
                rejection = wire.unscripted(number, self._ids)
            self._received.append(
                ReceivedRequest(
                    number=number,
                    api=wire.name,
                    path=request.url.path,
                    headers=headers,
                    body=body,
                    problems=tuple(str(p) for p in problems),
                    step=type(step).__name__ if step is not None else None,
                )
            )
        if step is None:
            assert rejection is not None
            return _response(rejection)
        return await self._reply(wire, step, body, key)

    def _rejection(self, wire: Wire, problems: list[Problem], body: Any) -> Reply:
        if problems[0].param == "authorization":
            return wire.error(ApiError(kind=ErrorKind.UNAUTHORIZED), body, None, self._ids)
        return wire.invalid(problems, self._ids)

    async def _reply(self, wire: Wire, step: Step, body: Any, key: str | None) -> Response:
        if isinstance(step, Answer | Refuse | FilterContent | Truncate):
            return _response(wire.answer(step, body, self._ids))
        if isinstance(step, ApiError):
            return _response(wire.error(step, body, key, self._ids))
        if isinstance(step, Hang):
            with self._lock:
                self._hanging.append(step)
            released = await step._hold()
            if released and step.then is not None:
                return await self._reply(wire, step.then, body, key)
            return _DropAfter(wire.answer(Answer("{}"), body, self._ids), keep=0)
        if isinstance(step, DropMidBody):
            whole = wire.answer(Answer('{"acts": []}'), body, self._ids)
            return _DropAfter(whole, step.after_bytes)
        if isinstance(step, MalformedBody):
            return _response(Reply(status=200, body=step.body, headers=_plain_headers(self._ids)))
        if isinstance(step, ErrorPage):
            reply = Reply(status=step.status, body=step.html.encode(), content_type="text/html")
            return _response(reply)
        assert isinstance(step, RawReply)
        reply = Reply(
            status=step.status,
            body=step.body,
            headers=dict(step.headers),
            content_type=step.content_type,
        )
        return _response(reply)

    def _abandon_hangs(self) -> None:
        with self._lock:
            hanging, self._hanging = self._hanging, []
        for hang in hanging:
            hang._abandon()


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _plain_headers(ids: Ids) -> dict[str, str]:
    return {"x-request-id": ids.next("req_fake")}


def _response(reply: Reply) -> Response:
    return Response(
        content=reply.payload(),
        status_code=reply.status,
        headers=reply.headers,
        media_type=reply.content_type,
    )


async def _serve(app: Starlette, config: Config, closing: anyio.Event) -> None:
    """Serve ``app`` with hypercorn's worker for the running backend until ``closing``."""
    if sniffio.current_async_library() == "trio":
        from hypercorn.trio import serve as serve_trio

        await serve_trio(app, config, shutdown_trigger=closing.wait)  # type: ignore[arg-type]
    else:
        from hypercorn.asyncio import serve as serve_asyncio

        await serve_asyncio(app, config, shutdown_trigger=closing.wait)  # type: ignore[arg-type]
