"""Group commit: the write transactions waiting for the connection share one SQLite commit.

DESIGN §6: the connection's thread is the bottleneck, and each COMMIT writes every page the
transaction dirtied to the WAL. The classic design, which cannot lose to a commit each:

- **No wait when the writer is idle.** A transaction that finds no flush on its way sends one
  at once (one hop); with the default window of 0 it never sleeps.
- **Transactions arriving while a flush is in flight queue up, and the next flush takes them
  all.** A flush is a function sent to the connection's thread; it takes its group from the
  queue *when the thread starts it*, not when it was sent. At most one flush waits behind the
  running one, so when a COMMIT ends the thread goes straight to the next group, without a
  round trip through the event loop; everything queued by then shares that group's COMMIT.
- One flush is ``BEGIN IMMEDIATE``, each body inside its own ``SAVEPOINT`` (a body that raises
  is rolled back alone and gets its own error), then one ``COMMIT``. A body whose error made
  SQLite roll back the whole transaction (I/O, disk full, interrupt) gets its error and the
  others run again without it, in a fresh transaction: one failing transaction never fails or
  half-applies another. A group of one is a plain transaction (no savepoint).
- No caller is answered before its group's COMMIT returned, so nothing is acknowledged before
  it is durable, and a failed COMMIT fails every body of the group with nothing written.

The caller that sends a flush waits for it shielded (its group completes whole or not at all)
and then wakes the group's other callers. A caller cancelled while its transaction is still
queued is taken out of the queue (it never runs); once a flush took it, it commits or rolls
back with its group. The queue is shared with the connection's thread under a lock.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import Counter, deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import anyio

from turnframe.stores.errors import StoreTimeout
from turnframe.stores.sqlite.driver import Driver, LoopFirstDriver, WouldWait
from turnframe.stores.sqlite.tx import is_busy, run_write, run_write_here

T = TypeVar("T")
Body = Callable[[sqlite3.Connection], T]

#: At most this many transactions share one commit (the default).
MAX_GROUP = 32

#: At most this many transactions share one commit on the loop's thread: the loop runs
#: nothing else while it commits them (~0.1-0.3 ms each).
LOOP_GROUP = 16

#: After this many loop groups in a row that nobody joined, a short write commits at once,
#: without yielding for others first (a session writing alone pays no wait)...
LONELY_GROUPS = 8
#: ... except every this many writes, which open a group again to see whether others join.
PROBE_EVERY = 64


class _Job(Generic[T]):
    __slots__ = ("body", "done", "error", "group", "lead", "result", "wake")

    def __init__(self, body: Body[T]) -> None:
        self.body = body
        self.group: list[_Job[Any]] | None = None  # the loop group it is in, until settled
        self.wake: anyio.Event | None = None  # made when the caller waits (a sender does not)
        self.lead = False  # this caller was handed the duty to send the next flush
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None

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
    ``window``: seconds the sender of a flush waits for more transactions before it sends a
    group smaller than ``max_group`` (0: it sends at once; the transactions that arrive while
    it is in flight form the next group)."""

    def __init__(self, driver: Driver, *, max_group: int = MAX_GROUP, window: float = 0.0) -> None:
        if max_group < 1:
            raise ValueError(f"group commit: max_group must be at least 1, got {max_group}")
        if not 0 <= window < 1:
            raise ValueError(f"group commit: window must be in [0, 1) seconds, got {window}")
        self._driver = driver
        self._max_group = max_group
        self._window = window
        self._lock = threading.Lock()  # the queue and the flag below, shared with the thread
        self._queue: deque[_Job[Any]] = deque()
        #: True while a flush is on its way to the queue: one was sent and has not taken its
        #: group yet, or a caller is about to send one (its window, or handed the duty). While
        #: it is set, an arriving transaction just queues; a flush clears it as it takes.
        self._flush_owed = False
        #: How many transactions each commit carried (group size → commits), for benchmarks.
        self.group_sizes: Counter[int] = Counter()
        #: The loop's own turn at the connection, when the driver gives one (ADR 0026).
        self._here = driver if isinstance(driver, LoopFirstDriver) else None
        #: Transactions committed on the loop's thread (no hop), for benchmarks.
        self.here_commits = 0
        #: How many transactions each commit on the loop's thread carried, for benchmarks.
        self.loop_group_sizes: Counter[int] = Counter()
        #: The loop group forming now (its leader yields once before committing it).
        self._loop_group: list[_Job[Any]] | None = None
        #: A loop group runs on the loop's thread, which nothing else uses meanwhile.
        self._loop_max = min(max_group, LOOP_GROUP)
        self._lonely = 0  # loop groups in a row that nobody joined
        self._taken: list[_Job[Any]] = []  # the group the last flush took (to wake on failure)
        self._unprobed = 0  # writes that opened no group since the last that did

    @property
    def runs_short_here(self) -> bool:
        """Whether a short write may run on the loop's thread (the driver gives the loop a turn
        and no window asks for groups)."""
        return self._here is not None and not self._window

    async def write(self, body: Body[T], *, short: bool = False) -> T:
        """Commit ``body`` as (part of) one transaction. ``short``: bounded work, which runs on
        the loop's thread once nothing waits for the connection's thread, unless a window is
        set (then it is a transaction of its own: there is no group to join). Short writes
        that arrive on the loop together share one commit there (a loop group)."""
        here = self._here
        if (
            short
            and here is not None
            and not self._window  # a window asks for groups: they form on the thread
            and await here.until_free()  # a moment's wait, not a trip behind the thread
            and not self._flush_owed
            and not self._queue
        ):
            group = self._loop_group
            if group is None and self._worth_a_group():
                return await self._lead_loop_group(here, body)
            if group is not None and len(group) < self._loop_max:  # forming now: join it
                member: _Job[T] = _Job(body)
                member.wake = anyio.Event()
                member.group = group
                group.append(member)
                return await self._wait_turn(member)
            alone: _Job[T] = _Job(body)  # alone lately, or the group is full: at once
            try:
                self._commit_here(here, [alone])
            except WouldWait:
                pass  # another process holds the lock: the thread waits for it
            else:
                return alone.outcome()
        job: _Job[T] = _Job(body)
        with self._lock:
            self._queue.append(job)
            send = not self._flush_owed
            if send:
                self._flush_owed = True
            else:
                job.wake = anyio.Event()
        if not send:
            try:
                await job.wake.wait()  # type: ignore[union-attr]
            except BaseException:
                self._withdraw(job)
                raise
            if job.done:
                return job.outcome()
            # else: handed the duty to send (the group before left it behind)
        return await self._send(job)

    async def _send(self, job: _Job[T]) -> T:
        """Send flushes until ``job``'s group is committed, then hand the duty on."""
        if self._window:
            try:
                if len(self._queue) < self._max_group:
                    await anyio.sleep(self._window)  # let more transactions join this group
            except BaseException:
                self._withdraw(job)
                raise
        with anyio.CancelScope(shield=True):
            while not job.done:
                await self._flush()
            self._hand_over()
        return job.outcome()

    def _worth_a_group(self) -> bool:
        """Whether a write should open a loop group (and yield once for others to join): not
        after :data:`LONELY_GROUPS` groups in a row that nobody joined (one session writing
        alone), except every :data:`PROBE_EVERY` th write, which looks again."""
        if self._loop_max == 1:
            return False  # a commit each: nobody could join
        if self._lonely < LONELY_GROUPS:
            return True
        self._unprobed += 1
        if self._unprobed < PROBE_EVERY:
            return False
        self._unprobed = 0
        return True

    async def _lead_loop_group(self, here: LoopFirstDriver, body: Body[T]) -> T:
        """Open a loop group with ``body``, let the tasks ready now run once (their short
        writes join it), then commit the group on the loop's thread: one ``BEGIN IMMEDIATE``,
        a savepoint per body, one ``COMMIT`` (as a thread group, :func:`_run_group`). No
        member is answered before the COMMIT; a member in the group commits or rolls back
        with it. A leader cancelled while the group forms leaves its own body out (it never
        runs) and still settles the others' before it leaves."""
        job: _Job[T] = _Job(body)
        job.wake = anyio.Event()
        group: list[_Job[Any]] = [job]
        job.group = group
        self._loop_group = group
        try:
            await anyio.lowlevel.checkpoint()  # the others join meanwhile
        except BaseException:
            self._loop_group = None
            group.remove(job)
            if group:
                with anyio.CancelScope(shield=True):
                    await self._settle(here, group, None)
            raise
        self._loop_group = None  # closed: later writers open their own
        await self._settle(here, group, job)
        return await self._wait_turn(job)

    async def _settle(
        self, here: LoopFirstDriver, group: list[_Job[Any]], own: _Job[Any] | None
    ) -> None:
        """Commit a closed loop group on the loop's thread and wake its members; when the
        loop's turn is gone meanwhile (the thread has work) or another process holds the lock,
        queue what is left of it for the thread, in order. ``own``: the leader's job. A leader
        cancelled while it waits for the loop's turn (asyncio's own cancellation passes a
        shield) leaves its body out and queues the others' for the thread; an error (the store
        closed) is every member's."""
        cancelled: BaseException | None = None
        try:
            with anyio.CancelScope(shield=True):
                free = await here.until_free()
            if free and not self._flush_owed and not self._queue:
                # WouldWait: rolled back whole, what is left goes to the thread (below)
                with contextlib.suppress(WouldWait):
                    self._commit_here(here, group)
        except anyio.get_cancelled_exc_class() as error:
            cancelled = error
            if own is not None and own in group:
                group.remove(own)  # the leader leaves: its body never runs
        except BaseException as error:  # the store closed, say: every member learns it
            for member in group:
                member.group = None
                if not member.done:
                    member.result, member.error, member.done = None, error, True
                member.set_wake()
            raise
        for member in group:
            member.group = None
        left = [member for member in group if not member.done]
        for member in group:
            if member.done:
                member.set_wake()
        if left:
            self._requeue(left)
        if cancelled is not None:
            raise cancelled

    def _commit_here(self, here: LoopFirstDriver, group: list[_Job[Any]]) -> None:
        """Commit ``group`` on the loop's thread; :class:`WouldWait` (nothing written) when
        another process holds the lock."""
        if len(group) == 1:  # a plain transaction: no savepoint
            job = group[0]
            try:
                job.result = here.here(lambda conn: run_write_here(conn, job.body), commits=True)
            except WouldWait:
                raise
            except BaseException as error:  # rolled back; handed to that job's caller
                job.error, job.done = error, True
                return
            job.done = True
        else:
            here.here(lambda conn: _run_group(conn, group, here=True), commits=True)
        self.here_commits += len(group)
        self.loop_group_sizes[len(group)] += 1
        self._lonely = self._lonely + 1 if len(group) == 1 else 0

    def _requeue(self, jobs: list[_Job[Any]]) -> None:
        """Jobs of a loop group that could not commit there queue for the thread, in order;
        when no flush is on its way, the first of them sends the next."""
        with self._lock:
            self._queue.extend(jobs)
            if self._flush_owed:
                return  # a flush on its way takes them
            self._flush_owed = True
            heir = jobs[0]
            heir.lead = True
        heir.set_wake()

    async def _wait_turn(self, job: _Job[T]) -> T:
        """A loop group member's wait (shielded: it is in a group) until it is answered or
        handed the duty to send the next flush. asyncio's own cancellation passes the shield:
        the member then leaves its group before it is committed (its body never runs) or the
        queue (its duty to send passed on), as a caller leaving the queue does."""
        try:
            with anyio.CancelScope(shield=True):
                await job.wake.wait()  # type: ignore[union-attr]
        except BaseException:
            group = job.group
            if group is not None and job in group and not job.done:
                group.remove(job)
            else:
                self._withdraw(job)
            raise
        if job.done:
            return job.outcome()
        return await self._send(job)

    async def _flush(self) -> None:
        """Send one flush and wake the callers of the group it took."""
        self._taken = []
        try:
            group = await self._driver.run(self._take_and_commit)
        except BaseException as error:  # the flush failed (the connection is gone, say)
            with self._lock:
                group = list(self._queue)
                self._queue.clear()
                self._flush_owed = False
            for member in group:
                member.result, member.error, member.done = None, error, True
                member.set_wake()
            for member in self._taken:  # a group it took and answered: wake them too
                if member.done:
                    member.set_wake()
            raise
        for member in group:
            member.set_wake()

    def _take_and_commit(self, conn: sqlite3.Connection) -> list[_Job[Any]]:
        """On the connection's thread: take what is queued now, commit it as one group."""
        queue = self._queue
        with self._lock:
            # From here the next arrival sends the next flush (it waits behind this one on
            # the thread); any left behind (more than a group) are seen to by this flush's
            # sender when it is done (``_hand_over``).
            self._flush_owed = False
            if len(queue) <= self._max_group:
                group = list(queue)
                queue.clear()
            else:
                group = [queue.popleft() for _ in range(self._max_group)]
        self._taken = group
        size = len(group)
        if size == 1:
            self.group_sizes[1] += 1
            job = group[0]
            try:
                job.result = run_write(conn, job.body)
            except BaseException as error:  # handed to that job's caller
                job.error = error
            job.done = True
        elif size:
            self.group_sizes[size] += 1
            _run_group(conn, group)
        return group

    def _withdraw(self, job: _Job[Any]) -> None:
        """A caller leaves before its transaction was taken (cancelled): it never runs."""
        with self._lock:
            if job in self._queue:
                self._queue.remove(job)
            # It was to send the next flush (in its window, or handed the duty): pass it on.
            duty = (job.lead or job.wake is None) and not job.done
            if duty:
                self._flush_owed = False
        if duty:
            self._hand_over()

    def _hand_over(self) -> None:
        """After a sender is done: if transactions wait (a group left them behind) and no flush
        is on its way for them, the first of them sends the next one."""
        with self._lock:
            if self._flush_owed or not self._queue:
                return  # a flush on its way takes them, or nothing waits
            self._flush_owed = True
            heir = self._queue[0]
            heir.lead = True
        heir.set_wake()


