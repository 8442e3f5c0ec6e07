"""The HTTP API over the travel desk, in process: an httpx client on the app's ASGI transport.

``serving()`` runs the app's lifespan (which starts the Runtime) around a client; each new
session gets the desk's seed cases for its account, as ``turnframe serve`` does.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import attrs
import httpx

from turnframe.cli.demo import DEMO_CLOCK
from turnframe.clock import ManualClock
from turnframe.corpora import default_registry
from turnframe.examples import sample
from turnframe.http import HttpSettings, create_app
from turnframe.providers.base import Provider, ProviderAnswer, ProviderRequest
from turnframe.providers.rules import RulesProvider
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore, Store
from turnframe.stores.records import SessionRecord

DESK = sample("travel-desk")
ACCOUNT = "acct-a"
OTHER = "acct-b"
REBOOK = "Rebook the return flight to March 20."
NOTE = "Add a note: aisle seat please."


def headers(account: str = ACCOUNT, key: str | None = None) -> dict[str, str]:
    found = {"X-Turnframe-Account": account}
    if key is not None:
        found["Idempotency-Key"] = key
    return found


def desk_runtime(store: Store | str, provider: Provider | None = None) -> Runtime:
    registry = default_registry(include_shipped=True)
    DESK.register_corpus(registry)
    return Runtime(
        workflows=[DESK.workflow],
        store=store,
        provider=provider or RulesProvider(workflows=[DESK.workflow]),
        corpora=registry,
        clock=ManualClock(at=DEMO_CLOCK),
        settings=RuntimeSettings(pool_size=2, ask_timeout=10.0),
    )


async def seed(runtime: Runtime, session: SessionRecord) -> None:
    await DESK.seed_account(runtime.store, session.account_id, now=runtime.clock.now())


@attrs.define
class Api:
    client: httpx.AsyncClient
    app: Any
    runtime: Runtime

    @property
    def store(self) -> Store:
        return self.runtime.store

    async def open_session(self, account: str = ACCOUNT) -> str:
        answer = await self.client.post(
            "/v1/sessions", json={"workflow": DESK.name}, headers=headers(account)
        )
        assert answer.status_code == 201, answer.text
        return str(answer.json()["session_id"])

    async def say(
        self, session_id: str, text: str, *, key: str | None = None, account: str = ACCOUNT
    ) -> httpx.Response:
        return await self.client.post(
            f"/v1/sessions/{session_id}/turns", json={"text": text}, headers=headers(account, key)
        )

    async def click(
        self,
        session_id: str,
        label: str,
        *,
        card: str | None = None,
        key: str | None = None,
        account: str = ACCOUNT,
    ) -> httpx.Response:
        body = {"click": label} if card is None else {"click": label, "card": card}
        return await self.client.post(
            f"/v1/sessions/{session_id}/turns", json=body, headers=headers(account, key)
        )

    async def card(self, session_id: str) -> dict[str, Any]:
        answer = await self.client.get(f"/v1/sessions/{session_id}/card", headers=headers())
        assert answer.status_code == 200, answer.text
        card: dict[str, Any] = answer.json()["card"]
        return card

    async def event_count(self, account: str = ACCOUNT) -> int:
        return len(await self.store.list_events(account))


@contextlib.asynccontextmanager
async def serving(
    store: Store | str = ":memory:",
    *,
    provider: Provider | None = None,
    settings: HttpSettings | None = None,
    **app_options: Any,
) -> AsyncIterator[Api]:
    async with contextlib.AsyncExitStack() as stack:
        if isinstance(store, str):
            store = await stack.enter_async_context(SqliteStore.open(store))
        runtime = desk_runtime(store, provider)
        app = create_app(runtime, settings=settings, on_session_opened=seed, **app_options)
        await stack.enter_async_context(app.router.lifespan_context(app))
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://turnframe")
        )
        yield Api(client=client, app=app, runtime=runtime)


class HeldProvider:
    """The rules interpreter, holding each request until ``release`` is set (to keep a turn in
    flight while a test looks at the service)."""

    def __init__(self) -> None:
        self._inner = RulesProvider(workflows=[DESK.workflow])
        self.entered = anyio.Event()
        self.release = anyio.Event()

    @property
    def name(self) -> str:
        return "held"

    @property
    def context_budget_tokens(self) -> int:
        return self._inner.context_budget_tokens

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        self.entered.set()
        await self.release.wait()
        return await self._inner.complete(request)
