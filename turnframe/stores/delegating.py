"""``DelegatingStore``: forwards every ``Store`` method to an inner store.

Subclass it to wrap a store (fault injection, tracing, metrics) and override only the methods
that need more than forwarding.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

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
from turnframe.stores.protocol import InsideTransactionHook, Store
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


class DelegatingStore:
    def __init__(self, inner: Store) -> None:
        self._inner = inner

    @property
    def inner(self) -> Store:
        return self._inner

    async def create_session(
        self,
        *,
        account_id: str,
        workflow: str,
        thread_context: Json = None,
        session_id: str | None = None,
    ) -> SessionRecord:
        return await self._inner.create_session(
            account_id=account_id,
            workflow=workflow,
            thread_context=thread_context,
            session_id=session_id,
        )

    async def get_session(self, account_id: str, session_id: str) -> SessionRecord | None:
        return await self._inner.get_session(account_id, session_id)

    async def list_sessions(self, account_id: str) -> list[SessionRecord]:
        return await self._inner.list_sessions(account_id)

    async def save_thread_context(
        self, account_id: str, session_id: str, thread_context: Json
    ) -> None:
        return await self._inner.save_thread_context(account_id, session_id, thread_context)

    async def acquire_session_lease(
        self,
        account_id: str,
        session_id: str,
        *,
        worker_id: str,
        now: datetime,
        expires_at: datetime,
    ) -> SessionLease | None:
        return await self._inner.acquire_session_lease(
            account_id, session_id, worker_id=worker_id, now=now, expires_at=expires_at
        )

    async def release_session_lease(
        self, account_id: str, session_id: str, *, worker_id: str
    ) -> bool:
        return await self._inner.release_session_lease(account_id, session_id, worker_id=worker_id)

    async def list_claimable_sessions(
        self, *, now: datetime, limit: int = 100
    ) -> list[SessionRecord]:
        return await self._inner.list_claimable_sessions(now=now, limit=limit)

    async def submit_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        return await self._inner.submit_turn(
            account_id=account_id,
            session_id=session_id,
            payload=payload,
            turn_id=turn_id,
            idempotency_key=idempotency_key,
        )

    async def list_pending_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        return await self._inner.list_pending_turns(account_id, session_id)

    async def claim_sessions(
        self,
        *,
        worker_id: str,
        now: datetime,
        expires_at: datetime,
        limit: int = 10,
        workflows: Sequence[str] | None = None,
    ) -> list[SessionLease]:
        return await self._inner.claim_sessions(
            worker_id=worker_id, now=now, expires_at=expires_at, limit=limit, workflows=workflows
        )

    async def renew_reduction(
        self, account_id: str, turn_id: str, *, expected: Json, reduction: Json
    ) -> TurnRecord:
        return await self._inner.renew_reduction(
            account_id, turn_id, expected=expected, reduction=reduction
        )

    async def claim_case(
        self, account_id: str, case_id: str, *, turn_id: str, seconds: float
    ) -> bool:
        return await self._inner.claim_case(account_id, case_id, turn_id=turn_id, seconds=seconds)

    async def release_case_claims(self, account_id: str, turn_id: str) -> None:
        await self._inner.release_case_claims(account_id, turn_id)

    async def list_lease_log(
        self, *, account_id: str | None = None, session_id: str | None = None
    ) -> list[LeaseLogEntry]:
        return await self._inner.list_lease_log(account_id=account_id, session_id=session_id)

    async def record_user_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        return await self._inner.record_user_turn(
            account_id=account_id,
            session_id=session_id,
            payload=payload,
            turn_id=turn_id,
            idempotency_key=idempotency_key,
        )

    async def get_turn_by_idempotency_key(
        self, account_id: str, session_id: str, idempotency_key: str
    ) -> TurnRecord | None:
        return await self._inner.get_turn_by_idempotency_key(
            account_id, session_id, idempotency_key
        )

    async def get_turn(self, account_id: str, turn_id: str) -> TurnRecord | None:
        return await self._inner.get_turn(account_id, turn_id)

    async def get_turn_start(self, account_id: str, turn_id: str) -> TurnStart:
        return await self._inner.get_turn_start(account_id, turn_id)

    async def list_session_turns(self, account_id: str, session_id: str) -> list[TurnRecord]:
        return await self._inner.list_session_turns(account_id, session_id)

    async def list_unfinished_turns(self, *, account_id: str | None) -> list[TurnRecord]:
        return await self._inner.list_unfinished_turns(account_id=account_id)

    async def advance_phase(
        self, account_id: str, turn_id: str, expected: TurnPhase, new: TurnPhase
    ) -> TurnRecord:
        return await self._inner.advance_phase(account_id, turn_id, expected, new)

    async def note_turn_failure(self, account_id: str, turn_id: str, *, signature: str) -> int:
        return await self._inner.note_turn_failure(account_id, turn_id, signature=signature)

    async def save_plan(
        self, account_id: str, turn_id: str, plan: Json, *, phase: PhaseMove | None = None
    ) -> TurnRecord:
        return await self._inner.save_plan(account_id, turn_id, plan, phase=phase)

    async def save_reduction(
        self,
        account_id: str,
        turn_id: str,
        reduction: Json,
        *,
        interactions: Sequence[NewInteraction] = (),
        phase: PhaseMove | None = None,
    ) -> list[InteractionRecord]:
        return await self._inner.save_reduction(
            account_id, turn_id, reduction, interactions=interactions, phase=phase
        )

    async def seal_turn(self, account_id: str, turn_id: str, seal: TurnSeal) -> SealReceipt:
        return await self._inner.seal_turn(account_id, turn_id, seal)

    async def get_interaction(
        self, account_id: str, interaction_id: str
    ) -> InteractionRecord | None:
        return await self._inner.get_interaction(account_id, interaction_id)

    async def list_open_interactions(
        self, account_id: str, *, session_id: str | None = None, case_id: str | None = None
    ) -> list[InteractionRecord]:
        return await self._inner.list_open_interactions(
            account_id, session_id=session_id, case_id=case_id
        )

    async def resolve_interaction(
        self, account_id: str, resolution: CardResolution
    ) -> InteractionRecord:
        return await self._inner.resolve_interaction(account_id, resolution)

    async def admit(
        self,
        account_id: str,
        turn_id: str,
        entries: Sequence[NewJournalEntry],
        *,
        phase: PhaseMove | None = None,
    ) -> list[Admission]:
        return await self._inner.admit(account_id, turn_id, entries, phase=phase)

    async def get_journal_entry(
        self, account_id: str, idempotency_key: str
    ) -> JournalRecord | None:
        return await self._inner.get_journal_entry(account_id, idempotency_key)

    async def list_journal(self, account_id: str, turn_id: str) -> list[JournalRecord]:
        return await self._inner.list_journal(account_id, turn_id)

    async def set_journal_status(
        self,
        account_id: str,
        idempotency_key: str,
        *,
        expected: JournalStatus,
        new: JournalStatus,
        outcome: Json | None = None,
    ) -> JournalRecord:
        return await self._inner.set_journal_status(
            account_id, idempotency_key, expected=expected, new=new, outcome=outcome
        )

    async def create_case(self, *, account_id: str, case: NewCase) -> CaseRecord:
        return await self._inner.create_case(account_id=account_id, case=case)

    async def get_case(self, account_id: str, case_id: str) -> CaseRecord | None:
        return await self._inner.get_case(account_id, case_id)

    async def list_cases(
        self, account_id: str, *, workflow: str | None = None, label: str | None = None
    ) -> list[CaseRecord]:
        return await self._inner.list_cases(account_id, workflow=workflow, label=label)

    async def list_events(
        self,
        account_id: str,
        *,
        case_id: str | None = None,
        turn_id: str | None = None,
        after_seq: int = 0,
        limit: int | None = None,
    ) -> list[EventRecord]:
        return await self._inner.list_events(
            account_id, case_id=case_id, turn_id=turn_id, after_seq=after_seq, limit=limit
        )

    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        return await self._inner.commit_bundle(bundle, inside_transaction=inside_transaction)

    async def claim_outbox(
        self,
        *,
        account_id: str | None,
        claim_token: str,
        now: datetime,
        lease_expires_at: datetime,
        limit: int = 16,
    ) -> list[OutboxRecord]:
        return await self._inner.claim_outbox(
            account_id=account_id,
            claim_token=claim_token,
            now=now,
            lease_expires_at=lease_expires_at,
            limit=limit,
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
        return await self._inner.settle_outbox(
            account_id,
            effect_id,
            claim_token=claim_token,
            result=result,
            outcome=outcome,
            retry_at=retry_at,
        )

    async def reconcile_outbox(
        self, account_id: str, effect_id: str, *, result: OutboxResult, outcome: Json | None = None
    ) -> OutboxRecord:
        return await self._inner.reconcile_outbox(
            account_id, effect_id, result=result, outcome=outcome
        )

    async def release_expired_claims(
        self, *, now: datetime, resend_channels: Collection[str] | None = None
    ) -> int:
        return await self._inner.release_expired_claims(now=now, resend_channels=resend_channels)

    async def get_outbox(self, account_id: str, effect_id: str) -> OutboxRecord | None:
        return await self._inner.get_outbox(account_id, effect_id)

    async def list_outbox(
        self,
        account_id: str | None,
        *,
        status: OutboxStatus | None = None,
        turn_id: str | None = None,
    ) -> list[OutboxRecord]:
        return await self._inner.list_outbox(account_id, status=status, turn_id=turn_id)

    async def save_replay_record(self, account_id: str, turn_id: str, record: Json) -> None:
        return await self._inner.save_replay_record(account_id, turn_id, record)

    async def get_replay_record(self, account_id: str, turn_id: str) -> Json | None:
        return await self._inner.get_replay_record(account_id, turn_id)

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
        return await self._inner.save_assistant_turn(
            account_id,
            turn_id,
            blocks,
            meta=meta,
            thread_context=thread_context,
            phase=phase,
            interactions=interactions,
            card_resolutions=card_resolutions,
        )

    async def get_assistant_turn(self, account_id: str, turn_id: str) -> AssistantTurnRecord | None:
        return await self._inner.get_assistant_turn(account_id, turn_id)

    async def write_recall_entry(self, account_id: str, entry: NewRecallEntry) -> None:
        return await self._inner.write_recall_entry(account_id, entry)

    async def get_recall_entries(
        self, account_id: str, session_ids: Sequence[str]
    ) -> list[RecallEntryRecord]:
        return await self._inner.get_recall_entries(account_id, session_ids)

    async def list_recall_backlog(
        self, account_id: str, *, writer_version: int, everything: bool = False, limit: int = 1000
    ) -> list[SessionRecord]:
        return await self._inner.list_recall_backlog(
            account_id, writer_version=writer_version, everything=everything, limit=limit
        )

    async def find_recall(self, account_id: str, query: RecallQuery) -> RecallFound:
        return await self._inner.find_recall(account_id, query)

    async def count_recall_terms(
        self,
        account_id: str,
        *,
        terms: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        exclude_session: str | None = None,
        upto: int | None = None,
    ) -> RecallCounts:
        return await self._inner.count_recall_terms(
            account_id,
            terms=terms,
            identifiers=identifiers,
            exclude_session=exclude_session,
            upto=upto,
        )

    async def read_recall_record(self, account_id: str, session_id: str) -> RecallRecord | None:
        return await self._inner.read_recall_record(account_id, session_id)
