"""The loop's own turn at the SQLite connection (ADR 0026): short calls on an idle connection
make no thread hop; anything that could wait, and anything behind the thread, goes there."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from turnframe.stores import SqliteStore
from turnframe.stores.errors import StoreClosed, StoreTimeout
from turnframe.stores.sqlite.driver import CHECKPOINT_EVERY, WAIT_FOR_THREAD, LoopFirstDriver

pytestmark = pytest.mark.anyio

ACCOUNT = "acct-loop"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore.open(tmp_path / "t.db", busy_timeout=5.0) as opened:
        yield opened


def _driver(store: SqliteStore) -> LoopFirstDriver:
    driver = store._driver
    assert isinstance(driver, LoopFirstDriver)
    return driver


@contextmanager
def another_process_writing(path: Path, *, for_seconds: float) -> Iterator[threading.Event]:
    """Another connection holds the write lock (``BEGIN IMMEDIATE``) for a while, from its own
    thread, as another process would; yields once the lock is held."""
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            held.set()
            time.sleep(for_seconds)
            conn.execute("ROLLBACK")
        finally:
            conn.close()
            done.set()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert held.wait(5)
    try:
        yield done
    finally:
        thread.join(10)


class Ticker:
    """Counts how often the event loop gets to run it: a blocked loop does not tick."""

    def __init__(self) -> None:
        self.ticks = 0

    async def run(self) -> None:
        while True:
            await anyio.sleep(0.01)
            self.ticks += 1


async def test_short_reads_and_writes_on_an_idle_connection_make_no_thread_hop(
    store: SqliteStore,
) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="w")
    assert await store.get_session(ACCOUNT, session.session_id) == session
    traffic = store.traffic()
    assert traffic.hops == 0
    assert (traffic.reads_here, traffic.commits_here) == (1, 1)


async def test_a_long_read_still_goes_to_the_connections_thread(store: SqliteStore) -> None:
    await store.create_session(account_id=ACCOUNT, workflow="w")
    assert len(await store.list_sessions(ACCOUNT)) == 1
    assert store.traffic().reads == 1


async def test_a_write_that_meets_another_writers_lock_waits_on_the_thread_not_the_loop(
    store: SqliteStore, tmp_path: Path
) -> None:
    ticker = Ticker()
    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker.run)
        with another_process_writing(tmp_path / "t.db", for_seconds=0.4):
            started = time.monotonic()
            session = await store.create_session(account_id=ACCOUNT, workflow="w")
            waited = time.monotonic() - started
        tg.cancel_scope.cancel()
    assert waited >= 0.3  # it waited for the lock instead of failing at once
    assert ticker.ticks >= 10  # and the loop ran other tasks meanwhile
    assert await store.get_session(ACCOUNT, session.session_id) == session
    assert store.traffic().group_sizes == {1: 1}  # the one trip to the thread


async def test_the_lock_wait_on_the_thread_is_the_stores_own_timeout(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "t.db", busy_timeout=0.1) as store:
        with (
            another_process_writing(tmp_path / "t.db", for_seconds=0.8),
            pytest.raises(StoreTimeout),
        ):
            await store.create_session(account_id=ACCOUNT, workflow="w")
        assert await store.list_sessions(ACCOUNT) == []  # nothing of it was written
        # the loop's turn is back once the thread is idle again
        await store.create_session(account_id=ACCOUNT, workflow="w")
        assert store.traffic().commits_here == 1


async def _short_write_behind_a_busy_thread(store: SqliteStore, busy_for: float) -> list[str]:
    driver = _driver(store)
    order: list[str] = []

    def slow(conn: sqlite3.Connection) -> None:
        time.sleep(busy_for)  # the thread holds the connection
        order.append("thread")

    async def short_write() -> None:
        await anyio.sleep(0.01)  # sent while the slow body runs
        assert not driver.free
        await store.create_session(account_id=ACCOUNT, workflow="w")
        order.append("short")

    async with anyio.create_task_group() as tg:
        tg.start_soon(driver.run, slow)
        tg.start_soon(short_write)
    assert driver.free
    return order


async def test_a_short_call_that_finds_the_thread_busy_waits_for_it_then_runs_on_the_loop(
    store: SqliteStore,
) -> None:
    order = await _short_write_behind_a_busy_thread(store, WAIT_FOR_THREAD / 3)
    assert order == ["thread", "short"]  # never alongside the thread's body
    assert store.traffic().commits_here == 1  # and not a trip of its own behind it


async def test_a_short_call_behind_a_thread_that_stays_busy_goes_there_in_its_turn(
    store: SqliteStore,
) -> None:
    order = await _short_write_behind_a_busy_thread(store, WAIT_FOR_THREAD * 4)
    assert order == ["thread", "short"]
    traffic = store.traffic()
    assert (traffic.commits_here, traffic.group_sizes) == (0, {1: 1})  # it did not starve


async def test_calls_waiting_for_the_thread_when_the_store_closes_are_refused_cleanly(
    tmp_path: Path,
) -> None:
    refused: list[BaseException] = []

    async def short_read(store: SqliteStore) -> None:
        try:
            await store.get_session(ACCOUNT, "ses-none")
        except Exception as error:
            refused.append(error)

    def slow(conn: sqlite3.Connection) -> None:
        time.sleep(WAIT_FOR_THREAD / 2)

    async with anyio.create_task_group() as tg, SqliteStore.open(tmp_path / "t.db") as store:
        tg.start_soon(_driver(store).run, slow)
        await anyio.sleep(0.005)
        for _ in range(5):
            tg.start_soon(short_read, store)
        await anyio.sleep(0.005)  # they wait for the thread; the store closes under them
    assert refused and all(isinstance(e, StoreClosed) for e in refused)


async def test_a_cancelled_caller_returns_only_after_its_body_left_the_connection(
    store: SqliteStore,
) -> None:
    driver = _driver(store)
    finished = threading.Event()

    def slow(conn: sqlite3.Connection) -> None:
        time.sleep(0.2)
        finished.set()

    with anyio.move_on_after(0.05):
        await driver.run(slow)
    assert finished.is_set()  # the caller waited for the body, so the loop never shares it
    assert driver.free
    await store.create_session(account_id=ACCOUNT, workflow="w")
    assert store.traffic().commits_here == 1


async def test_the_wal_is_checkpointed_off_the_loop_and_stays_bounded(
    store: SqliteStore, tmp_path: Path
) -> None:
    wal = anyio.Path(f"{tmp_path / 't.db'}-wal")
    sizes = []
    for n in range(8 * CHECKPOINT_EVERY):
        await store.create_session(account_id=ACCOUNT, workflow=f"w{n}")
        sizes.append((await wal.stat()).st_size)
    traffic = store.traffic()
    checkpointer = _driver(store).checkpointer
    assert checkpointer is not None
    assert traffic.commits == 8 * CHECKPOINT_EVERY
    # Every write stayed on the loop: recall's batches riding on them are bounded, and the
    # checkpointer never holds writers back.
    assert traffic.hops == 0
    # without checkpoints the WAL grows with every commit; with them it starts over
    assert max(sizes) < 3 * max(sizes[:CHECKPOINT_EVERY])
    assert checkpointer.runs >= 1 and checkpointer.complete >= 1


async def test_the_wal_stays_bounded_when_every_write_goes_to_the_thread(tmp_path: Path) -> None:
    # A group commit window keeps every write on the connection's thread: its commits count
    # toward the checkpoint as the loop's do.
    wal = anyio.Path(f"{tmp_path / 't.db'}-wal")
    sizes = []
    async with SqliteStore.open(tmp_path / "t.db", group_commit_window=0.0005) as store:
        for n in range(8 * CHECKPOINT_EVERY):
            await store.create_session(account_id=ACCOUNT, workflow=f"w{n}")
            sizes.append((await wal.stat()).st_size)
        assert store.traffic().commits_here == 0
    assert max(sizes) < 3 * max(sizes[:CHECKPOINT_EVERY])


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_body_whose_caller_asyncio_cancelled_outright_still_keeps_the_loop_off(
    store: SqliteStore,
) -> None:
    import asyncio  # asyncio-ok: the cancellation under test is asyncio's own task.cancel()

    driver = _driver(store)
    ran: list[str] = []

    def body(name: str, seconds: float) -> Callable[[sqlite3.Connection], None]:
        def run(conn: sqlite3.Connection) -> None:
            time.sleep(seconds)
            ran.append(name)

        return run

    first = asyncio.ensure_future(driver.run(body("first", 0.1)))
    await asyncio.sleep(0.02)
    queued = asyncio.ensure_future(driver.run(body("queued", 0.1)))
    await asyncio.sleep(0.01)
    queued.cancel()  # past anyio's shield: its caller leaves while the body waits its turn
    with pytest.raises(asyncio.CancelledError):
        await queued
    await first
    assert not driver.free  # the queued body still runs on the thread
    await store.create_session(account_id=ACCOUNT, workflow="w")  # so this waits for it
    assert ran == ["first", "queued"]
    assert driver.free
    await store.create_session(account_id=ACCOUNT, workflow="w")
    assert store.traffic().commits_here >= 1  # the loop's turn came back


_WRITER = """
import sys, anyio
from turnframe.stores import SqliteStore

