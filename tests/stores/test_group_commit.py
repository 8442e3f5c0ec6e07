"""Group commit: queued write transactions share one commit, each one still all-or-nothing."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator

import anyio
import anyio.lowlevel
import pytest

from turnframe.stores.sqlite.driver import Driver, connect
from turnframe.stores.sqlite.group import GroupCommit

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def driver() -> AsyncIterator[Driver]:
    conn = await connect(":memory:")
    await conn.run(lambda c: c.execute("CREATE TABLE t (k TEXT PRIMARY KEY)"))
    try:
        yield conn
    finally:
        await conn.aclose()


def insert(key: str, *, fail: bool = False) -> object:
    def body(conn: sqlite3.Connection) -> str:
        conn.execute("INSERT INTO t (k) VALUES (?)", (key,))
        if fail:
            raise ValueError(f"refused {key}")
        return key

    return body


async def keys(driver: Driver) -> list[str]:
    rows = await driver.run(lambda c: c.execute("SELECT k FROM t ORDER BY k").fetchall())
    return [r[0] for r in rows]


class CountingDriver:
    """Counts the hops to the connection's thread."""

    def __init__(self, inner: Driver) -> None:
        self.inner = inner
        self.hops = 0

    async def run(self, body: object) -> object:
        self.hops += 1
        return await self.inner.run(body)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_concurrent_writes_share_hops_and_all_commit(driver: Driver) -> None:
    counting = CountingDriver(driver)
    group = GroupCommit(counting)  # type: ignore[arg-type]
    async with anyio.create_task_group() as tg:
        for n in range(20):
            tg.start_soon(group.write, insert(f"k{n:02d}"))
    assert await keys(driver) == [f"k{n:02d}" for n in range(20)]
    assert counting.hops < 20


async def test_a_failing_transaction_in_a_group_is_rolled_back_alone(driver: Driver) -> None:
    group = GroupCommit(driver)
    outcomes: dict[str, str] = {}

    async def write(key: str, fail: bool) -> None:
        try:
            outcomes[key] = await group.write(insert(key, fail=fail))  # type: ignore[arg-type]
        except ValueError as error:
            outcomes[key] = str(error)

    async with anyio.create_task_group() as tg:
        for n in range(6):
            tg.start_soon(write, f"k{n}", n == 3)
    assert outcomes["k3"] == "refused k3"
    assert await keys(driver) == ["k0", "k1", "k2", "k4", "k5"]


async def test_a_constraint_error_fails_only_its_own_transaction(driver: Driver) -> None:
    group = GroupCommit(driver)
    errors: list[BaseException] = []

    async def write(key: str) -> None:
        try:
            await group.write(insert(key))  # type: ignore[arg-type]
        except sqlite3.IntegrityError as error:
            errors.append(error)

    async with anyio.create_task_group() as tg:
        for key in ["a", "b", "a", "c"]:
            tg.start_soon(write, key)
    assert len(errors) == 1
    assert await keys(driver) == ["a", "b", "c"]


async def test_a_transaction_whose_error_rolls_back_everything_fails_alone_and_the_others_commit(
    driver: Driver,
) -> None:
    # An interrupted statement makes SQLite roll the whole transaction back (as an I/O error or
    # a full disk would): the group's others, written before and after it, run again without it.
    def interrupt(conn: sqlite3.Connection) -> None:
        conn.create_function("interrupt_now", 0, lambda: conn.interrupt() or 1)

    await driver.run(interrupt)

    def interrupted(conn: sqlite3.Connection) -> str:
        conn.execute("INSERT INTO t (k) VALUES ('k3-before')")
        conn.execute(
            "INSERT INTO t (k) SELECT 'k3-' || interrupt_now() || x FROM (WITH RECURSIVE r(x)"
            " AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 100000) SELECT x FROM r)"
        )
        return "k3"

    group = GroupCommit(driver, window=0.2)  # all six queue while the first one waits
    outcomes: dict[str, str] = {}

    async def write(key: str) -> None:
        body = interrupted if key == "k3" else insert(key)
        try:
            outcomes[key] = await group.write(body)  # type: ignore[arg-type]
        except sqlite3.OperationalError as error:
            outcomes[key] = str(error)

    async with anyio.create_task_group() as tg:
        for n in range(6):
            tg.start_soon(write, f"k{n}")
    assert group.group_sizes == {6: 1}
    assert outcomes == {f"k{n}": "interrupted" if n == 3 else f"k{n}" for n in range(6)}
    assert await keys(driver) == ["k0", "k1", "k2", "k4", "k5"]


async def test_a_caller_cancelled_while_queued_never_writes(driver: Driver) -> None:
    group = GroupCommit(driver)
    unblock = threading.Event()

    def slow(conn: sqlite3.Connection) -> None:
        unblock.wait(timeout=10)
        conn.execute("INSERT INTO t (k) VALUES ('first')")

    scope = anyio.CancelScope()

    async def cancelled_writer() -> None:
        with scope:
            await group.write(insert("cancelled"))  # type: ignore[arg-type]

    async with anyio.create_task_group() as tg:
        tg.start_soon(group.write, slow)
        while not group.group_sizes:  # the slow transaction's flush took it and runs
            await anyio.lowlevel.checkpoint()
        tg.start_soon(group.write, insert("second"))  # sends the next flush, behind it
        while not group._queue:
            await anyio.lowlevel.checkpoint()
        tg.start_soon(cancelled_writer)  # queued for that next flush
        while len(group._queue) < 2:
            await anyio.lowlevel.checkpoint()
        scope.cancel()
        while len(group._queue) > 1:
            await anyio.lowlevel.checkpoint()
        unblock.set()
    assert await keys(driver) == ["first", "second"]
    assert group.group_sizes == {1: 2}
    await group.write(insert("later"))  # type: ignore[arg-type]
    assert await keys(driver) == ["first", "later", "second"]


async def test_transactions_a_full_group_leaves_behind_commit_with_no_one_else_arriving(
    driver: Driver,
) -> None:
    group = GroupCommit(driver, max_group=2)
    unblock = threading.Event()

    def slow(conn: sqlite3.Connection) -> str:
        unblock.wait(timeout=10)
        conn.execute("INSERT INTO t (k) VALUES ('k0')")
        return "k0"

    async with anyio.create_task_group() as tg:
        tg.start_soon(group.write, slow)
        while not group.group_sizes:  # the slow one's flush runs
            await anyio.lowlevel.checkpoint()
        for n in range(1, 8):  # one sends the next flush, the rest queue behind it
            tg.start_soon(group.write, insert(f"k{n}"))
        while len(group._queue) < 7:
            await anyio.lowlevel.checkpoint()
        unblock.set()
    assert await keys(driver) == [f"k{n}" for n in range(8)]
    assert max(group.group_sizes) == 2
    assert sum(size * n for size, n in group.group_sizes.items()) == 8
    assert not group._queue and not group._flush_owed
