"""Chaos through real HTTP (``turnframe chaos --transport http``): the provider faults go over
the wire, from the fake provider server on 127.0.0.1 to the official SDK adapters.

In process (the default) a fault is raised at the provider interface. Over HTTP, the same
schedule is played by a :class:`HttpFaultyProvider`: for each request it scripts the fake
server with what the workflow's offline interpreter answers (or with the fault instead: a
hanging request, a 429 with ``Retry-After``, a 500 or 529, a connection dropped mid-body, a
body cut in half, a refusal, an answer released after the deadline), then sends the request
through the real adapter: the primary is the OpenAI adapter, the fallback the Anthropic
adapter, the narrator the OpenAI adapter again. Error bodies echo the API key, as a careless
gateway would: nothing a chaos run reports may show it.

A :class:`Lane` is one set of servers and adapters; a run borrows a lane for its whole length
(one run at a time per lane, so each server answers its requests in the order they were
scripted), and the runner keeps one lane per run played at once, for all its runs. Needs the
``fake-provider``, ``openai`` and ``anthropic`` extras.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

from turnframe.errors import ConfigError
from turnframe.providers.base import Provider, ProviderAnswer, ProviderRequest
from turnframe.testing.chaos.injectors import FaultyProvider, ProviderFaultBook, SealMonitor
from turnframe.testing.chaos.schedule import FaultKind, ProviderFault
from turnframe.testing.scripted import ManualDeadline

if TYPE_CHECKING:  # the fake server needs the `fake-provider` extra: imported when a lane opens
    from turnframe.testing.fake_provider import FakeProviderServer, Hang, Step

#: The API keys the lanes' adapters present; every fault's error body echoes its key back. One
#: is shaped like a key; the other is not, so only its configuration can hide it.
CHAOS_KEYS = {
    "openai": "sk-proj-chaos7Qm2Xv9Lp4Rt8Zw1Nb6Yc3",
    "anthropic": "chaos-gateway-credential-for-the-fallback",
}
#: Real seconds an SDK call may take (the chain's deadlines are virtual; this only bounds a
#: request the chain has abandoned).
SDK_TIMEOUT = 60.0


class Transport(enum.StrEnum):
    """How a chaos run's provider faults reach the chain."""

    IN_PROCESS = "in-process"  # raised at the provider interface (the default: fastest)
    HTTP = "http"  # over real HTTP, from the fake provider server to the official SDK adapters


def _missing_extras() -> ConfigError:
    return ConfigError(
        "chaos --transport http needs the fake provider server and the official SDKs",
        hint="pip install 'turnframe[fake-provider,openai,anthropic]'",
    )


class Lane:
    """The fake provider servers and the SDK adapters one run at a time talks to: the
    primary (OpenAI), the fallback (Anthropic) and the narrator (OpenAI)."""

    def __init__(
        self, servers: dict[str, FakeProviderServer], adapters: dict[str, Provider]
    ) -> None:
        self.servers = servers
        self.adapters = adapters

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls) -> AsyncIterator[Lane]:
        try:
            from turnframe.providers.anthropic import AnthropicProvider
            from turnframe.providers.openai_compat import OpenAICompatProvider
            from turnframe.testing.fake_provider import FakeProviderServer
        except ImportError:
            raise _missing_extras() from None
        async with contextlib.AsyncExitStack() as stack:
            servers: dict[str, FakeProviderServer] = {}
            adapters: dict[str, Provider] = {}
            for role in ("primary", "fallback", "narrator"):
                server = await stack.enter_async_context(FakeProviderServer(shutdown_grace=0.1))
                servers[role] = server
                adapter: AnthropicProvider | OpenAICompatProvider
                if role == "fallback":
                    adapter = AnthropicProvider(
                        name=role,
                        model="claude-chaos",
                        api_key=CHAOS_KEYS["anthropic"],
                        base_url=server.anthropic_base_url,
                        timeout=SDK_TIMEOUT,
                    )
                else:
                    adapter = OpenAICompatProvider(
                        name=role,
                        model="gpt-chaos",
                        api_key=CHAOS_KEYS["openai"],
                        base_url=server.openai_base_url,
                        timeout=SDK_TIMEOUT,
                    )
                adapters[role] = await stack.enter_async_context(adapter)
            yield cls(servers, adapters)


