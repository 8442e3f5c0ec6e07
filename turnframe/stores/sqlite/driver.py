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

The default (``"auto"``) is one of the first two behind a :class:`LoopFirstDriver` (ADR 0026): a
*short* body (a point read, a turn's seal or commit bundle: bounded work the store marks) runs on
the event loop's own thread, with no hop, whenever nothing is queued on or running in the
connection's thread (a short call that finds the thread busy waits for it to finish) — the hop,
not SQLite, was most of a turn's store cost. There the lock wait is off (``busy_timeout`` 0): a
body that would wait for another process's lock is rolled back whole (:class:`WouldWait`, before
anything is written) and sent to the thread, which waits for the lock with the store's real
timeout and never blocks the loop. Long bodies go to the thread, so the connection is never used
from two threads at once. WAL checkpoints never run inside a COMMIT on the loop: every 64 commits
a :class:`Checkpointer` copies the WAL into the database on a connection and a thread of its own
(ADR 0027), while the loop goes on committing, and nobody waits for it.
"""

from __future__ import annotations

import asyncio  # asyncio-ok: only to tell whether an asyncio loop runs (aiosqlite needs one)
import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Literal, Protocol, TypeVar

import aiosqlite
import anyio
import anyio.lowlevel
import anyio.to_thread

from turnframe.stores.errors import StoreClosed

T = TypeVar("T")

logger = logging.getLogger(__name__)

DriverName = Literal["auto", "aiosqlite", "thread", "inline"]

#: Commits between two WAL checkpoints (each run by the :class:`Checkpointer`): about SQLite's
#: own 1000-page default at the 10-20 pages a turn's transaction writes.
CHECKPOINT_EVERY = 64

#: A short call on the loop's thread never suspends; every this many of them the caller yields
#: to the loop once before its call, so a task making store calls back to back still lets other
#: tasks run, and its cancellation (a timeout) reaches it.
YIELD_EVERY = 16

#: How long a short call waits for a busy connection's thread before it goes there itself
#: (in its turn, behind what is queued): long enough for a checkpoint or a long read, short
#: enough that calls keeping the thread busy cannot starve it.
WAIT_FOR_THREAD = 0.05


class WouldWait(Exception):
    """On the loop's thread the lock wait is off: the database is locked by another connection
    now. Raised before anything was written (the transaction was rolled back whole); the store
    then sends the same body to the connection's thread, which may wait."""


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


async def connect(
    database: str, *, driver: DriverName = "auto", busy_timeout_ms: int = 5000
) -> Driver:
    """Open a connection with the driver that fits the running backend (or the one named)."""
    if driver == "auto":
        thread: AiosqliteDriver | ThreadDriver
        if _running_on_asyncio():
            thread = await AiosqliteDriver.connect(database, shared=True)
        else:
            thread = await ThreadDriver.connect(database)
        return LoopFirstDriver(thread.connection, thread, busy_timeout_ms, database=database)
    if driver == "aiosqlite":
        return await AiosqliteDriver.connect(database)
    if driver == "inline":
        return InlineDriver(sqlite3.connect(database, **_CONNECT_ARGS))
    return await ThreadDriver.connect(database)


# The one place that uses aiosqlite internals (checked against aiosqlite 0.22):
# ``Connection._execute(fn)`` queues ``fn`` on the connection's worker thread and awaits its
# result; ``Connection._conn`` is the underlying ``sqlite3.Connection``. aiosqlite has no public
# way to run a callable there, and one hop per transaction is the point of the store.


def _on_aiosqlite_thread(
    conn: aiosqlite.Connection, body: Callable[[sqlite3.Connection], T]
) -> Any:
    untyped: Any = conn
    return untyped._execute(lambda: body(untyped._conn))


def _sqlite3_of(conn: aiosqlite.Connection) -> sqlite3.Connection:
    untyped: Any = conn
    raw: sqlite3.Connection = untyped._conn
    return raw


class AiosqliteDriver:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    @classmethod
    async def connect(cls, database: str, *, shared: bool = False) -> AiosqliteDriver:
        """``shared``: the event loop may use the connection too, between the thread's bodies
        (:class:`LoopFirstDriver`)."""
        conn = await aiosqlite.connect(database, check_same_thread=not shared, **_CONNECT_ARGS)
        return cls(conn)

    @property
    def connection(self) -> sqlite3.Connection:
        return _sqlite3_of(self._conn)

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

    @property
    def connection(self) -> sqlite3.Connection:
        return self._conn

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


