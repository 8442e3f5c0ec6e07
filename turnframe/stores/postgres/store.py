"""``PostgresStore``: the :class:`~turnframe.stores.protocol.Store` many workers share.

Every method is one transaction on a connection borrowed from an asyncpg pool (see ``tx``); the
SQL lives in ``ops``. Open it as an async context manager::

    async with PostgresStore.open("postgresql://app@db/turnframe") as store:
        ...

Opening creates the schema (``turnframe`` unless told) if needed, applies pending migrations
and refuses a schema written by a newer version. asyncpg runs on asyncio only: opening the
store under trio raises :class:`~turnframe.stores.postgres.errors.AsyncioRequired`.
"""

from __future__ import annotations

import asyncio  # asyncio-ok: only to tell whether an asyncio loop runs (asyncpg needs one)
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any, TypeVar

import anyio
import asyncpg

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
from turnframe.stores.postgres import schema as migrations
from turnframe.stores.postgres import tx
from turnframe.stores.postgres.codec import instant
from turnframe.stores.postgres.errors import AsyncioRequired
from turnframe.stores.postgres.listen import listening
from turnframe.stores.postgres.ops import bundle as bundle_ops
from turnframe.stores.postgres.ops import (
    cases,
    contention,
    inbox,
    journal,
    leases,
    outbox,
    recall,
    turns,
)
from turnframe.stores.postgres.ops import interactions as card_ops
from turnframe.stores.postgres.tx import Conn
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

T = TypeVar("T")
Body = Callable[[Conn], Awaitable[T]]


def _running_on_asyncio() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


#: At most this many journal entries are admitted in the statement that records a live turn
#: (each count is its own prepared statement).
_MOST_ADMITTED_TOGETHER = 4


def _admitted_together(seal: TurnSeal) -> bool:
    """Whether a live turn's entries are admitted in the statement that records the turn: a
    few, on distinct keys (two inserts of one key in one statement would not see each other),
    and no cards to open or close (their rows are locked before the journal's, one by one)."""
    if seal.interactions or seal.expired:
        return False
    keys = {entry.idempotency_key for entry in seal.entries}
    return len(keys) == len(seal.entries) <= _MOST_ADMITTED_TOGETHER


async def _keep_session(conn: Any) -> None:
    """Skip asyncpg's per-release reset query (a round trip on every call). The store sets no
    session state (no ``SET``, session locks, cursors or ``LISTEN``), and asyncpg still rolls
    back any transaction left open before this runs."""


