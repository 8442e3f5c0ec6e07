"""Run a whole transaction body on a SQLite connection's own thread, in one hop.

A thread hop, not SQLite, is the cost that matters (DESIGN §6), so the store never sends single
statements across: it sends one synchronous function per transaction. Two drivers do the hop:

- :class:`AiosqliteDriver` on asyncio: aiosqlite's connection thread runs queued callables one at
  a time, in order, so each transaction body owns the connection while it runs.
- :class:`ThreadDriver` on any anyio backend (aiosqlite is asyncio-only): one
  ``sqlite3.Connection`` used from anyio worker threads under a ``CapacityLimiter(1)``, so again
  one body at a time.
- :class:`InlineDriver`, named only, for an in-memory database: the body runs on the event
  loop's own thread, with no hop at all. A body never awaits, so it still owns the connection
  while it runs; it blocks the loop for as long as SQLite takes, which in memory is microseconds
  (chaos runs and tests; never for a file another process shares).

Either way, a caller cancelled while its body runs does not stop the body: the transaction still
commits or rolls back as a whole; the caller just does not wait for the answer.
"""

from __future__ import annotations

import asyncio  # asyncio-ok: only to tell whether an asyncio loop runs (aiosqlite needs one)
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any, Literal, Protocol, TypeVar

import aiosqlite
import anyio
import anyio.lowlevel
import anyio.to_thread

T = TypeVar("T")

DriverName = Literal["auto", "aiosqlite", "thread", "inline"]

#: sqlite3.connect arguments shared by both drivers: autocommit mode (the store issues BEGIN and
#: COMMIT itself) and a statement cache large enough for every statement the store uses.
_CONNECT_ARGS: dict[str, Any] = {"isolation_level": None, "cached_statements": 256}


class Driver(Protocol):
    async def run(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body`` on the connection's thread with the connection to itself."""
        ...

    async def aclose(self) -> None: ...


def _running_on_asyncio() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def connect(database: str, *, driver: DriverName = "auto") -> Driver:
    """Open a connection with the driver that fits the running backend (or the one named)."""
    if driver == "auto":
        driver = "aiosqlite" if _running_on_asyncio() else "thread"
    if driver == "aiosqlite":
        return await AiosqliteDriver.connect(database)
    if driver == "inline":
        return InlineDriver(sqlite3.connect(database, **_CONNECT_ARGS))
    return await ThreadDriver.connect(database)


def _on_aiosqlite_thread(
    conn: aiosqlite.Connection, body: Callable[[sqlite3.Connection], T]
) -> Any:
    # The one place that uses aiosqlite internals (checked against aiosqlite 0.22):
    # ``Connection._execute(fn)`` queues ``fn`` on the connection's worker thread and awaits its
    # result; ``Connection._conn`` is the underlying ``sqlite3.Connection``. aiosqlite has no
    # public way to run a callable there, and one hop per transaction is the point of the store.
    untyped: Any = conn
    return untyped._execute(lambda: body(untyped._conn))


class AiosqliteDriver:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    @classmethod
    async def connect(cls, database: str) -> AiosqliteDriver:
        conn = await aiosqlite.connect(database, **_CONNECT_ARGS)
        return cls(conn)

    async def run(self, body: Callable[[sqlite3.Connection], T]) -> T:
        result: T = await _on_aiosqlite_thread(self._conn, body)
        return result

    async def aclose(self) -> None:
        await self._conn.close()


class ThreadDriver:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._one_at_a_time = anyio.CapacityLimiter(1)

    @classmethod
    async def connect(cls, database: str) -> ThreadDriver:
        conn = await anyio.to_thread.run_sync(
            partial(sqlite3.connect, database, check_same_thread=False, **_CONNECT_ARGS)
        )
        return cls(conn)

    async def run(self, body: Callable[[sqlite3.Connection], T]) -> T:
        return await anyio.to_thread.run_sync(body, self._conn, limiter=self._one_at_a_time)

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self._conn.close, limiter=self._one_at_a_time)


class InlineDriver:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def run(self, body: Callable[[sqlite3.Connection], T]) -> T:
        await anyio.lowlevel.checkpoint()  # a store call is still a point others may run at
        return body(self._conn)

    async def aclose(self) -> None:
        self._conn.close()