class LoopFirstDriver:
    """A thread driver whose connection the event loop may use itself, between the thread's
    bodies (see the module's docstring and ADR 0026).

    :meth:`run` always goes to the thread, with the lock wait on for that body only.
    :meth:`here` runs a body on the loop's thread, synchronously, when :attr:`free`; a short
    call that finds the thread busy waits for it a moment (:meth:`until_free`) instead of
    queueing there, so a busy moment does not send every later call on a trip — and goes to
    the thread after all when the thread stays busy (it never starves). A body sent to the
    thread counts as away from when it is sent until it has finished *there* (counted by the
    thread itself, not by its caller, who may have been cancelled), so ``free`` means the
    thread is not touching the connection and nothing is queued for it.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        thread: Driver,
        busy_timeout_ms: int,
        *,
        database: str = ":memory:",
    ) -> None:
        self._conn = conn
        self._thread = thread
        self._busy_ms = int(busy_timeout_ms)
        self._sent = 0  # bodies sent to the thread (counted on the loop)
        self._finished = 0  # of them, finished on the thread (counted there, one at a time)
        self._refused = 0  # of them, refused before they were queued (counted on the loop)
        self._freed: anyio.Event | None = None  # set when the thread is done, for waiters
        self._closed = False  # closing or closed: nothing runs here any more
        self._commits = 0  # commits since the last checkpoint (on the loop or the thread)
        self._unyielded = 0  # short calls run here since a caller last yielded for them
        #: WAL checkpoints (a database in memory has no WAL).
        self.checkpointer = Checkpointer(database) if database not in ("", ":memory:") else None
        conn.execute("PRAGMA busy_timeout = 0")  # the loop never waits for a lock
        if self.checkpointer is not None:
            conn.execute("PRAGMA wal_autocheckpoint = 0")  # never inside a COMMIT on the loop

    @property
    def thread(self) -> Driver:
        """The driver that takes bodies to the connection's thread."""
        return self._thread

    @property
    def free(self) -> bool:
        """Open, and nothing is queued on or running in the connection's thread."""
        return self._sent == self._finished + self._refused and not self._closed

    async def until_free(self, patience: float = WAIT_FOR_THREAD) -> bool:
        """Wait up to ``patience`` seconds for :attr:`free`; whether it is. Woken when the
        thread's last body is done (a waiter checks again: another may have sent a body
        meanwhile); the time limit also covers a wake-up that never comes (the body's caller
        was cancelled by its event loop directly, so nobody on the loop saw it finish)."""
        self._unyielded += 1
        if self._unyielded >= YIELD_EVERY:
            # Let other tasks run; a cancelled caller leaves here, before its call ran.
            self._unyielded = 0
            await anyio.lowlevel.checkpoint()
        if self.free:
            return True
        with anyio.move_on_after(patience):
            while not self.free:
                if self._closed:
                    raise StoreClosed()
                if self._freed is None:
                    self._freed = anyio.Event()
                await self._freed.wait()
        if self._closed:
            raise StoreClosed()
        return self.free

    def here(self, body: Callable[[sqlite3.Connection], T], *, commits: bool = False) -> T:
        """Run ``body`` now on the loop's thread (the caller saw :attr:`free` and did not await
        since). ``commits``: it is a write; count it toward the checkpoint."""
        if not self.free:  # a caller's bug, or closed meanwhile: never share the connection
            raise StoreClosed() if self._closed else RuntimeError("the connection is busy")
        result = body(self._conn)
        if commits:
            self._committed()
        return result

    def _committed(self) -> None:
        # Called on the loop (here) or on the thread (away), never both at once: the driver
        # never lets them use the connection together.
        checkpointer = self.checkpointer
        if checkpointer is None:
            return
        try:  # never fails the write just committed
            if checkpointer.finish_owed:
                checkpointer.finish(self._conn)
            self._commits += 1
            if self._commits >= CHECKPOINT_EVERY:
                self._commits = 0
                checkpointer.request()
        except Exception:
            logger.warning("a WAL checkpoint could not be asked for", exc_info=True)

    async def run(self, body: Callable[[sqlite3.Connection], T]) -> T:
        busy_ms = self._busy_ms
        ran = False

        def away(conn: sqlite3.Connection) -> T:
            nonlocal ran
            ran = True
            try:
                conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
                changes = conn.total_changes
                try:
                    return body(conn)
                finally:
                    if conn.total_changes != changes:
                        self._committed()  # (or rolled back: counted all the same)
                    try:
                        conn.execute("PRAGMA busy_timeout = 0")
                    except BaseException:
                        self._closed = True  # never again on the loop with the lock wait on
                        raise
            finally:
                self._finished += 1  # only ever on the connection's one thread at a time

        self._sent += 1
        # Shielded: the caller returns only once the body has finished there (or was refused
        # before it was queued), so a cancelled caller never leaves a body running on the
        # thread while the loop takes the connection. (A task cancelled by its event loop
        # directly, past the shield, leaves early: ``free`` still waits for the thread.)
        with anyio.CancelScope(shield=True):
            try:
                result = await self._thread.run(away)
            except BaseException as error:
                if not ran and not isinstance(error, anyio.get_cancelled_exc_class()):
                    self._refused += 1  # refused before it was queued (the connection closed)
                raise
            finally:
                self._wake_if_free()
        return result

    def _wake_if_free(self) -> None:
        if self._freed is not None and (self.free or self._closed):
            self._freed.set()
            self._freed = None

    async def aclose(self) -> None:
        # Closing counts as a body on the thread that never finishes: from here the loop never
        # takes the connection, and waiters wake to find the store closed.
        self._closed = True
        self._sent += 1
        self._wake_if_free()
        try:
            if self.checkpointer is not None:
                await self.checkpointer.aclose()
        finally:
            await self._thread.aclose()


