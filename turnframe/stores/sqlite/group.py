"""Group commit: the write transactions waiting for the connection share one SQLite commit.

DESIGN §6: the connection's thread is the bottleneck, and each COMMIT writes every page the
transaction dirtied to the WAL. When several sessions' transactions are queued at once, one
leader sends them to the connection's thread together: ``BEGIN IMMEDIATE``, then each body
inside its own ``SAVEPOINT`` (a body that raises is rolled back alone and gets its own error),
then one ``COMMIT``. No caller is answered before that COMMIT, so nothing is acknowledged
before it is durable, and a failed COMMIT fails every body of the group with nothing written.

Leadership passes on after each group, so a caller waits for at most its own group: the
first queued caller leads the next group. A caller cancelled while queued is taken out of the
queue (its transaction never runs); once its group is sent it completes whole or not at all.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import anyio

from turnframe.stores.errors import StoreTimeout
from turnframe.stores.sqlite.driver import Driver
from turnframe.stores.sqlite.tx import is_busy, write

T = TypeVar("T")
Body = Callable[[sqlite3.Connection], T]

#: At most this many transactions share one commit (the default).
MAX_GROUP = 32


class _Job(Generic[T]):
    __slots__ = ("body", "done", "error", "result", "wake")

    def __init__(self, body: Body[T]) -> None:
        self.body = body
        self.wake: anyio.Event | None = None  # made when the caller waits (a leader does not)
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self.result, self.error, self.done = result, error, True
        self.set_wake()

    def set_wake(self) -> None:
        if self.wake is not None:
            self.wake.set()

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        result: T = self.result
        return result


class GroupCommit:
    """``max_group``: at most this many transactions per commit (1: a commit each).
    ``window``: seconds a group's leader waits for more transactions before it sends a group
    smaller than ``max_group`` (0: it sends what is queued at once; the transactions that
    arrive meanwhile form the next group)."""

    def __init__(self, driver: Driver, *, max_group: int = MAX_GROUP, window: float = 0.0) -> None:
        if max_group < 1:
            raise ValueError(f"group commit: max_group must be at least 1, got {max_group}")
        if not 0 <= window < 1:
            raise ValueError(f"group commit: window must be in [0, 1) seconds, got {window}")
        self._driver = driver
        self._max_group = max_group
        self._window = window
        self._queue: list[_Job[Any]] = []
        self._leader: _Job[Any] | None = None
        #: How many transactions each commit carried (group size → commits), for benchmarks.
        self.group_sizes: Counter[int] = Counter()

    async def write(self, body: Body[T]) -> T:
        job: _Job[T] = _Job(body)
        self._queue.append(job)
        if self._leader is None:
            self._leader = job
        else:
            job.wake = anyio.Event()
            try:
                await job.wake.wait()
            except BaseException:
                if not job.done:
                    self._withdraw(job)
                raise
            if job.done:
                return job.outcome()
        if self._window and len(self._queue) < self._max_group:
            try:
                await anyio.sleep(self._window)  # let more transactions join this group
            except BaseException:
                self._withdraw(job)
                raise
        with anyio.CancelScope(shield=True):
            group = self._queue[: self._max_group]
            del self._queue[: len(group)]
            await self._send(group)
            self._hand_over()
        return job.outcome()

    def _withdraw(self, job: _Job[Any]) -> None:
        if job in self._queue:
            self._queue.remove(job)
        if self._leader is job:
            self._hand_over()

    def _hand_over(self) -> None:
        self._leader = self._queue[0] if self._queue else None
        if self._leader is not None:
            self._leader.set_wake()

    async def _send(self, group: list[_Job[Any]]) -> None:
        self.group_sizes[len(group)] += 1
        if len(group) == 1:
            job = group[0]
            try:
                job.finish(await self._driver.run(write(job.body)))
            except BaseException as error:  # handed to that job's caller
                job.finish(error=error)
            return
        try:
            await self._driver.run(lambda conn: _run_group(conn, group))
        except BaseException as error:  # the group as a whole failed: nothing was written
            for job in group:
                if not job.done:
                    job.result, job.error, job.done = None, error, True
        for job in group:  # answers were filled in on the connection's thread; wake here
            job.set_wake()


def _run_group(conn: sqlite3.Connection, group: list[_Job[Any]]) -> None:
    """One transaction for the whole group; runs on the connection's thread."""
    answers: list[tuple[_Job[Any], Any, BaseException | None]] = []
    try:
        conn.execute("BEGIN IMMEDIATE")
        for job in group:
            conn.execute("SAVEPOINT turnframe_job")
            try:
                result = job.body(conn)
            except Exception as refused:
                if not conn.in_transaction:
                    raise  # SQLite rolled the whole transaction back: the group fails
                conn.execute("ROLLBACK TO turnframe_job")
                conn.execute("RELEASE turnframe_job")
                answers.append((job, None, refused))
                continue
            conn.execute("RELEASE turnframe_job")
            answers.append((job, result, None))
        conn.execute("COMMIT")
    except BaseException as error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        failure: BaseException = error
        if isinstance(error, sqlite3.OperationalError) and is_busy(error):
            failure = StoreTimeout(
                f"the database stayed locked; the transaction was rolled back ({error})"
            )
        for job in group:
            job.result, job.error, job.done = None, failure, True
        raise failure from error
    for job, result, own_error in answers:
        job.result, job.error, job.done = result, own_error, True