async def main(path, name, count):
    async with SqliteStore.open(path, busy_timeout=10.0) as store:
        async with anyio.create_task_group() as tg:
            for n in range(count):
                tg.start_soon(lambda n=n: store.create_session(
                    account_id="acct-mp", workflow=f"{name}-{n}"))
        traffic = store.traffic()
        print(traffic.commits_here, traffic.transactions)

anyio.run(main, sys.argv[1], sys.argv[2], int(sys.argv[3]))
"""


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_processes_writing_one_file_at_once_each_commit_every_write_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared.db"
    async with SqliteStore.open(path):
        pass  # created and migrated once, before the writers race
    count = 300
    procs = [
        await anyio.open_process([sys.executable, "-c", _WRITER, str(path), name, str(count)])
        for name in ("p1", "p2", "p3")
    ]
    outputs = []
    for proc in procs:
        assert await proc.wait() == 0
        assert proc.stdout is not None
        outputs.append((await proc.stdout.receive()).decode().split())
    async with SqliteStore.open(path) as store:
        sessions = await store.list_sessions("acct-mp")
    workflows = sorted(s.workflow for s in sessions)
    expected = sorted(f"{name}-{n}" for name in ("p1", "p2", "p3") for n in range(count))
    assert workflows == expected  # every write of every process, once
    for on_loop, transactions in ((int(a), int(b)) for a, b in outputs):
        assert transactions == count  # each write one transaction: on the loop, or (having
        assert 0 < on_loop <= count  # met another process's lock, or carrying a batch) not


async def test_closing_the_store_stops_its_checkpoint_thread_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    async with SqliteStore.open(path) as store:
        for n in range(2 * CHECKPOINT_EVERY):
            await store.create_session(account_id=ACCOUNT, workflow=f"w{n}")
        assert [t for t in threading.enumerate() if t.name == "turnframe-sqlite-checkpoint"]
    assert not [t for t in threading.enumerate() if t.name == "turnframe-sqlite-checkpoint"]
    with sqlite3.connect(path) as conn:
        (count,) = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()
    assert count == 2 * CHECKPOINT_EVERY


async def test_a_task_making_store_calls_back_to_back_lets_others_run_and_its_timeout_fires(
    store: SqliteStore,
) -> None:
    others = 0

    async def other() -> None:
        nonlocal others
        while True:
            others += 1
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(other)
        await anyio.lowlevel.checkpoint()
        before = others
        for n in range(200):
            await store.create_session(account_id=ACCOUNT, workflow=f"w{n}")
        assert others > before  # the other task ran while the writes went on
        writes = 0
        with anyio.move_on_after(0.05) as scope:
            while writes < 100_000:  # (a bound, so a failure here cannot hang the suite)
                await store.create_session(account_id=ACCOUNT, workflow="w")
                writes += 1
        assert scope.cancelled_caught and writes < 100_000
        tg.cancel_scope.cancel()


async def test_no_thread_for_checkpoints_fails_no_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    async with SqliteStore.open(tmp_path / "t.db") as store:
        with monkeypatch.context() as patched:
            patched.setattr(threading.Thread, "start", refuse)
            for n in range(2 * CHECKPOINT_EVERY):  # each checkpoint asked for, none started
                await store.create_session(account_id=ACCOUNT, workflow=f"w{n}")
        for n in range(CHECKPOINT_EVERY):  # threads again: the next request starts one
            await store.create_session(account_id=ACCOUNT, workflow=f"x{n}")
        checkpointer = _driver(store).checkpointer
        assert checkpointer is not None
        assert [t for t in threading.enumerate() if t.name == "turnframe-sqlite-checkpoint"]
    with sqlite3.connect(tmp_path / "t.db") as conn:
        (count,) = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()
    assert count == 3 * CHECKPOINT_EVERY


async def test_the_checkpointer_finds_the_same_file_after_the_process_changes_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    async with SqliteStore.open("t.db") as store:
        monkeypatch.chdir(elsewhere)
        for n in range(3 * CHECKPOINT_EVERY):
            await store.create_session(account_id=ACCOUNT, workflow=f"w{n}")
        checkpointer = _driver(store).checkpointer
        assert checkpointer is not None
        for _ in range(500):  # the checkpointer's thread copies in its own time (up to 5 s)
            if checkpointer.runs >= 1:
                break
            await anyio.sleep(0.01)
        assert checkpointer.runs >= 1
    assert list(elsewhere.iterdir()) == []
