"""Group commit's settings: how many transactions share a commit, how long a group gathers."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from turnframe.runtime import RuntimeSettings
from turnframe.stores import SqliteStore
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


def insert(key: str) -> object:
    def body(conn: sqlite3.Connection) -> str:
        conn.execute("INSERT INTO t (k) VALUES (?)", (key,))
        return key

    return body


async def write_all(group: GroupCommit, count: int) -> None:
    async with anyio.create_task_group() as tg:
        for n in range(count):
            tg.start_soon(group.write, insert(f"k{n:02d}"))


async def test_a_group_size_of_one_commits_every_transaction_alone(driver: Driver) -> None:
    group = GroupCommit(driver, max_group=1)
    await write_all(group, 12)
    assert group.group_sizes == {1: 12}


async def test_no_group_is_larger_than_its_size(driver: Driver) -> None:
    group = GroupCommit(driver, max_group=4)
    await write_all(group, 12)
    assert max(group.group_sizes) <= 4
    assert sum(size * n for size, n in group.group_sizes.items()) == 12


async def test_a_window_lets_the_transactions_queued_meanwhile_share_the_first_commit(
    driver: Driver,
) -> None:
    group = GroupCommit(driver, window=0.2)
    await write_all(group, 12)  # all twelve are queued while the first one waits
    assert group.group_sizes == {12: 1}


async def test_the_store_reports_its_commits_by_group_size() -> None:
    async with SqliteStore.open(":memory:", group_commit_size=1, driver="thread") as store:
        async with anyio.create_task_group() as tg:
            for n in range(5):
                tg.start_soon(lambda n=n: store.create_session(account_id=f"a{n}", workflow="w"))
        traffic = store.traffic()
    assert traffic.group_sizes == {1: 5}
    assert traffic.commits == traffic.transactions == 5


@pytest.mark.parametrize(("size", "window"), [(0, 0.0), (4, -0.1), (4, 1.0)])
async def test_bad_group_commit_settings_are_refused(size: int, window: float) -> None:
    with pytest.raises(ValueError, match="group commit"):
        async with SqliteStore.open(":memory:", group_commit_size=size, group_commit_window=window):
            pass
    with pytest.raises(ValueError):
        RuntimeSettings(group_commit_size=size, group_commit_window=window)


async def test_short_writes_on_an_idle_connection_commit_on_the_loop_and_are_counted(
    tmp_path: Path,
) -> None:
    async with SqliteStore.open(tmp_path / "t.db") as store:
        for n in range(5):
            await store.create_session(account_id=f"a{n}", workflow="w")
        traffic = store.traffic()
    assert traffic.commits_here == 5
    assert traffic.group_sizes == {}  # no trip to the connection's thread for them
    assert traffic.commits == traffic.transactions == 5


async def test_a_window_keeps_writes_on_the_thread_so_they_can_share_a_commit(
    tmp_path: Path,
) -> None:
    async with SqliteStore.open(tmp_path / "t.db", group_commit_window=0.2) as store:
        async with anyio.create_task_group() as tg:
            for n in range(6):
                tg.start_soon(lambda n=n: store.create_session(account_id=f"a{n}", workflow="w"))
        traffic = store.traffic()
    assert traffic.commits_here == 0
    assert traffic.group_sizes == {6: 1}
