"""``SqliteStore``: the embedded default :class:`~turnframe.stores.protocol.Store`.

Every method is one transaction: a short one (a point read, a turn's seal or commit bundle) runs
on the event loop's own thread while the connection's thread is idle, any other is sent to that
thread in one hop (see ``driver`` and ADR 0026); the SQL lives in ``ops``. Open it as an async
context manager::

    async with SqliteStore.open("turnframe.db") as store:   # or ":memory:"
        ...

Opening applies pending schema migrations and refuses a database written by a newer version.
The same class works on asyncio (through aiosqlite) and trio (through anyio worker threads).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import TypeVar

import anyio
import attrs

from turnframe.clock import Clock, SystemClock
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores.contention import current_guard
from turnframe.stores.errors import StatusConflict, StoreClosed
from turnframe.stores.fencing import current_target
from turnframe.stores.inbox import LeaseLogEntry
from turnframe.stores.inputs import (
    CardResolution,
    CommitBundle,
    JournalOutcome,
    NewCase,
    NewInteraction,
    NewJournalEntry,
    PhaseMove,
    TurnSeal,
    check_lease_terms,
    check_limit,
    check_worker,
)
from turnframe.stores.protocol import InsideTransactionHook
from turnframe.stores.recall import (
    NewRecallEntry,
    RecallCounts,
    RecallEntryRecord,
    RecallFound,
    RecallQuery,
    RecallRecord,
)
from turnframe.stores.records import (
    Admission,
    AssistantTurnRecord,
    BundleReceipt,
    CaseRecord,
    EventRecord,
    InteractionRecord,
    InteractionStatus,
    JournalRecord,
    Json,
    OutboxRecord,
    OutboxResult,
    OutboxStatus,
    SealReceipt,
    SessionLease,
    SessionRecord,
    TurnRecord,
    TurnStart,
)
from turnframe.stores.sqlite import schema, tx
from turnframe.stores.sqlite.codec import dump_time
from turnframe.stores.sqlite.driver import Driver, DriverName, LoopFirstDriver, WouldWait, connect
from turnframe.stores.sqlite.group import MAX_GROUP, GroupCommit
from turnframe.stores.sqlite.ops import bundle as bundle_ops
from turnframe.stores.sqlite.ops import (
    cases,
    contention,
    inbox,
    journal,
    leases,
    outbox,
    recall,
    turns,
)
from turnframe.stores.sqlite.ops import interactions as card_ops

T = TypeVar("T")
Body = Callable[[sqlite3.Connection], T]

#: Recall's full-text backlog is indexed with every this many write transactions (ADR 0025):
#: one FTS5 segment for the rows of ~32 turns instead of one per transaction.
RECALL_BATCH_WRITES = 64

#: A batch riding on a short write, which may run on the event loop's thread (ADR 0027), takes
#: at most this many text rows and this many characters of their stored JSON (a chat's ~32
#: turns weigh ~20-40k): bounded work, ~1 ms. Rows past the bound go with the next batch, sent
#: to the connection's thread.
LOOP_BATCH_ROWS = 4 * RECALL_BATCH_WRITES
LOOP_BATCH_CHARS = 128 * 1024


@attrs.frozen(kw_only=True)
class StoreTraffic:
    """What a store sent to its connection's thread (one hop per read and per write group)
    and what it ran on the loop's own thread (no hop; ADR 0026)."""

    reads: int
    group_sizes: dict[int, int]  # transactions in one commit → how many such commits
    reads_here: int = 0  # reads run on the loop's thread
    commits_here: int = 0  # write transactions committed on the loop's thread
    #: The loop's commits by how many transactions each carried (its groups, ADR 0029).
    loop_group_sizes: dict[int, int] = attrs.field(factory=dict)

    @property
    def commits(self) -> int:
        """Every COMMIT: the thread's groups and the loop's."""
        return sum(self.group_sizes.values()) + sum(self.loop_group_sizes.values())

    @property
    def transactions(self) -> int:
        return sum(size * count for size, count in self.group_sizes.items()) + self.commits_here

    @property
    def hops(self) -> int:
        """Trips to the connection's thread: a read, or a group of writes."""
        return self.reads + sum(self.group_sizes.values())