class PostgresStore:
    def __init__(self, pool: Any, *, clock: Clock, acquire_timeout: float) -> None:
        self._pool = pool
        self._clock = clock
        self._acquire_timeout = acquire_timeout
        self._closed = False

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        dsn: str,
        *,
        schema: str = "turnframe",
        clock: Clock | None = None,
        lock_timeout: float = 5.0,
        acquire_timeout: float = 10.0,
        min_connections: int = 1,
        max_connections: int = 10,
    ) -> AsyncIterator[PostgresStore]:
        """Open a pool on ``dsn`` and migrate ``schema`` (created if missing).

        ``lock_timeout`` is how long a statement waits for a row or table lock before the server
        rolls its transaction back (:class:`StoreTimeout`, nothing written);
        ``acquire_timeout`` is how long a call waits for a free pooled connection.
        """
        if not _running_on_asyncio():
            raise AsyncioRequired()
        migrations.check_schema_name(schema)
        clock = clock or SystemClock()
        pool = await asyncpg.create_pool(
            dsn,
            min_size=min_connections,
            max_size=max_connections,
            reset=_keep_session,
            server_settings={
                "search_path": schema,
                "lock_timeout": f"{max(1, round(lock_timeout * 1000))}ms",
                "application_name": "turnframe",
            },
        )
        store = cls(pool, clock=clock, acquire_timeout=acquire_timeout)
        try:
            applied_at = instant(clock.now())
            await store._write(
                lambda c: migrations.migrate(c, schema=schema, applied_at=applied_at)
            )
            yield store
        finally:
            store._closed = True
            with anyio.CancelScope(shield=True):
                await pool.close()

    @asynccontextmanager
    async def listen(self, channel: str, callback: Callable[[str], None]) -> AsyncIterator[None]:
        """Call ``callback(payload)`` for each ``NOTIFY`` on ``channel`` while the block runs,
        on a connection of its own taken from the pool (workers: ``turnframe_inbox``)."""
        async with listening(self._pool, channel, callback):
            yield

    # -- plumbing -----------------------------------------------------------------------------
    def _now(self) -> datetime:
        return instant(self._clock.now())

    async def _write(self, body: Body[T]) -> T:
        if self._closed:
            raise StoreClosed()
        target = current_target()  # a leased runtime's session-scoped write (ADR 0018)
        if target is not None:
            body = inbox.fenced(body, target)
        guard = current_guard()  # a seal that must find its cases as it reduced them
        if guard is not None:
            body = contention.guarded(body, guard, self._now())
        return await tx.write(self._pool, body, acquire_timeout=self._acquire_timeout)

    async def _read(self, body: Body[T]) -> T:
        if self._closed:
            raise StoreClosed()
        return await tx.read(self._pool, body, acquire_timeout=self._acquire_timeout)

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
            lambda c: turns.create_session(c, account_id, session_id, workflow, thread_context, now)
        )

    async def get_session(self, account_id: str, session_id: str) -> SessionRecord | None:
        return await self._read(lambda c: turns.get_session(c, account_id, session_id))

    async def list_sessions(self, account_id: str) -> list[SessionRecord]:
        return await self._read(lambda c: turns.list_sessions(c, account_id))

    async def save_thread_context(
        self, account_id: str, session_id: str, thread_context: Json
    ) -> None:
        await self._write(
            lambda c: turns.save_thread_context(c, account_id, session_id, thread_context)
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
        at, until = instant(now), instant(expires_at)
        return await self._write(
            lambda c: leases.acquire(c, account_id, session_id, worker_id, at, until)
        )

    async def release_session_lease(
        self, account_id: str, session_id: str, *, worker_id: str
    ) -> bool:
        check_worker(worker_id)
        now = self._now()
        return await self._write(
            lambda c: leases.release(c, account_id, session_id, worker_id, now)
        )

    async def list_claimable_sessions(
        self, *, now: datetime, limit: int = 100
    ) -> list[SessionRecord]:
        check_limit(limit)
        at = instant(now)
        # A write: the scan locks the rows it returns (SKIP LOCKED) inside one transaction.
        return await self._write(lambda c: leases.claimable(c, at, limit))

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
            lambda c: inbox.submit(
                c, account_id, session_id, turn_id, payload, now, idempotency_key
            )
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
        at, until = instant(now), instant(expires_at)
        names = None if workflows is None else tuple(workflows)
        return await self._write(lambda c: inbox.claim(c, worker_id, at, until, limit, names))

    async def renew_reduction(
        self, account_id: str, turn_id: str, *, expected: Json, reduction: Json
    ) -> TurnRecord:
        return await self._write(
            lambda c: contention.renew_reduction(c, account_id, turn_id, expected, reduction)
        )

    async def claim_case(
        self, account_id: str, case_id: str, *, turn_id: str, seconds: float
    ) -> bool:
        now = self._clock.now()
        at, until = instant(now), instant(now + timedelta(seconds=seconds))
        return await self._write(
            lambda c: contention.claim_case(c, account_id, case_id, turn_id, at, until)
        )

    async def release_case_claims(self, account_id: str, turn_id: str) -> None:
        await self._write(lambda c: contention.release_case_claims(c, account_id, turn_id))

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
            )
        )

    async def get_turn_by_idempotency_key(
        self, account_id: str, session_id: str, idempotency_key: str
    ) -> TurnRecord | None:
        return await self._read(
            lambda c: turns.get_turn_by_idempotency_key(c, account_id, session_id, idempotency_key)
        )

    async def get_turn(self, account_id: str, turn_id: str) -> TurnRecord | None:
        return await self._read(lambda c: turns.get_turn(c, account_id, turn_id))

    async def get_turn_start(self, account_id: str, turn_id: str) -> TurnStart:
        return await self._read(lambda c: turns.get_turn_start(c, account_id, turn_id))

    async def list_session_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        return await self._read(lambda c: turns.list_session_turns(c, account_id, session_id))

    async def list_unfinished_turns(self, *, account_id: str | None) -> list[TurnRecord]:
        return await self._read(lambda c: turns.list_unfinished_turns(c, account_id))

    async def note_turn_failure(self, account_id: str, turn_id: str, *, signature: str) -> int:
        now = self._now()
        return await self._write(
            lambda c: turns.note_turn_failure(c, account_id, turn_id, signature, now)
        )

    async def advance_phase(
        self, account_id: str, turn_id: str, expected: TurnPhase, new: TurnPhase
    ) -> TurnRecord:
        now = self._now()
        move = PhaseMove(expected=expected, new=new)
        return await self._write(lambda c: turns.move_phase(c, account_id, turn_id, move, now))

    async def save_plan(
        self, account_id: str, turn_id: str, plan: Json, *, phase: PhaseMove | None = None
    ) -> TurnRecord:
        now = self._now()

        async def body(c: Conn) -> TurnRecord:
            written = await turns.write_turn_payload(c, account_id, turn_id, "plan", plan)
            if phase is not None:
                return await turns.move_phase(c, account_id, turn_id, phase, now)
            return written or await turns.require_turn(c, account_id, turn_id)

        return await self._write(body)

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

        async def body(c: Conn) -> list[InteractionRecord]:
            if await turns.write_turn_payload(c, account_id, turn_id, "reduction", reduction):
                written = await card_ops.insert(c, account_id, turn_id, cards, now)
            else:  # the same reduction again: a replay, its cards are already stored
                written = await card_ops.of_turn(c, account_id, turn_id)
            if phase is not None:
                await turns.move_phase(c, account_id, turn_id, phase, now)
            return written

        return await self._write(body)

    async def seal_turn(self, account_id: str, turn_id: str, seal: TurnSeal) -> SealReceipt:
        now = self._now()

        async def body(c: Conn) -> SealReceipt:
            sealed, recorded = seal.sealed_turn(), False
            admitted: list[Admission] | None = None
            if seal.user_turn is not None:
                new = seal.user_turn
                if sealed is not None:  # one statement: the turn, its payloads, its phase
                    entries = seal.entries if _admitted_together(seal) else ()
                    recorded, admitted = await turns.record_sealed_turn(
                        c, account_id, new.session_id, turn_id, new.payload, sealed, now, entries
                    )  # and its commands, when they were admitted with it
                else:
                    await turns.record_user_turn(
                        c, account_id, new.session_id, turn_id, new.payload, now
                    )
            if seal.plan is not None and not recorded:
                await turns.write_turn_payload(c, account_id, turn_id, "plan", seal.plan)
            for interaction_id in seal.expired:
                closing = CardResolution(
                    interaction_id=interaction_id, status=InteractionStatus.EXPIRED
                )
                with contextlib.suppress(StatusConflict):  # closed already: nothing to do
                    await card_ops.resolve(c, account_id, closing, now)
            if recorded or await turns.write_turn_payload(
                c, account_id, turn_id, "reduction", seal.reduction
            ):
                cards = await card_ops.insert(c, account_id, turn_id, seal.interactions, now)
            else:  # the same reduction again: a replay, its cards are already stored
                cards = await card_ops.of_turn(c, account_id, turn_id)
            if admitted is None:
                admitted = await journal.admit(c, account_id, turn_id, seal.entries, now)
            if not recorded:
                await turns.move_phase(c, account_id, turn_id, seal.phase, now)
            return SealReceipt(interactions=tuple(cards), admissions=tuple(admitted))

        return await self._write(body)

    # -- interactions -------------------------------------------------------------------------
    async def get_interaction(
        self, account_id: str, interaction_id: str
    ) -> InteractionRecord | None:
        return await self._read(lambda c: card_ops.get(c, account_id, interaction_id))

    async def list_open_interactions(
        self, account_id: str, *, session_id: str | None = None, case_id: str | None = None
    ) -> list[InteractionRecord]:
        return await self._read(lambda c: card_ops.list_open(c, account_id, session_id, case_id))

    async def resolve_interaction(
        self, account_id: str, resolution: CardResolution
    ) -> InteractionRecord:
        now = self._now()
        return await self._write(lambda c: card_ops.resolve(c, account_id, resolution, now))

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

        async def body(c: Conn) -> list[Admission]:
            if not offered:
                await turns.turn_exists(c, account_id, turn_id)
            answers = await journal.admit(c, account_id, turn_id, offered, now)
            if phase is not None:
                await turns.move_phase(c, account_id, turn_id, phase, now)
            return answers

        return await self._write(body)

    async def get_journal_entry(
        self, account_id: str, idempotency_key: str
    ) -> JournalRecord | None:
        return await self._read(lambda c: journal.get(c, account_id, idempotency_key))

    async def list_journal(self, account_id: str, turn_id: str) -> list[JournalRecord]:
        return await self._read(lambda c: journal.of_turn(c, account_id, turn_id))

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
        return await self._write(lambda c: journal.move(c, account_id, change, now))

    # -- cases and events ---------------------------------------------------------------------
    async def create_case(self, *, account_id: str, case: NewCase) -> CaseRecord:
        now = self._now()
        return await self._write(lambda c: cases.create(c, account_id, case, now))

    async def get_case(self, account_id: str, case_id: str) -> CaseRecord | None:
        return await self._read(lambda c: cases.get(c, account_id, case_id))

    async def list_cases(
        self, account_id: str, *, workflow: str | None = None, label: str | None = None
    ) -> list[CaseRecord]:
        return await self._read(lambda c: cases.list_cases(c, account_id, workflow, label))

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
            lambda c: bundle_ops.commit_bundle(c, bundle, inside_transaction, now)
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
        at, until = instant(now), instant(lease_expires_at)
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
        retry = None if retry_at is None else instant(retry_at)
        return await self._write(
            lambda c: outbox.settle(
                c, account_id, effect_id, claim_token, result, outcome, retry, now
            )
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
        at = instant(now)
        return await self._write(lambda c: outbox.release_expired(c, at, resend))

    async def get_outbox(self, account_id: str, effect_id: str) -> OutboxRecord | None:
        return await self._read(lambda c: outbox.get(c, account_id, effect_id))

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
        await self._write(lambda c: turns.save_replay_record(c, account_id, turn_id, record, now))

    async def get_replay_record(self, account_id: str, turn_id: str) -> Json | None:
        return await self._read(lambda c: turns.get_replay_record(c, account_id, turn_id))

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

        async def body(c: Conn) -> AssistantTurnRecord:
            fresh = await turns.get_assistant_turn(c, account_id, turn_id) is None
            saved = await turns.save_assistant_turn(
                c, account_id, turn_id, blocks, meta, thread_context, now
            )
            if fresh:  # a replay's cards were opened and closed with the first write
                await card_ops.insert(c, account_id, turn_id, cards, now)
                for resolution in closing:
                    await card_ops.resolve(c, account_id, resolution, now)
            if phase is not None:
                await turns.move_phase(c, account_id, turn_id, phase, now)
            return saved

        return await self._write(body)

    async def get_assistant_turn(self, account_id: str, turn_id: str) -> AssistantTurnRecord | None:
        return await self._read(lambda c: turns.get_assistant_turn(c, account_id, turn_id))

    # -- recall -------------------------------------------------------------------------------
    async def write_recall_entry(self, account_id: str, entry: NewRecallEntry) -> None:
        now = self._now()
        await self._write(lambda c: recall.write_entry(c, account_id, entry, now))

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
