"""Running the sample desks through the real Runtime with the offline rules interpreter."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from turnframe.corpora import default_registry
from turnframe.examples import sample
from turnframe.providers.rules import RulesProvider
from turnframe.response import BlockKind
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.stores.protocol import Store

ACCOUNT = "demo"
#: A Wednesday morning: "Friday" is 2026-01-09.
CLOCK = datetime(2026, 1, 7, 9, 30, tzinfo=UTC)


async def seed(store: Store, desk_name: str) -> None:
    for case in sample(desk_name).seed():
        await store.create_case(account_id=ACCOUNT, case=case.new_case(ACCOUNT))


@contextlib.asynccontextmanager
async def desk_runtime(
    desk_name: str,
    *,
    store: Store | None = None,
    provider: Any = None,
    anaphora: bool = False,
    **kwargs: Any,
) -> AsyncIterator[tuple[Runtime, Store]]:
    desk = sample(desk_name)
    async with contextlib.AsyncExitStack() as stack:
        if store is None:
            store = await stack.enter_async_context(SqliteStore.open(":memory:"))
            await seed(store, desk_name)
        registry = default_registry()
        desk.register_corpus(registry)
        rt = await stack.enter_async_context(
            Runtime(
                workflows=[desk.workflow],
                store=store,
                provider=provider or RulesProvider(workflows=[desk.workflow]),
                corpora=registry,
                settings=kwargs.pop(
                    "settings", RuntimeSettings(pool_size=2, ask_timeout=10.0, anaphora=anaphora)
                ),
                **kwargs,
            )
        )
        yield rt, store


async def say(rt: Runtime, text: str, *, session_id: str = "s-1") -> Any:
    session = await rt.open_session(account_id=ACCOUNT, session_id=session_id)
    return await rt.handle_turn(rt.new_turn(session, text, at=CLOCK))


def cards(response: Any, kind: str) -> list[dict[str, Any]]:
    """The data of every card of one interaction kind the response shows."""
    return [
        b.data
        for b in response.blocks
        if b.kind is BlockKind.CARD and b.data.get("interaction_kind") == kind
    ]


async def click(rt: Runtime, card: dict[str, Any], label: str, *, session_id: str = "s-1") -> Any:
    """Click the option of ``card`` whose label or option id is ``label``."""
    session = await rt.open_session(account_id=ACCOUNT, session_id=session_id)
    option = next(o for o in card["options"] if label in (o["label"], o["option_id"]))
    return await rt.respond(
        session=session,
        interaction_id=card["interaction_id"],
        option_id=option["option_id"],
        expected_revision=card["expected_revision"] or 0,
        at=CLOCK,
    )


async def committed(store: Store) -> list[tuple[str, dict[str, Any]]]:
    """(type, payload) of every event the account committed, in order."""
    return [(e.type, e.payload) for e in await store.list_events(ACCOUNT)]