class Checkpointer:
    """Copies a database's WAL into the database file on a connection and a thread of its own
    (ADR 0027), so no COMMIT and no caller waits for the copy: SQLite's WAL guide suggests this
    ("run checkpoints ... in a separate thread") once automatic checkpoints are off.

    :meth:`request` only wakes the thread (it never blocks, from the loop or from the store's
    own thread); requests made while a checkpoint runs fold into one more. The thread runs
    PASSIVE checkpoints, which copy what the WAL holds while writers go on appending and never
    take their lock, each pass copying what was appended during the one before, until a pass
    copies only a few frames (:func:`_catch_up`). Writers keep appending, so that alone never
    catches up: the WAL would grow without end. So the thread then owes a *finish*
    (:attr:`finish_owed`, and runs no pass until it is done): the store's own connection, right
    after its next COMMIT (on the loop or on its thread, wherever that commit ran), runs one
    more PASSIVE checkpoint for the few frames appended since (:meth:`finish`); with every frame
    copied and no reader left in the WAL, the next write starts the WAL over. A failed
    checkpoint is logged and leaves the WAL longer until the next; nothing else depends on it.
    The thread starts at the first request and stops at :meth:`aclose`.
    """

    def __init__(self, database: str) -> None:
        self._database = os.path.abspath(database)  # the same file after a chdir
        self._changed = threading.Condition()
        self._wanted = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        #: The thread copied the WAL: the store's connection owes the last few frames.
        self.finish_owed = False
        #: Checkpoints the thread ran, and finishes after which every frame was copied (the
        #: WAL can start over): for tests and benchmarks.
        self.runs = 0
        self.complete = 0

    def request(self) -> None:
        """Ask for a checkpoint soon; returns at once and never raises (it is asked right after
        a COMMIT: the write is done whatever becomes of its checkpoint)."""
        with self._changed:
            if self._stopping:
                return
            self._wanted = True
            if self._thread is None:
                thread = threading.Thread(
                    target=self._serve, name="turnframe-sqlite-checkpoint", daemon=True
                )
                try:
                    thread.start()
                except Exception:  # no thread to be had now (a limit): ask again next time
                    logger.warning("no thread for WAL checkpoints; asking again", exc_info=True)
                    return
                self._thread = thread
            self._changed.notify()

    def _serve(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while True:
                with self._changed:
                    # No pass while the finish is owed: the two would meet (one of them busy).
                    while not ((self._wanted and not self.finish_owed) or self._stopping):
                        self._changed.wait()
                    if self._stopping:
                        return
                    self._wanted = False
                try:
                    if conn is None:
                        conn = sqlite3.connect(self._database, **_CONNECT_ARGS)
                    _catch_up(conn)
                except sqlite3.Error:
                    logger.warning("a WAL checkpoint failed; the next tries again", exc_info=True)
                else:
                    with self._changed:
                        self.finish_owed = True
                self.runs += 1
        finally:
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()

    def finish(self, conn: sqlite3.Connection) -> None:
        """On the store's connection, between its transactions: copy the frames appended since
        the thread's checkpoint (a few COMMITs' worth), without waiting for any lock."""
        try:
            busy, log, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error:
            logger.debug("a WAL checkpoint's finish could not run now", exc_info=True)
        else:
            self.complete += not busy and log == copied
        finally:
            with self._changed:  # the thread may take the next request now
                self.finish_owed = False
                self._changed.notify()

    async def aclose(self) -> None:
        """Stop the thread, after the checkpoint it may be running."""
        with self._changed:
            self._stopping = True
            self._changed.notify()
            thread = self._thread
        if thread is not None:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(thread.join)


#: The checkpointer's passes end when a pass copied at most this many frames (about what a few
#: COMMITs append): the store's connection finishes the rest between two of its transactions.
FEW_FRAMES = 48


def _catch_up(conn: sqlite3.Connection, passes: int = 4) -> None:
    """PASSIVE checkpoints, each copying what writers appended during the one before, until a
    pass copies only a few frames (or after ``passes``)."""
    copied_before = 0
    for _ in range(passes):
        _busy, _log, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if copied - copied_before <= FEW_FRAMES:
            return
        copied_before = copied
