"""The ``Store`` protocol: everything the durable pipeline persists, behind one interface.

Rules every implementation keeps (the conformance suite in ``tests/stores`` checks them):

- Every row belongs to an account. Another account's id answers exactly like an unknown id: the
  same ``None`` from a getter, the same :class:`~turnframe.stores.errors.NotFound` (same message)
  from a mutator.
- Every method is ONE transaction: it happens whole or not at all, and concurrent calls never see
  or undo each other's uncommitted rows.
- Nothing is rewritten. Payloads (user turns, plans, reductions, card payloads, journal payloads,
  events, replay records, response blocks) are write-once: writing the same content again is a
  no-op, different content is :class:`~turnframe.stores.errors.PayloadImmutable`. Only lifecycle
  columns (phase, statuses, case state + revision, leases, the session's thread context) move,
  each by compare-and-swap.
- Methods marked *operator* accept ``account_id=None`` to scan every account (the runtime's
  recovery scan and the outbox dispatcher); every record they return carries its account id.
- No hidden clock decides anything: lease expiries and "now" are passed in. The store's clock
  only stamps ``created_at``-style columns.
- Session leases let several worker processes share one database: each live session is served
  by at most one worker at a time, the one holding its lease. A worker scans
  :meth:`~Store.list_claimable_sessions`, takes each session with
  :meth:`~Store.acquire_session_lease` (which alone decides: of two workers racing for one
  session exactly one gets the lease), renews it before ``expires_at`` by acquiring again, and
  gives it back with :meth:`~Store.release_session_lease`. A lease that expired is taken over
  by the next worker to ask (``taken_over=True``, naming ``previous_worker``), which recovers the
  session's unfinished turns from their phase markers. A lease is exclusive only while it lasts:
  a worker that cannot renew in time must stop serving the session at ``expires_at`` by its own
  clock (less the clock skew it allows for). Lease columns live on the session row; they are
  lifecycle columns, never payload.

Fault boundaries (``turnframe.testing.faults``) map onto these methods: see that module.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Protocol

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores.inbox import LeaseLogEntry
from turnframe.stores.inputs import (
    CardResolution,
    CommitBundle,
    NewCase,
    NewInteraction,
    NewJournalEntry,
    PhaseMove,
    TurnSeal,
)
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

#: Called synchronously inside a commit bundle's transaction, after the journal outcomes, case
#: updates and events were written and before the rest and the COMMIT. An exception it raises
#: rolls the whole bundle back and propagates. It may run on the store's worker thread: it must
#: not block or touch the event loop. Fault injection uses it; production code passes None.
InsideTransactionHook = Callable[[], None]


class Store(Protocol):
    # -- sessions -------------------------------------------------------------------------
    async def create_session(
        self,
        *,
        account_id: str,
        workflow: str,
        thread_context: Json = None,
        session_id: str | None = None,
    ) -> SessionRecord:
        """Create a session (a time-ordered id unless given). Same id, same content: returns the
        stored one; same id, different workflow: :class:`AlreadyExists`."""
        ...

    async def get_session(self, account_id: str, session_id: str) -> SessionRecord | None: ...

    async def list_sessions(self, account_id: str) -> list[SessionRecord]:
        """The account's sessions, oldest first (each with its ``last_turn_id``)."""
        ...

    async def save_thread_context(
        self, account_id: str, session_id: str, thread_context: Json
    ) -> None:
        """Replace the session's thread context (the session actor's rolling summary)."""
        ...

    # -- session leases (many workers, one database) ----------------------------------------
    async def acquire_session_lease(
        self,
        account_id: str,
        session_id: str,
        *,
        worker_id: str,
        now: datetime,
        expires_at: datetime,
    ) -> SessionLease | None:
        """Lease the session to ``worker_id`` until ``expires_at``, in one transaction that locks
        the session row (SQLite: the database), so of several workers racing for it exactly one
        wins. The lease's instants come back in UTC.

        - No lease (never leased, or released): a fresh lease, acquired at ``now``.
        - ``worker_id`` holds it already (live or lapsed: nobody else took it in between): a
          renewal; ``expires_at`` moves, ``acquired_at`` stays.
        - Another worker's lease expired at ``now`` (``lease expiry <= now``): taken over, a
          lease acquired at ``now`` with ``taken_over=True`` and ``previous_worker`` set.
        - Another worker's lease is live: None, nothing changes.

        An unknown (or another account's) session is :class:`NotFound`. ``worker_id`` must not
        be empty, both instants must be timezone-aware and ``expires_at`` after ``now``
        (``ValueError``)."""
        ...

    async def release_session_lease(
        self, account_id: str, session_id: str, *, worker_id: str
    ) -> bool:
        """Give the lease back if ``worker_id`` holds it (live or lapsed): True. False when the
        session is not leased or another worker holds it, which is never released.
        An unknown (or another account's) session is :class:`NotFound`."""
        ...

    async def list_claimable_sessions(
        self, *, now: datetime, limit: int = 100
    ) -> list[SessionRecord]:
        """*Operator* (every account). Up to ``limit`` sessions that have unfinished turns (phase
        not terminal) and no lease live at ``now``, ordered by their oldest unfinished turn (oldest
        first). Only a hint of what to acquire: the lease decides. Sessions a concurrent
        transaction holds locked (being acquired, or in another worker's scan) are skipped, not
        waited for, where the store has row locks (PostgreSQL: ``FOR UPDATE SKIP LOCKED``)."""
        ...

    # -- the turn inbox and workers (ADR 0018) ----------------------------------------------
    async def submit_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        """Put a user turn in the inbox: :meth:`record_user_turn` (same idempotency), and wake
        the workers where the store can (PostgreSQL: ``NOTIFY turnframe_inbox`` with the
        session id, sent when the transaction commits)."""
        ...

    async def list_pending_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        """The session's unfinished turns (phase not terminal), oldest first: what a worker
        holding the session serves next, in this order."""
        ...

    async def claim_sessions(
        self,
        *,
        worker_id: str,
        now: datetime,
        expires_at: datetime,
        limit: int = 10,
        workflows: Sequence[str] | None = None,
    ) -> list[SessionLease]:
        """*Operator.* In one transaction, lease to ``worker_id`` up to ``limit`` sessions that
        have unfinished turns and no live lease at ``now`` (one ``worker_id`` itself holds is
        never claimed again), oldest unfinished turn first, optionally only of ``workflows``.
        Each grant gets the next epoch and a lease-log line (``acquired``, or ``taken_over`` from
        an expired holder). Sessions another transaction holds locked are skipped, not waited
        for (PostgreSQL: one statement, ``FOR UPDATE SKIP LOCKED``)."""
        ...

    async def renew_reduction(
        self, account_id: str, turn_id: str, *, expected: Json, reduction: Json
    ) -> TurnRecord:
        """Replace the reduction of a turn that is ``reduced`` and not sealed (no journal entry)
        with one reduced again from the same plan, if it is still ``expected``: a hot case
        (ADR 0018). :class:`PhaseConflict` past ``reduced``, :class:`StatusConflict` when sealed
        or changed meanwhile, :class:`NotFound` for an unknown turn; nothing is written then."""
        ...

    async def claim_case(
        self, account_id: str, case_id: str, *, turn_id: str, seconds: float
    ) -> bool:
        """Hold a hot case for ``turn_id`` for ``seconds`` of the store's clock (a fresh
        claim, a renewal, or one whose holder lapsed): True; False while another turn's claim
        is live. While held, no other turn seals on the case (ADR 0018)."""
        ...

    async def release_case_claims(self, account_id: str, turn_id: str) -> None:
        """Drop every case claim ``turn_id`` holds."""
        ...

    async def list_lease_log(
        self, *, account_id: str | None = None, session_id: str | None = None
    ) -> list[LeaseLogEntry]:
        """*Operator.* The lease log, oldest line first, optionally of one account or session."""
        ...

    # -- turns and their phase marker ---------------------------------------------------------
    async def record_user_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        """Store a user turn in phase ``received`` and make it the session's last turn.
        Recording the same turn again returns the stored one (its phase may have moved).

        ``idempotency_key`` is a client's key for the turn (unique per session, stored with
        it): when the session already has a turn under that key, that turn is returned as
        stored and nothing is written, whatever ``payload`` and ``turn_id`` say. Of two
        concurrent calls with one key, exactly one inserts; the caller compares the returned
        ``turn_id`` with its own to tell a re-post from a fresh turn."""
        ...

    async def get_turn_by_idempotency_key(
        self, account_id: str, session_id: str, idempotency_key: str
    ) -> TurnRecord | None:
        """The session's turn recorded under ``idempotency_key`` (None: no such turn, or the
        session is unknown or another account's)."""
        ...

    async def get_turn(self, account_id: str, turn_id: str) -> TurnRecord | None: ...

    async def get_turn_start(self, account_id: str, turn_id: str) -> TurnStart:
        """One read as a turn starts (ADR 0022): the turn as stored (None: not recorded) and,
        when it is still to be interpreted (not recorded, or ``received``), every case of the
        account, as :meth:`list_cases` gives them; else ``cases`` is None."""
        ...

    async def list_session_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        """The session's turns, oldest first."""
        ...

    async def list_unfinished_turns(self, *, account_id: str | None) -> list[TurnRecord]:
        """*Operator.* Turns whose phase is not terminal, oldest first (for recovery)."""
        ...

    async def advance_phase(
        self, account_id: str, turn_id: str, expected: TurnPhase, new: TurnPhase
    ) -> TurnRecord:
        """CAS the phase marker: :class:`PhaseConflict` if it is not ``expected``,
        :class:`IllegalTransition` if ``expected`` may not advance to ``new``."""
        ...

    async def note_turn_failure(self, account_id: str, turn_id: str, *, signature: str) -> int:
        """Count one attempt to finish the turn that gave up, and return how many attempts in a
        row gave up with this ``signature`` (this one included; another signature starts again
        at 1). A lifecycle counter, not a payload: recovery parks a turn whose count reaches its
        budget instead of trying it forever. An unknown (or another account's) turn is
        :class:`NotFound`."""
        ...

    async def save_plan(
        self, account_id: str, turn_id: str, plan: Json, *, phase: PhaseMove | None = None
    ) -> TurnRecord:
        """Write the turn's interpreted plan once (and move its phase in the same transaction)."""
        ...

    async def save_reduction(
        self,
        account_id: str,
        turn_id: str,
        reduction: Json,
        *,
        interactions: Sequence[NewInteraction] = (),
        phase: PhaseMove | None = None,
    ) -> list[InteractionRecord]:
        """Write the reduction plan once, persist its cards (open) and move the phase: one
        transaction. A second open blocking card on a case is :class:`BlockingCardOpen`."""
        ...

    async def seal_turn(self, account_id: str, turn_id: str, seal: TurnSeal) -> SealReceipt:
        """Record the user turn (if given, as :meth:`record_user_turn` does), store the plan
        (if given), the reduction and its cards, close the superseded cards that are still
        open, admit the commands and move the phase: one transaction (what
        ``record_user_turn``, ``save_plan``, ``save_reduction`` and ``admit`` do, in one).
        Admission answers as in :meth:`admit`; a second open blocking card on a case is
        :class:`BlockingCardOpen`."""
        ...

    # -- interactions (cards) -----------------------------------------------------------------
    async def get_interaction(
        self, account_id: str, interaction_id: str
    ) -> InteractionRecord | None: ...

    async def list_open_interactions(
        self, account_id: str, *, session_id: str | None = None, case_id: str | None = None
    ) -> list[InteractionRecord]: ...

    async def resolve_interaction(
        self, account_id: str, resolution: CardResolution
    ) -> InteractionRecord:
        """Close an open card (CAS open → resolved/expired); a closed one is
        :class:`StatusConflict`, so a second click changes nothing."""
        ...

    # -- the command journal ------------------------------------------------------------------
    async def admit(
        self,
        account_id: str,
        turn_id: str,
        entries: Sequence[NewJournalEntry],
        *,
        phase: PhaseMove | None = None,
    ) -> list[Admission]:
        """Admit commands by idempotency key, answering per entry in order: fresh entries are
        inserted, replays answer with the stored row, a reused key with a different content
        digest is refused (and not inserted). One transaction with the optional phase move."""
        ...

    async def get_journal_entry(
        self, account_id: str, idempotency_key: str
    ) -> JournalRecord | None: ...

    async def list_journal(self, account_id: str, turn_id: str) -> list[JournalRecord]: ...

    async def set_journal_status(
        self,
        account_id: str,
        idempotency_key: str,
        *,
        expected: JournalStatus,
        new: JournalStatus,
        outcome: Json | None = None,
    ) -> JournalRecord:
        """CAS one entry's status forward (outcome stored with it when given)."""
        ...

    # -- cases and events ---------------------------------------------------------------------
    async def create_case(self, *, account_id: str, case: NewCase) -> CaseRecord:
        """Create (seed) a case. An existing id is :class:`AlreadyExists`."""
        ...

    async def get_case(self, account_id: str, case_id: str) -> CaseRecord | None: ...

    async def list_cases(
        self, account_id: str, *, workflow: str | None = None, label: str | None = None
    ) -> list[CaseRecord]: ...

    async def list_events(
        self,
        account_id: str,
        *,
        case_id: str | None = None,
        turn_id: str | None = None,
        after_seq: int = 0,
        limit: int | None = None,
    ) -> list[EventRecord]:
        """Events in sequence order."""
        ...

    # -- the commit bundle --------------------------------------------------------------------
    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        """Write the whole bundle in ONE transaction. Any failure (a stale expected revision,
        a journal or phase CAS, a closed card, the hook) rolls it all back and propagates.
        With ``bundle.reply`` (and a phase move to ``committed``), the reply it composes is
        stored as :meth:`save_assistant_turn` stores it and the turn moves on to ``delivered``
        in the same transaction (receipt ``phase`` ``delivered``); a reply that cannot be
        composed or written is left out and the rest commits (receipt ``phase`` ``committed``)."""
        ...

    # -- the outbox ---------------------------------------------------------------------------
    async def claim_outbox(
        self,
        *,
        account_id: str | None,
        claim_token: str,
        now: datetime,
        lease_expires_at: datetime,
        limit: int = 16,
    ) -> list[OutboxRecord]:
        """*Operator.* Lease up to ``limit`` pending rows available at ``now`` to ``claim_token``
        (oldest first), counting one attempt each."""
        ...

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
        """Record a send's result on a row claimed under ``claim_token`` (else
        :class:`LeaseLost`). ``retryable`` returns it to pending, available at ``retry_at``."""
        ...

    async def reconcile_outbox(
        self, account_id: str, effect_id: str, *, result: OutboxResult, outcome: Json | None = None
    ) -> OutboxRecord:
        """Settle an ``outcome_unknown`` row once reconciliation knows what happened
        (completed, permanent_failed, or retryable when it certainly did not happen)."""
        ...

    async def release_expired_claims(
        self, *, now: datetime, resend_channels: Collection[str] | None = None
    ) -> int:
        """*Operator.* The reaper: claims whose lease expired at ``now`` go back to pending
        (the effect is re-sent with the same idempotency key) when their channel is one of
        ``resend_channels`` (None: every channel), else to ``outcome_unknown`` with the reason
        ``turnframe.outbox.claim_expired`` (the send may have happened: reconciliation
        decides). Returns how many."""
        ...

    async def get_outbox(self, account_id: str, effect_id: str) -> OutboxRecord | None: ...

    async def list_outbox(
        self,
        account_id: str | None,
        *,
        status: OutboxStatus | None = None,
        turn_id: str | None = None,
    ) -> list[OutboxRecord]:
        """*Operator* when ``account_id`` is None. Rows oldest first; ``status=outcome_unknown``
        lists what needs reconciliation."""
        ...

    # -- replay records and assistant turns ---------------------------------------------------
    async def save_replay_record(self, account_id: str, turn_id: str, record: Json) -> None:
        """Write a turn's replay record once (turns that end without a commit bundle)."""
        ...

    async def get_replay_record(self, account_id: str, turn_id: str) -> Json | None: ...

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
        """Store the response blocks exactly as given (write-once), optionally the session's new
        thread context and the phase move: one transaction. ``interactions`` are cards the
        response opens (the recall stage's store-expansion card), ``card_resolutions`` cards it
        closes; both are written with the first write only (a replay opens and closes nothing)."""
        ...

    async def get_assistant_turn(self, account_id: str, turn_id: str) -> AssistantTurnRecord | None:
        """Reload a delivered response: the blocks byte-identical to what was stored."""
        ...

    # -- recall (docs/recall.md) --------------------------------------------------------------
    # Index entries are derived data, rebuilt from the turns at any time: the one kind of row
    # a writer replaces whole. The full-text rows of turns and replies are kept by the store
    # itself as they are written.
    async def write_recall_entry(self, account_id: str, entry: NewRecallEntry) -> None:
        """Write (or replace) the session's index entry and its identifiers."""
        ...

    async def get_recall_entries(
        self, account_id: str, session_ids: Sequence[str]
    ) -> list[RecallEntryRecord]:
        """The entries of those sessions that have one (in writing order)."""
        ...

    async def list_recall_backlog(
        self, account_id: str, *, writer_version: int, everything: bool = False, limit: int = 1000
    ) -> list[SessionRecord]:
        """Sessions with turns whose entry is missing, older than their last turn or written by
        an older writer (``everything``: every session with turns), oldest first."""
        ...

    async def find_recall(self, account_id: str, query: RecallQuery) -> RecallFound:
        """The account's sessions the query reaches, best first (see :class:`RecallQuery`),
        with the coverage searched. Another account's sessions are never reached."""
        ...

    async def count_recall_terms(
        self,
        account_id: str,
        *,
        terms: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        exclude_session: str | None = None,
        upto: int | None = None,
    ) -> RecallCounts:
        """How many of the account's sessions (besides ``exclude_session``) hold each word (in
        any turn or reply; counting stops at ``upto`` when given) and each identifier (in their
        entries)."""
        ...

    async def read_recall_record(self, account_id: str, session_id: str) -> RecallRecord | None:
        """Open a session's own record whole (turns and replies); None if it does not exist."""
        ...


__all__ = ["InsideTransactionHook", "Store"]