def _run_group(conn: sqlite3.Connection, group: list[_Job[Any]], *, here: bool = False) -> None:
    """One transaction for the whole group, on the connection's thread (or, ``here``, on the
    loop's). Fills in every job's answer (the callers are woken on the event loop's thread).
    ``here``: a lock held by another process raises :class:`WouldWait` with nothing written
    and the jobs not yet answered left unanswered, to run again on the thread."""
    todo = list(group)
    while todo:
        answers: list[tuple[_Job[Any], Any, BaseException | None]] = []
        culprit: tuple[_Job[Any], BaseException] | None = None
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in todo:
                conn.execute("SAVEPOINT turnframe_job")
                try:
                    result = job.body(conn)
                except Exception as refused:
                    if not conn.in_transaction:  # SQLite rolled the whole transaction back
                        culprit = (job, refused)
                        break
                    conn.execute("ROLLBACK TO turnframe_job")
                    conn.execute("RELEASE turnframe_job")
                    answers.append((job, None, refused))
                    continue
                conn.execute("RELEASE turnframe_job")
                answers.append((job, result, None))
            if culprit is None:
                conn.execute("COMMIT")
        except BaseException as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            failure: BaseException = error
            if isinstance(error, sqlite3.OperationalError) and is_busy(error):
                if here:
                    raise WouldWait(str(error)) from error
                failure = StoreTimeout(
                    f"the database stayed locked; the transaction was rolled back ({error})"
                )
            for job in todo:  # nothing of the group was written
                job.result, job.error, job.done = None, failure, True
            return
        if culprit is None:
            for job, result, own_error in answers:
                job.result, job.error, job.done = result, own_error, True
            return
        # The culprit took the whole transaction down with it: it gets its error, and the
        # others (rolled back with it, nothing of them written) run again without it.
        failed, own = culprit
        failed.result, failed.error, failed.done = None, own, True
        todo.remove(failed)