class LanePool:
    """Lanes kept for the runs of one runner, all opened up front (a lane's servers live in
    the task that opened them): a run borrows one, waiting if all are lent, and gives it back."""

    def __init__(self, lanes: list[Lane]) -> None:
        self._idle = list(lanes)
        self._free = anyio.Semaphore(len(lanes))

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, count: int) -> AsyncIterator[LanePool]:
        async with contextlib.AsyncExitStack() as stack:
            lanes = [await stack.enter_async_context(Lane.open()) for _ in range(max(1, count))]
            yield cls(lanes)

    @contextlib.asynccontextmanager
    async def borrow(self) -> AsyncIterator[Lane]:
        async with self._free:
            lane = self._idle.pop()
            try:
                yield lane
            finally:
                self._idle.append(lane)


class HttpFaultyProvider(FaultyProvider):
    """The workflow's provider behind the schedule's faults, over HTTP: each request scripts
    the fake server (the interpreter's own answer, or the fault), then goes through the SDK
    adapter. Its secrets are the adapter's, so the chain and the witness redact them."""

    def __init__(
        self,
        inner: Provider,
        *,
        name: str,
        book: ProviderFaultBook,
        monitor: SealMonitor,
        deadline: ManualDeadline,
        server: FakeProviderServer,
        adapter: Provider,
    ) -> None:
        super().__init__(inner, name=name, book=book, monitor=monitor, deadline=deadline)
        self._server = server
        self._adapter = adapter
        self._lock = anyio.Lock()

    @property
    def secrets(self) -> tuple[str, ...]:
        own = getattr(self._adapter, "secrets", ())
        return (*super().secrets, *own)

    async def deliver(
        self, request: ProviderRequest, fault: ProviderFault | None
    ) -> ProviderAnswer:
        step = await self._step(request, fault)
        # One request of this provider at a time: the server answers in the scripted order.
        async with self._lock:
            return await self._send(request, step)

    async def _step(self, request: ProviderRequest, fault: ProviderFault | None) -> Step:
        """What the server does with ``request``: the interpreter's answer, or the fault."""
        from turnframe.testing import fake_provider as fake

        kind = fault.kind if fault is not None else None
        if kind is FaultKind.PROVIDER_TIMEOUT:
            return fake.Hang()
        if kind is FaultKind.PROVIDER_CONNECTION_DROPPED:
            return fake.DropMidBody()
        if kind is FaultKind.PROVIDER_REFUSAL:
            return fake.Refuse()
        if kind is FaultKind.PROVIDER_RATE_LIMITED:
            retry_after = fault.retry_after if fault is not None else None
            return fake.ApiError(
                kind=fake.ErrorKind.RATE_LIMITED, retry_after=retry_after, echo_key=True
            )
        if kind is FaultKind.PROVIDER_SERVER_ERROR:
            overloaded = fault is not None and fault.status == 529
            error = fake.ErrorKind.OVERLOADED if overloaded else fake.ErrorKind.SERVER_ERROR
            return fake.ApiError(kind=error, echo_key=True)
        text = (await self._inner.complete(request)).text
        if kind is FaultKind.PROVIDER_MALFORMED_JSON:
            return fake.Answer(text[: len(text) // 2])  # the model's JSON cut in half
        if kind is FaultKind.PROVIDER_LATE_ANSWER:
            return fake.Hang(then=fake.Answer(text))
        return fake.Answer(text)

    async def _send(self, request: ProviderRequest, step: Step) -> ProviderAnswer:
        from turnframe.testing import fake_provider as fake

        self._server.script(step)
        try:
            if not isinstance(step, fake.Hang):
                return await self._adapter.complete(request)
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._deadline_passes, step)
                answer = await self._adapter.complete(request)  # a late one, if ever
                tg.cancel_scope.cancel()
            return answer
        finally:
            self._server.withdraw(step)  # a request given up before the server took it
            if isinstance(step, fake.Hang):
                step.release()  # a hang nobody waits for any more ends (its request is gone)

    async def _deadline_passes(self, hang: Hang) -> None:
        """Once the server holds the request: its deadline passes, then (for a late answer)
        the server lets the answer go."""
        await hang.reached()
        self._deadline.expire()
        await anyio.lowlevel.checkpoint()
        if hang.then is not None:
            hang.release()


__all__ = ["CHAOS_KEYS", "HttpFaultyProvider", "Lane", "LanePool", "Transport"]