class SqliteStore:
    def __init__(
        self,
        driver: Driver,
        *,
        clock: Clock,
        location: str = ":memory:",
        group_commit_size: int = MAX_GROUP,
        group_commit_window: float = 0.0,
    ) -> None:
        self._driver = driver
        self.location = location  # the database path, as opened (recall's resume handles)
        self._clock = clock
        self._closed = False
        self._writer = GroupCommit(driver, max_group=group_commit_size, window=group_commit_window)
        self._reads = 0
        self._reads_here = 0
        self._here = driver if isinstance(driver, LoopFirstDriver) else None
        self._writes_unbatched = 0  # writes since recall's backlog last rode on one
        #: The last batch's bound, if it was bounded: whether it left rows behind.
        self._recall_left: recall.Backlog | None = None

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        database: str | os.PathLike[str] = ":memory:",
        *,
        clock: Clock | None = None,
        busy_timeout: float = 5.0,
        driver: DriverName = "auto",
        group_commit_size: int = MAX_GROUP,
        group_commit_window: float = 0.0,
    ) -> AsyncIterator[SqliteStore]:
        """Open (creating and migrating as needed) the database at ``database``.

        ``busy_timeout`` is how long a transaction waits for another process's lock before it
        is rolled back as :class:`StoreTimeout` (the wait happens on the connection's thread,
        never on the event loop). ``driver`` is picked from the running backend unless named:
        the default runs short transactions on the loop's thread when the connection's thread
        is idle (ADR 0026); ``"aiosqlite"`` (asyncio) and ``"thread"`` (any backend) send every
        transaction to the connection's thread.
        Write transactions queued together share one commit: at most ``group_commit_size``
        (1: a commit each), the first waiting ``group_commit_window`` seconds for more (0: none).
        """
        location = os.fspath(database)
        clock = clock or SystemClock()
        busy_ms = int(busy_timeout * 1000)
        conn = await connect(location, driver=driver, busy_timeout_ms=busy_ms)
        try:
            store = cls(
                conn,
                clock=clock,
                location=location,
                group_commit_size=group_commit_size,
                group_commit_window=group_commit_window,
            )
        except ValueError:
            await conn.aclose()
            raise
        try:
            await conn.run(lambda c: schema.configure(c, busy_timeout_ms=busy_ms))
            applied_at = dump_time(clock.now())
            await conn.run(lambda c: schema.migrate(c, location=location, applied_at=applied_at))
            yield store
        finally:
            store._closed = True
            with anyio.CancelScope(shield=True):
                await conn.aclose()

    # -- plumbing -----------------------------------------------------------------------------
    def _now(self) -> str:
        return dump_time(self._clock.now())

    async def _write(self, body: Body[T], *, short: bool = False) -> T:
        """One write transaction. ``short``: bounded work (a few rows by key), which may run on
        the loop's own thread when the connection's thread is idle (ADR 0026)."""
        if self._closed:
            raise StoreClosed()
        target = current_target()  # a leased runtime's session-scoped write (ADR 0018)
        if target is not None:
            body = inbox.fenced(body, target)
        guard = current_guard()  # a seal that must find its cases as it reduced them
        if guard is not None:
            body = contention.guarded(body, guard, self._now())
        self._writes_unbatched += 1
        if self._writes_unbatched >= RECALL_BATCH_WRITES:
            self._writes_unbatched = 0
            behind = self._recall_left is not None and self._recall_left.left
            if short and self._writer.runs_short_here and not behind:
                # Bounded: it may run on the loop with the write it rides on.
                self._recall_left = recall.Backlog(rows=LOOP_BATCH_ROWS, chars=LOOP_BATCH_CHARS)
                body = recall.indexing_after(body, self._recall_left)
            else:  # the whole backlog, however long: on the connection's thread
                self._recall_left = None
                body = recall.indexing_after(body)
                short = False
        return await self._writer.write(body, short=short)

    async def _read(self, body: Body[T], *, short: bool = False) -> T:
        """One read. ``short``: a point read (bounded rows by key), which may run on the loop's
        own thread when the connection's thread is idle (ADR 0026)."""
        if self._closed:
            raise StoreClosed()
        here = self._here
        if short and here is not None and await here.until_free():  # a moment's wait at most
            try:
                result = here.here(lambda conn: tx.read_here(conn, body))
            except WouldWait:
                pass  # the database is locked right now: the thread waits
            else:
                self._reads_here += 1
                return result
        self._reads += 1
        return await self._driver.run(tx.read(body))

    def traffic(self) -> StoreTraffic:
        """Thread hops and commits so far (reads, and write groups by size): for benchmarks."""
        return StoreTraffic(
            reads=self._reads,
            group_sizes=dict(self._writer.group_sizes),
            reads_here=self._reads_here,
            commits_here=self._writer.here_commits,
            loop_group_sizes=dict(self._writer.loop_group_sizes),
        )

    # -- sessions -----------------------------------------------------------------------------
    async def create_session(
        self,
        *,
        account_id: str,
        workflow: str,
        thread_context: Json = None,
        session_id: str | None = None,
    ) -> SessionRecord:
        now = self._now()
        return await self._write(
            lambda c: turns.create_session(
                c, account_id, session_id, workflow, thread_context, now
            ),
            short=True,
        )

    async def get_session(self, account_id: str, session_id: str) -> SessionRecord | None:
        return await self._read(lambda c: turns.get_session(c, account_id, session_id), short=True)

    async def list_sessions(self, account_id: str) -> list[SessionRecord]:
        return await self._read(lambda c: turns.list_sessions(c, account_id))

    async def save_thread_context(
        self, account_id: str, session_id: str, thread_context: Json
    ) -> None:
        await self._write(
            lambda c: turns.save_thread_context(c, account_id, session_id, thread_context),
            short=True,
        )

    # -- session leases -----------------------------------------------------------------------
    async def acquire_session_lease(
        self,
        account_id: str,
        session_id: str,
        *,
        worker_id: str,
        now: datetime,
        expires_at: datetime,
    ) -> SessionLease | None:
        check_lease_terms(worker_id, now, expires_at)
        at, until = dump_time(now), dump_time(expires_at)
        return await self._write(
            lambda c: leases.acquire(c, account_id, session_id, worker_id, at, until),
            short=True,
        )

    async def release_session_lease(
        self, account_id: str, session_id: str, *, worker_id: str
    ) -> bool:
        check_worker(worker_id)
        now = self._now()
        return await self._write(
            lambda c: leases.release(c, account_id, session_id, worker_id, now),
            short=True,
        )

    async def list_claimable_sessions(
        self, *, now: datetime, limit: int = 100
    ) -> list[SessionRecord]:
        check_limit(limit)
        at = dump_time(now)
        return await self._read(lambda c: leases.claimable(c, at, limit))

    # -- the turn inbox and workers (ADR 0018) ------------------------------------------------
    async def submit_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        now = self._now()
        return await self._write(
            lambda c: turns.record_user_turn(
                c, account_id, session_id, turn_id, payload, now, idempotency_key
            ),
            short=True,
        )

    async def list_pending_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        return await self._read(lambda c: inbox.pending(c, account_id, session_id))

    async def claim_sessions(
        self,
        *,
        worker_id: str,
        now: datetime,
        expires_at: datetime,
        limit: int = 10,
        workflows: Sequence[str] | None = None,
    ) -> list[SessionLease]:
        check_lease_terms(worker_id, now, expires_at)
        check_limit(limit)
        at, until = dump_time(now), dump_time(expires_at)
        names = None if workflows is None else tuple(workflows)
        return await self._write(lambda c: inbox.claim(c, worker_id, at, until, limit, names))

    async def renew_reduction(
        self, account_id: str, turn_id: str, *, expected: Json, reduction: Json
    ) -> TurnRecord:
        return await self._write(
            lambda c: contention.renew_reduction(c, account_id, turn_id, expected, reduction),
            short=True,
        )

    async def claim_case(
        self, account_id: str, case_id: str, *, turn_id: str, seconds: float
    ) -> bool:
        now = self._clock.now()
        at, until = dump_time(now), dump_time(now + timedelta(seconds=seconds))
        return await self._write(
            lambda c: contention.claim_case(c, account_id, case_id, turn_id, at, until),
            short=True,
        )

    async def release_case_claims(self, account_id: str, turn_id: str) -> None:
        await self._write(
            lambda c: contention.release_case_claims(c, account_id, turn_id), short=True
        )

    async def list_lease_log(
        self, *, account_id: str | None = None, session_id: str | None = None
    ) -> list[LeaseLogEntry]:
        return await self._read(lambda c: inbox.lease_log(c, account_id, session_id))

    # -- turns --------------------------------------------------------------------------------
    async def record_user_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        now = self._now()
        return await self._write(
            lambda c: turns.record_user_turn(
                c, account_id, session_id, turn_id, payload, now, idempotency_key
            ),
            short=True,
        )

    async def get_turn_by_idempotency_key(
        self, account_id: str, session_id: str, idempotency_key: str
    ) -> TurnRecord | None:
        return await self._read(
            lambda c: turns.get_turn_by_idempotency_key(c, account_id, session_id, idempotency_key),
            short=True,
        )

    async def get_turn(self, account_id: str, turn_id: str) -> TurnRecord | None:
        return await self._read(lambda c: turns.get_turn(c, account_id, turn_id), short=True)

    async def get_turn_start(self, account_id: str, turn_id: str) -> TurnStart:
        def body(c: sqlite3.Connection) -> TurnStart:
            # Two SELECTs, each its own snapshot: the turn and the listing are independent
            # (a case that moves in between is caught at the seal or the commit, ADR 0018).
            turn = turns.get_turn(c, account_id, turn_id)
            if turn is not None and turn.phase is not TurnPhase.RECEIVED:
                return TurnStart(turn=turn, cases=None)
            return TurnStart(turn=turn, cases=tuple(cases.list_cases(c, account_id, None, None)))

        return await self._read(body, short=True)

    async def list_session_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        return await self._read(lambda c: turns.list_session_turns(c, account_id, session_id))

    async def list_unfinished_turns(self, *, account_id: str | None) -> list[TurnRecord]:
        return await self._read(lambda c: turns.list_unfinished_turns(c, account_id))

    async def note_turn_failure(self, account_id: str, turn_id: str, *, signature: str) -> int:
        now = self._now()
        return await self._write(
            lambda c: turns.note_turn_failure(c, account_id, turn_id, signature, now),
            short=True,
        )

    async def advance_phase(
        self, account_id: str, turn_id: str, expected: TurnPhase, new: TurnPhase
    ) -> TurnRecord:
        now = self._now()
        move = PhaseMove(expected=expected, new=new)

        def body(c: sqlite3.Connection) -> TurnRecord:
            turns.move_phase(c, account_id, turn_id, move, now)
            return turns.require_turn(c, account_id, turn_id)

        return await self._write(body, short=True)

    async def save_plan(
        self, account_id: str, turn_id: str, plan: Json, *, phase: PhaseMove | None = None
    ) -> TurnRecord:
        now = self._now()

        def body(c: sqlite3.Connection) -> TurnRecord:
            turns.write_turn_payload(c, account_id, turn_id, "plan", plan)
            if phase is not None:
                turns.move_phase(c, account_id, turn_id, phase, now)
            return turns.require_turn(c, account_id, turn_id, plan=plan)

        return await self._write(body, short=True)

    async def save_reduction(
        self,
        account_id: str,
        turn_id: str,
        reduction: Json,
        *,
        interactions: Sequence[NewInteraction] = (),
        phase: PhaseMove | None = None,
    ) -> list[InteractionRecord]:
        now = self._now()
        cards = tuple(interactions)

        def body(c: sqlite3.Connection) -> list[InteractionRecord]:
            if turns.write_turn_payload(c, account_id, turn_id, "reduction", reduction):
                written = card_ops.insert(c, account_id, turn_id, cards, now)
            else:  # the same reduction again: a replay, its cards are already stored
                written = card_ops.of_turn(c, account_id, turn_id)
            if phase is not None:
                turns.move_phase(c, account_id, turn_id, phase, now)
            return written

        return await self._write(body, short=True)

    async def seal_turn(self, account_id: str, turn_id: str, seal: TurnSeal) -> SealReceipt:
        now = self._now()

        def body(c: sqlite3.Connection) -> SealReceipt:
            sealed, recorded = seal.sealed_turn(), False
            if seal.user_turn is not None:
                new = seal.user_turn
                if sealed is not None:  # one INSERT: the turn, its payloads and its phase
                    recorded = turns.record_sealed_turn(
                        c, account_id, new.session_id, turn_id, new.payload, sealed, now
                    )
                else:
                    turns.record_user_turn(c, account_id, new.session_id, turn_id, new.payload, now)
            if seal.plan is not None and not recorded:
                turns.write_turn_payload(c, account_id, turn_id, "plan", seal.plan)
            for interaction_id in seal.expired:
                closing = CardResolution(
                    interaction_id=interaction_id, status=InteractionStatus.EXPIRED
                )
                with contextlib.suppress(StatusConflict):  # closed already: nothing to do
                    card_ops.resolve(c, account_id, closing, now)
            if recorded or turns.write_turn_payload(
                c, account_id, turn_id, "reduction", seal.reduction
            ):
                cards = card_ops.insert(c, account_id, turn_id, seal.interactions, now)
            else:  # the same reduction again: a replay, its cards are already stored
                cards = card_ops.of_turn(c, account_id, turn_id)
            admitted = journal.admit(c, account_id, turn_id, seal.entries, now)
            if not recorded:
                turns.move_phase(c, account_id, turn_id, seal.phase, now)
            return SealReceipt(interactions=tuple(cards), admissions=tuple(admitted))

        return await self._write(body, short=True)

    # -- interactions -------------------------------------------------------------------------
    async def get_interaction(
        self, account_id: str, interaction_id: str
    ) -> InteractionRecord | None:
        return await self._read(lambda c: card_ops.get(c, account_id, interaction_id), short=True)

    async def list_open_interactions(
        self, account_id: str, *, session_id: str | None = None, case_id: str | None = None
    ) -> list[InteractionRecord]:
        return await self._read(
            lambda c: card_ops.list_open(c, account_id, session_id, case_id),
            short=session_id is not None or case_id is not None,  # an account's all: long
        )

    async def resolve_interaction(
        self, account_id: str, resolution: CardResolution
    ) -> InteractionRecord:
        now = self._now()
        return await self._write(
            lambda c: card_ops.resolve(c, account_id, resolution, now), short=True
        )

    # -- journal ------------------------------------------------------------------------------
    async def admit(
        self,
        account_id: str,
        turn_id: str,
        entries: Sequence[NewJournalEntry],
        *,
        phase: PhaseMove | None = None,
    ) -> list[Admission]:
        now = self._now()
        offered = tuple(entries)

        def body(c: sqlite3.Connection) -> list[Admission]:
            if not offered:
                turns.turn_exists(c, account_id, turn_id)
            answers = journal.admit(c, account_id, turn_id, offered, now)
            if phase is not None:
                turns.move_phase(c, account_id, turn_id, phase, now)
            return answers

        return await self._write(body, short=True)

    async def get_journal_entry(
        self, account_id: str, idempotency_key: str
    ) -> JournalRecord | None:
        return await self._read(lambda c: journal.get(c, account_id, idempotency_key), short=True)

    async def list_journal(self, account_id: str, turn_id: str) -> list[JournalRecord]:
        return await self._read(lambda c: journal.of_turn(c, account_id, turn_id), short=True)

    async def set_journal_status(
        self,
        account_id: str,
        idempotency_key: str,
        *,
        expected: JournalStatus,
        new: JournalStatus,
        outcome: Json | None = None,
    ) -> JournalRecord:
        now = self._now()
        change = JournalOutcome(
            idempotency_key=idempotency_key, expected=expected, status=new, outcome=outcome
        )

        def body(c: sqlite3.Connection) -> JournalRecord:
            journal.move(c, account_id, change, now)
            found = journal.get(c, account_id, idempotency_key)
            assert found is not None
            return found

        return await self._write(body, short=True)

    # -- cases and events ---------------------------------------------------------------------
    async def create_case(self, *, account_id: str, case: NewCase) -> CaseRecord:
        now = self._now()
        return await self._write(lambda c: cases.create(c, account_id, case, now), short=True)

    async def get_case(self, account_id: str, case_id: str) -> CaseRecord | None:
        return await self._read(lambda c: cases.get(c, account_id, case_id), short=True)

    async def list_cases(
        self, account_id: str, *, workflow: str | None = None, label: str | None = None
    ) -> list[CaseRecord]:
        return await self._read(
            lambda c: cases.list_cases(c, account_id, workflow, label),
            short=label is not None,  # an account's every case may be many
        )

    async def list_events(
        self,
        account_id: str,
        *,
        case_id: str | None = None,
        turn_id: str | None = None,
        after_seq: int = 0,
        limit: int | None = None,
    ) -> list[EventRecord]:
        return await self._read(
            lambda c: cases.list_events(c, account_id, case_id, turn_id, after_seq, limit)
        )

    # -- the commit bundle --------------------------------------------------------------------
    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        now = self._now()
        return await self._write(
            lambda c: bundle_ops.commit_bundle(c, bundle, inside_transaction, now),
            short=inside_transaction is None,  # a caller's hook runs where it always ran
        )

    # -- outbox -------------------------------------------------------------------------------
    async def claim_outbox(
        self,
        *,
        account_id: str | None,
        claim_token: str,
        now: datetime,
        lease_expires_at: datetime,
        limit: int = 16,
    ) -> list[OutboxRecord]:
        at, until = dump_time(now), dump_time(lease_expires_at)
        return await self._write(
            lambda c: outbox.claim(c, account_id, claim_token, at, until, limit)
        )

    async def settle_outbox(
        self,
        account_id: str,
        effect_id: str,
        *,
        claim_token: str,
        result: OutboxResult,
        outcome: Json | None = None,
        retry_at: datetime | None = None,
    ) -> OutboxRecord:
        now = self._now()
        retry = None if retry_at is None else dump_time(retry_at)
        return await self._write(
            lambda c: outbox.settle(
                c, account_id, effect_id, claim_token, result, outcome, retry, now
            ),
            short=True,
        )

    async def reconcile_outbox(
        self, account_id: str, effect_id: str, *, result: OutboxResult, outcome: Json | None = None
    ) -> OutboxRecord:
        now = self._now()
        return await self._write(
            lambda c: outbox.reconcile(c, account_id, effect_id, result, outcome, now)
        )

    async def release_expired_claims(
        self, *, now: datetime, resend_channels: Collection[str] | None = None
    ) -> int:
        resend = None if resend_channels is None else tuple(sorted(resend_channels))
        at = dump_time(now)
        return await self._write(lambda c: outbox.release_expired(c, at, resend))

    async def get_outbox(self, account_id: str, effect_id: str) -> OutboxRecord | None:
        return await self._read(lambda c: outbox.get(c, account_id, effect_id), short=True)

    async def list_outbox(
        self,
        account_id: str | None,
        *,
        status: OutboxStatus | None = None,
        turn_id: str | None = None,
    ) -> list[OutboxRecord]:
        return await self._read(lambda c: outbox.list_outbox(c, account_id, status, turn_id))

    # -- replay records and assistant turns ---------------------------------------------------
    async def save_replay_record(self, account_id: str, turn_id: str, record: Json) -> None:
        now = self._now()
        await self._write(
            lambda c: turns.save_replay_record(c, account_id, turn_id, record, now), short=True
        )

    async def get_replay_record(self, account_id: str, turn_id: str) -> Json | None:
        return await self._read(
            lambda c: turns.get_replay_record(c, account_id, turn_id), short=True
        )

    async def save_assistant_turn(
        self,
        account_id: str,
        turn_id: str,
        blocks: Json,
        *,
        meta: Json | None = None,
        thread_context: Json | None = None,
        phase: PhaseMove | None = None,
        interactions: Sequence[NewInteraction] = (),
        card_resolutions: Sequence[CardResolution] = (),
    ) -> AssistantTurnRecord:
        now = self._now()
        cards, closing = tuple(interactions), tuple(card_resolutions)

        def body(c: sqlite3.Connection) -> AssistantTurnRecord:
            fresh = turns.get_assistant_turn(c, account_id, turn_id) is None
            saved = turns.save_assistant_turn(
                c, account_id, turn_id, blocks, meta, thread_context, now
            )
            if fresh:  # a replay's cards were opened and closed with the first write
                card_ops.insert(c, account_id, turn_id, cards, now)
                for resolution in closing:
                    card_ops.resolve(c, account_id, resolution, now)
            if phase is not None:
                turns.move_phase(c, account_id, turn_id, phase, now)
            return saved

        return await self._write(body, short=True)

    async def get_assistant_turn(self, account_id: str, turn_id: str) -> AssistantTurnRecord | None:
        return await self._read(
            lambda c: turns.get_assistant_turn(c, account_id, turn_id), short=True
        )

    # -- recall -------------------------------------------------------------------------------
    async def write_recall_entry(self, account_id: str, entry: NewRecallEntry) -> None:
        now = self._now()
        await self._write(lambda c: recall.write_entry(c, account_id, entry, now), short=True)

    async def get_recall_entries(
        self, account_id: str, session_ids: Sequence[str]
    ) -> list[RecallEntryRecord]:
        ids = tuple(session_ids)
        return await self._read(lambda c: recall.entries(c, account_id, ids))

    async def list_recall_backlog(
        self, account_id: str, *, writer_version: int, everything: bool = False, limit: int = 1000
    ) -> list[SessionRecord]:
        check_limit(limit)
        return await self._read(
            lambda c: recall.backlog(c, account_id, writer_version, everything, limit)
        )

    async def find_recall(self, account_id: str, query: RecallQuery) -> RecallFound:
        return await self._read(lambda c: recall.find(c, account_id, query))

    async def count_recall_terms(
        self,
        account_id: str,
        *,
        terms: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        exclude_session: str | None = None,
        upto: int | None = None,
    ) -> RecallCounts:
        words, literals = tuple(terms), tuple(identifiers)
        return await self._read(
            lambda c: recall.counts(c, account_id, words, literals, exclude_session, upto)
        )

    async def read_recall_record(self, account_id: str, session_id: str) -> RecallRecord | None:
        return await self._read(lambda c: recall.record(c, account_id, session_id))
