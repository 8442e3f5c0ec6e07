"""Shared names for the store conformance suite: accounts, factories, small builders."""

from __future__ import annotations

import os
import secrets
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

import attrs
import pytest

from turnframe.clock import ManualClock
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseRecord,
    NewJournalEntry,
    PhaseMove,
    SqliteStore,
    Store,
    TurnRecord,
)
from turnframe.stores.sqlite.driver import DriverName

ACCOUNT = "acct-a"
OTHER = "acct-b"

PHASE_ORDER = [
    TurnPhase.RECEIVED,
    TurnPhase.INTERPRETED,
    TurnPhase.REDUCED,
    TurnPhase.EXECUTING,
    TurnPhase.COMMITTED,
    TurnPhase.COMPOSED,
    TurnPhase.DELIVERED,
]


class StoreFactory(Protocol):
    @property
    def persistent(self) -> bool:
        """Whether a store opened again sees what an earlier one wrote (false for ``:memory:``)."""
        ...

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        """Open the factory's one backing database (the same one on every call)."""
        ...

    def unsupported(self, backend: str) -> str | None:
        """Why this store cannot run on the anyio ``backend`` (None when it can)."""
        ...

    async def discard(self) -> None:
        """Remove the backing database after the test (when the temp directory will not)."""
        ...


@attrs.frozen
class SqliteFileFactory:
    path: Path
    persistent: bool = True
    driver: DriverName = "auto"

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        return SqliteStore.open(self.path, clock=clock, driver=self.driver)

    def unsupported(self, backend: str) -> str | None:
        return None

    async def discard(self) -> None:
        pass


@attrs.frozen
class SqliteMemoryFactory:
    persistent: bool = False
    driver: DriverName = "auto"

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        return SqliteStore.open(":memory:", clock=clock, driver=self.driver)

    def unsupported(self, backend: str) -> str | None:
        return None

    async def discard(self) -> None:
        pass


#: Set it to a PostgreSQL DSN to run the suite on the PostgreSQL store too (``.ci/run`` does).
POSTGRES_DSN_VARIABLE = "TURNFRAME_TEST_POSTGRES_DSN"


def postgres_dsn() -> str | None:
    return os.environ.get(POSTGRES_DSN_VARIABLE) or None


def fresh_schema_name() -> str:
    return f"tf_test_{secrets.token_hex(6)}"


async def drop_schema(dsn: str, schema: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


@attrs.frozen
class PostgresSchemaFactory:
    """A fresh PostgreSQL schema per test, dropped afterwards; every open reaches the same one."""

    dsn: str
    schema: str = attrs.field(factory=fresh_schema_name)
    persistent: bool = True

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        from turnframe.stores.postgres import PostgresStore  # asyncpg is an optional extra

        return PostgresStore.open(self.dsn, schema=self.schema, clock=clock)

    def unsupported(self, backend: str) -> str | None:
        if backend == "asyncio":
            return None
        return f"the PostgreSQL store runs on asyncio only (asyncpg has no {backend} support)"

    async def discard(self) -> None:
        await drop_schema(self.dsn, self.schema)


def _postgres(tmp: Path) -> StoreFactory:
    dsn = postgres_dsn()
    if dsn is None:
        pytest.skip(
            f"set {POSTGRES_DSN_VARIABLE} (e.g. postgresql://postgres@127.0.0.1:5432/test) "
            "to run this on the PostgreSQL store"
        )
    return PostgresSchemaFactory(dsn)


#: Store implementations the suite runs against, by id. Each gets a fresh temp directory (and
#: may skip the test when it cannot run here).
FACTORIES: dict[str, Callable[[Path], StoreFactory]] = {
    "sqlite": lambda tmp: SqliteFileFactory(tmp / "store.db"),
    # every body on the connection's thread, as before ADR 0026 (the loop-first default falls
    # back to it when the database is locked or the thread is busy)
    "sqlite-thread": lambda tmp: SqliteFileFactory(tmp / "store.db", driver="thread"),
    "sqlite-memory": lambda tmp: SqliteMemoryFactory(),
    "sqlite-inline": lambda tmp: SqliteMemoryFactory(driver="inline"),
    "postgres": _postgres,
}


#: The ``make_turn`` and ``make_case`` fixtures (see conftest).
MakeTurn = Callable[..., Awaitable[TurnRecord]]
MakeCase = Callable[..., Awaitable[CaseRecord]]


def move(expected: TurnPhase, new: TurnPhase) -> PhaseMove:
    return PhaseMove(expected=expected, new=new)


def entry(
    key: str,
    *,
    digest: str | None = None,
    case_id: str | None = None,
    expected_revision: int | None = None,
    status: JournalStatus = JournalStatus.PENDING,
) -> NewJournalEntry:
    return NewJournalEntry(
        idempotency_key=key,
        command_id=f"cmd-{key}",
        content_digest=digest or f"digest-{key}",
        payload={"command": "set_field", "key": key},
        case_id=case_id,
        expected_revision=expected_revision,
        status=status,
    )
