"""Fixtures for the outbox tests: an in-memory store on a manual clock, outbox rows committed
through a commit bundle, and dispatchers on virtual time."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import Any

import pytest
from outbox_kit import ACCOUNT, LEASE, CommitEffects, MakeDispatcher, commit_turn_with_effects

from turnframe.clock import ManualClock
from turnframe.outbox import EffectSender, OutboxDispatcher
from turnframe.stores import OutboxRecord, SqliteStore, Store
from turnframe.testing.scripted import ManualDeadline


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def store(clock: ManualClock) -> AsyncIterator[SqliteStore]:
    async with SqliteStore.open(":memory:", clock=clock) as opened:
        yield opened


@pytest.fixture
def commit_effects(store: SqliteStore) -> CommitEffects:
    def commit(
        *commands: str, channel: str = "refunds", account: str = ACCOUNT
    ) -> Awaitable[list[OutboxRecord]]:
        return commit_turn_with_effects(store, commands, channel=channel, account=account)

    return commit


@pytest.fixture
def deadline() -> ManualDeadline:
    """Send and reconcile deadlines that expire only when a test calls ``expire()``."""
    return ManualDeadline()


@pytest.fixture
def make_dispatcher(
    store: SqliteStore, clock: ManualClock, deadline: ManualDeadline
) -> MakeDispatcher:
    def make(
        senders: Mapping[str, EffectSender], *, on: Store | None = None, **options: Any
    ) -> OutboxDispatcher:
        options.setdefault("lease", LEASE)
        options.setdefault("deadline", deadline)
        options.setdefault("sleep", ManualDeadline())  # polls only when notified
        return OutboxDispatcher(on or store, senders, clock, **options)

    return make
