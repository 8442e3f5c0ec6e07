"""Past conversations in a real store, and a runtime that recalls them.

Everything runs through the public runtime with the travel desk and the offline rules
interpreter: past sessions are real conversations (their turns stored as the user typed them),
indexed the way a deployment indexes them, and the recall happens in a later session.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from turnframe.clock import ManualClock
from turnframe.examples import sample
from turnframe.providers.rules import RulesProvider
from turnframe.recall import index_account
from turnframe.response import Block, TurnResponse
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore, Store
from turnframe.stores.records import SessionRecord

ACCOUNT = "demo"
#: "Today" in these conversations: Wednesday 14 January 2026.
TODAY = datetime(2026, 1, 14, 9, 30, tzinfo=UTC)
POSTGRES_DSN = "TURNFRAME_TEST_POSTGRES_DSN"
DESK = sample("travel-desk")

#: (store, backend) pairs every runtime test runs on; PostgreSQL only on asyncio.
STORES = [
    pytest.param(("sqlite", "asyncio"), id="sqlite-asyncio"),
    pytest.param(("sqlite", "trio"), id="sqlite-trio"),
    pytest.param(("postgres", "asyncio"), id="postgres-asyncio"),
]


@contextlib.asynccontextmanager
async def real_store(kind: str, folder: Path) -> AsyncIterator[Store]:
    """A store that outlives a runtime: a SQLite file, or a fresh PostgreSQL schema."""
    clock = ManualClock(at=TODAY - timedelta(days=60))
    if kind == "sqlite":
        async with SqliteStore.open(folder / "turns.db", clock=clock) as store:
            yield store
        return
    dsn = os.environ.get(POSTGRES_DSN)
    if not dsn:
        pytest.skip(f"set {POSTGRES_DSN} to run this on the PostgreSQL store")
    from turnframe.stores.postgres import PostgresStore

    schema = f"tf_recall_{secrets.token_hex(6)}"
    try:
        async with PostgresStore.open(dsn, schema=schema, clock=clock) as store:
            yield store
    finally:
        import asyncpg

        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        finally:
            await conn.close()


async def seed(store: Store, account: str = ACCOUNT) -> None:
    for case in DESK.seed():
        if await store.get_case(account, case.case_id(account)) is None:
            await store.create_case(account_id=account, case=case.new_case(account))


@contextlib.asynccontextmanager
async def recalling(store: Store, **settings: Any) -> AsyncIterator[Runtime]:
    """A runtime on ``store`` (the travel desk, the rules interpreter)."""
    runtime = Runtime(
        workflows=[DESK.workflow],
        store=store,
        provider=RulesProvider(workflows=[DESK.workflow]),
        settings=RuntimeSettings(pool_size=1, ask_timeout=20.0, **settings),
    )
    async with runtime as rt:
        yield rt


async def converse(
    rt: Runtime,
    lines: Sequence[str],
    *,
    days_ago: int = 0,
    account: str = ACCOUNT,
    fork_of: str | None = None,
) -> SessionRecord:
    """A whole past conversation, ``days_ago`` days before today; returns its session."""
    await seed(rt.store, account)
    session = await rt.open_session(account_id=account, fork_of=fork_of)
    at = TODAY - timedelta(days=days_ago)
    for n, line in enumerate(lines):
        await rt.handle_turn(rt.new_turn(session, line, at=at + timedelta(minutes=n)))
    return session


async def index(rt: Runtime, account: str = ACCOUNT) -> None:
    """Index the past conversations, as `turnframe recall index` does."""
    await index_account(rt.store, account)


class Chat:
    """Today's conversation: one session, turns said one after another."""

    def __init__(self, rt: Runtime, session: SessionRecord) -> None:
        self.rt = rt
        self.session = session
        self.minute = 0

    @classmethod
    async def start(cls, rt: Runtime, account: str = ACCOUNT) -> Chat:
        await seed(rt.store, account)
        return cls(rt, await rt.open_session(account_id=account))

    async def say(self, text: str) -> TurnResponse:
        self.minute += 1
        turn = self.rt.new_turn(self.session, text, at=TODAY + timedelta(minutes=self.minute))
        return await self.rt.handle_turn(turn)

    async def click(self, option: str) -> TurnResponse:
        cards = await self.rt.store.list_open_interactions(
            self.session.account_id, session_id=self.session.session_id
        )
        card = max(cards, key=lambda c: c.created_at)
        self.minute += 1
        return await self.rt.respond(
            session=self.session,
            interaction_id=card.interaction_id,
            option_id=option,
            expected_revision=0,
            at=TODAY + timedelta(minutes=self.minute),
        )


def recall_block(response: TurnResponse) -> Block:
    """The one recall block of a response."""
    found = [b for b in response.blocks if b.code.startswith("turnframe.recall.")]
    assert len(found) == 1, [(b.code, b.text) for b in response.blocks]
    return found[0]


def codes(response: TurnResponse) -> list[str]:
    return [b.code for b in response.blocks]


def presented_sessions(block: Block) -> list[str]:
    return [c["session_id"] for c in block.data["candidates"]]


__all__ = [
    "ACCOUNT",
    "DESK",
    "STORES",
    "TODAY",
    "Chat",
    "codes",
    "converse",
    "index",
    "presented_sessions",
    "real_store",
    "recall_block",
    "recalling",
    "seed",
]
