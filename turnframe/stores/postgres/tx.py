"""One transaction per store method, over a connection borrowed from the asyncpg pool.

A transaction body is an async function of one connection (``ops``). :func:`write` runs it
inside ``BEGIN … COMMIT`` (READ COMMITTED; every compare-and-swap is a conditional ``UPDATE``
or a locked read, so that is enough), :func:`read` runs it on a connection without a
transaction (read bodies issue one statement, which PostgreSQL runs on one snapshot).

A caller already cancelled never starts a body. Once started, the body is shielded from
cancellation, as the SQLite store's bodies are: it commits or rolls back whole, and the caller
sees the cancellation afterwards. Every lock wait inside is bounded by the server's
``lock_timeout`` and the wait for a pooled connection by ``acquire_timeout``; a stalled network
is bounded only by the operating system's TCP timeouts.

The server rolls a transaction back when a lock wait times out or it picks the transaction as a
deadlock victim; both surface as :class:`StoreTimeout`, which therefore always means "nothing of
this call was written". A lost connection propagates as asyncpg raised it: if it was lost
during COMMIT, whether the transaction committed is unknown, exactly as after a crash.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import anyio
import anyio.lowlevel
import asyncpg

from turnframe.stores.errors import StoreTimeout

T = TypeVar("T")


class Row(Protocol):
    """An ``asyncpg.Record``: columns by position (or name)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def __len__(self) -> int: ...


class Conn(Protocol):
    """The part of ``asyncpg.Connection`` the transaction bodies use."""

    async def execute(self, query: str, *args: object) -> str: ...

    async def fetch(self, query: str, *args: object) -> list[Row]: ...

    async def fetchrow(self, query: str, *args: object) -> Row | None: ...

    async def fetchval(self, query: str, *args: object) -> Any: ...


Body = Callable[[Conn], Awaitable[T]]

#: Errors after which the server has rolled the transaction back: nothing was written.
_ROLLED_BACK: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.LockNotAvailableError,  # lock_timeout
    asyncpg.exceptions.DeadlockDetectedError,
    asyncpg.exceptions.QueryCanceledError,  # statement_timeout
)


def row_count(status: str) -> int:
    """The row count of a command status such as ``UPDATE 3``."""
    return int(status.rsplit(" ", 1)[-1])


async def _acquire(pool: Any, seconds: float) -> Any:
    try:
        with anyio.fail_after(seconds):
            return await pool.acquire()
    except TimeoutError as exc:
        raise StoreTimeout(
            f"no database connection came free within {seconds:g}s; nothing was written"
        ) from exc


async def _in_transaction(pool: Any, body: Body[T], acquire_timeout: float) -> T:
    conn = await _acquire(pool, acquire_timeout)
    try:
        async with conn.transaction():
            return await body(conn)
    except _ROLLED_BACK as exc:
        raise StoreTimeout(
            f"the server rolled the transaction back: {type(exc).__name__} ({exc})"
        ) from exc
    finally:
        await pool.release(conn)


async def _outside_transaction(pool: Any, body: Body[T], acquire_timeout: float) -> T:
    conn = await _acquire(pool, acquire_timeout)
    try:
        return await body(conn)
    except _ROLLED_BACK as exc:
        raise StoreTimeout(f"the server cancelled the read: {type(exc).__name__} ({exc})") from exc
    finally:
        await pool.release(conn)


async def write(pool: Any, body: Body[T], *, acquire_timeout: float) -> T:
    """Run ``body`` as one transaction: all of it commits or none of it does."""
    await anyio.lowlevel.checkpoint_if_cancelled()
    with anyio.CancelScope(shield=True):
        result = await _in_transaction(pool, body, acquire_timeout)
    return result


async def read(pool: Any, body: Body[T], *, acquire_timeout: float) -> T:
    """Run a read body (one statement) on a pooled connection."""
    await anyio.lowlevel.checkpoint_if_cancelled()
    with anyio.CancelScope(shield=True):
        result = await _outside_transaction(pool, body, acquire_timeout)
    return result


def where(condition: str, params: list[object], **optional: object) -> tuple[str, list[object]]:
    """A ``WHERE`` clause of ``condition`` (over ``params``) and one equality per optional
    column that is not None, with all its parameters. Each filter combination is its own
    prepared statement, so PostgreSQL plans each with the indexes that fit it."""
    clauses, params = [condition], list(params)
    for column, value in optional.items():
        if value is not None:
            params.append(value)
            clauses.append(f"{column} = ${len(params)}")
    return " WHERE " + " AND ".join(clauses), params
