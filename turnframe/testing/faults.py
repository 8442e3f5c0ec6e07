"""Make a store fail at a named boundary of the turn: ``FaultyStore(inner, plan)``.

A :class:`FaultPlan` lists :class:`Fault`\\ s: which point fails, how (``crash`` raises
:class:`InjectedCrash`, an untyped failure like a process dying; ``timeout`` raises the store's
typed :class:`~turnframe.stores.errors.StoreTimeout`) and on which hits of that point (the first
by default). :class:`FaultyStore` wraps any :class:`~turnframe.stores.protocol.Store` and records
every point reached, fired or not, so a test can assert where a turn went.

Each point is one place in a ``Store`` method; "after" points fire once the inner call committed,
so the caller sees a failure although the write is durable (as after a crash or a lost answer):

============================================  ====================================================
point                                         where
============================================  ====================================================
``before_turn_recorded``                      ``get_turn_start`` (a turn's arrival: a live
                                              turn is recorded by its seal) and
                                              ``record_user_turn``, before the inner call (a
                                              crash here kills the session actor mid-message;
                                              nothing of the turn is stored)
``before_interaction_persistence``            ``save_reduction``, before the inner call
``after_interaction_persistence``             ``save_reduction``, after the inner call committed
                                              (plan, reduction, cards and phase move are stored)
``before_journal_insert``                     ``admit``, before the inner call
``after_journal_insert_before_commit``        ``admit``, after the inner call committed (the turn
                                              is sealed; no commit bundle yet)
``inside_commit_bundle``                      ``commit_bundle``, inside the transaction through its
                                              ``inside_transaction`` hook: after journal outcomes,
                                              case updates and events were written, before the
                                              rest and the COMMIT, so everything rolls back
``before_outbox_dispatch``                    ``claim_outbox``, after a claim that leased at least
                                              one row committed (nothing sent; the reaper must
                                              release the lease)
``after_outbox_dispatch``                     ``settle_outbox``, before the inner call (the effect
                                              was sent; its result is not recorded)
``before_response_persistence``               ``save_assistant_turn``, before the inner call;
                                              and ``commit_bundle`` with a reply: when it fires,
                                              the bundle commits without the reply first (what
                                              a crash between the two transactions left)
``before_recall_find``                        ``find_recall``, before the inner call (recall's Find)
``before_recall_ground``                      ``read_recall_record``, before the inner call
                                              (recall's Ground opening a candidate's record)
``before_recall_index_write``                 ``write_recall_entry``, before the inner call
============================================  ====================================================

Since ADR 0022 a turn's arrival is a read (the seal records a live turn) and a
template-narrated reply is written inside the commit bundle; the points above are reached where
those steps now happen, with the same durable state on either side, so every crash-boundary
test means what it meant.

Recall's Present is the response persistence: its state is written with the blocks, so
``before_response_persistence`` is the crash between Present and the user's answer.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import attrs

from turnframe.lifecycle import TurnPhase
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.errors import StoreTimeout
from turnframe.stores.inputs import (
    CardResolution,
    CommitBundle,
    NewInteraction,
    NewJournalEntry,
    PhaseMove,
    TurnSeal,
)
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.recall import NewRecallEntry, RecallFound, RecallQuery, RecallRecord
from turnframe.stores.records import (
    Admission,
    AssistantTurnRecord,
    BundleReceipt,
    InteractionRecord,
    Json,
    OutboxRecord,
    OutboxResult,
    SealReceipt,
    TurnRecord,
    TurnStart,
)


class FaultPoint(enum.StrEnum):
    BEFORE_TURN_RECORDED = "before_turn_recorded"
    BEFORE_INTERACTION_PERSISTENCE = "before_interaction_persistence"
    AFTER_INTERACTION_PERSISTENCE = "after_interaction_persistence"
    BEFORE_JOURNAL_INSERT = "before_journal_insert"
    AFTER_JOURNAL_INSERT_BEFORE_COMMIT = "after_journal_insert_before_commit"
    INSIDE_COMMIT_BUNDLE = "inside_commit_bundle"
    BEFORE_OUTBOX_DISPATCH = "before_outbox_dispatch"
    AFTER_OUTBOX_DISPATCH = "after_outbox_dispatch"
    BEFORE_RESPONSE_PERSISTENCE = "before_response_persistence"
    BEFORE_RECALL_FIND = "before_recall_find"
    BEFORE_RECALL_GROUND = "before_recall_ground"
    BEFORE_RECALL_INDEX_WRITE = "before_recall_index_write"


class FaultMode(enum.StrEnum):
    CRASH = "crash"
    TIMEOUT = "timeout"


class InjectedCrash(RuntimeError):
    """A crash injected at a fault point. Deliberately not a ``TurnframeError``: it stands for
    an unexpected failure (a dying process), not for an error the pipeline handles by type."""

    def __init__(self, point: FaultPoint, hit: int) -> None:
        super().__init__(f"injected crash at {point.value} (hit {hit})")
        self.point = point
        self.hit = hit


def _positive(_: Any, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"{attribute.name} must be >= 1, got {value}")


@attrs.frozen(kw_only=True)
class Fault:
    """Fail ``point`` on its ``occurrence``-th hit (1-based) and the ``times - 1`` hits after
    it; ``times=None`` fails every hit from ``occurrence`` on."""

    point: FaultPoint
    mode: FaultMode = FaultMode.CRASH
    occurrence: int = attrs.field(default=1, validator=_positive)
    times: int | None = attrs.field(default=1, validator=_positive)

    def fires_on(self, hit: int) -> bool:
        if hit < self.occurrence:
            return False
        return self.times is None or hit < self.occurrence + self.times


def _as_faults(faults: Iterable[Fault]) -> tuple[Fault, ...]:
    return tuple(faults)


@attrs.frozen(kw_only=True)
class FaultPlan:
    """Which points fail, how and when. The empty plan fails nothing (and still records hits)."""

    faults: tuple[Fault, ...] = attrs.field(default=(), converter=_as_faults)

    @classmethod
    def crash(cls, point: FaultPoint, *, occurrence: int = 1, times: int | None = 1) -> FaultPlan:
        return cls(faults=(Fault(point=point, occurrence=occurrence, times=times),))

    @classmethod
    def timeout(cls, point: FaultPoint, *, occurrence: int = 1, times: int | None = 1) -> FaultPlan:
        fault = Fault(point=point, mode=FaultMode.TIMEOUT, occurrence=occurrence, times=times)
        return cls(faults=(fault,))

    def fault_for(self, point: FaultPoint, hit: int) -> Fault | None:
        return next((f for f in self.faults if f.point is point and f.fires_on(hit)), None)


@attrs.frozen(kw_only=True)
class FaultHit:
    """One arrival at a fault point: its 1-based hit number and the mode it failed with."""

    point: FaultPoint
    hit: int
    fired: FaultMode | None


class FaultyStore(DelegatingStore):
    """A store that fails where its plan says, and records every fault point it reached."""

    def __init__(self, inner: Store, plan: FaultPlan | None = None) -> None:
        super().__init__(inner)
        self.plan = plan or FaultPlan()
        self._hits: list[FaultHit] = []
        self._lock = threading.Lock()  # the commit-bundle hook runs on the store's thread

    @property
    def hits(self) -> list[FaultHit]:
        with self._lock:
            return list(self._hits)

    @property
    def fired(self) -> list[FaultHit]:
        return [h for h in self.hits if h.fired is not None]

    def hit_count(self, point: FaultPoint) -> int:
        return sum(1 for h in self.hits if h.point is point)

    def reach(self, point: FaultPoint) -> None:
        """Record an arrival at ``point`` and fail there if the plan says so."""
        with self._lock:
            hit = 1 + sum(1 for h in self._hits if h.point is point)
            fault = self.plan.fault_for(point, hit)
            self._hits.append(
                FaultHit(point=point, hit=hit, fired=None if fault is None else fault.mode)
            )
        if fault is None:
            return
        if fault.mode is FaultMode.TIMEOUT:
            raise StoreTimeout(f"injected timeout at {point.value} (hit {hit})")
        raise InjectedCrash(point, hit)

    async def record_user_turn(
        self,
        *,
        account_id: str,
        session_id: str,
        payload: Json,
        turn_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> TurnRecord:
        self.reach(FaultPoint.BEFORE_TURN_RECORDED)
        return await self.inner.record_user_turn(
            account_id=account_id,
            session_id=session_id,
            payload=payload,
            turn_id=turn_id,
            idempotency_key=idempotency_key,
        )

    async def get_turn_start(self, account_id: str, turn_id: str) -> TurnStart:
        # A turn's arrival (ADR 0022: the seal records a live turn, so arriving is this read).
        self.reach(FaultPoint.BEFORE_TURN_RECORDED)
        return await self.inner.get_turn_start(account_id, turn_id)

    async def save_reduction(
        self,
        account_id: str,
        turn_id: str,
        reduction: Json,
        *,
        interactions: Sequence[NewInteraction] = (),
        phase: PhaseMove | None = None,
    ) -> list[InteractionRecord]:
        self.reach(FaultPoint.BEFORE_INTERACTION_PERSISTENCE)
        saved = await self.inner.save_reduction(
            account_id, turn_id, reduction, interactions=interactions, phase=phase
        )
        self.reach(FaultPoint.AFTER_INTERACTION_PERSISTENCE)
        return saved

    async def seal_turn(self, account_id: str, turn_id: str, seal: TurnSeal) -> SealReceipt:
        # The seal transaction holds what save_reduction and admit each held: their points are
        # reached in the same order, the "before" ones ahead of the one write, the "after" ones
        # once it committed (admission points only when the seal admits something).
        self.reach(FaultPoint.BEFORE_INTERACTION_PERSISTENCE)
        if seal.entries:
            self.reach(FaultPoint.BEFORE_JOURNAL_INSERT)
        receipt = await self.inner.seal_turn(account_id, turn_id, seal)
        self.reach(FaultPoint.AFTER_INTERACTION_PERSISTENCE)
        if seal.entries:
            self.reach(FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT)
        return receipt

    async def admit(
        self,
        account_id: str,
        turn_id: str,
        entries: Sequence[NewJournalEntry],
        *,
        phase: PhaseMove | None = None,
    ) -> list[Admission]:
        self.reach(FaultPoint.BEFORE_JOURNAL_INSERT)
        answers = await self.inner.admit(account_id, turn_id, entries, phase=phase)
        self.reach(FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT)
        return answers

    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        def hook() -> None:
            self.reach(FaultPoint.INSIDE_COMMIT_BUNDLE)
            if inside_transaction is not None:
                inside_transaction()

        if bundle.reply is None:
            return await self.inner.commit_bundle(bundle, inside_transaction=hook)
        # The reply rides in the bundle (ADR 0022): a fault before its persistence is the
        # bundle committed without it, then the failure, as between two transactions.
        point = FaultPoint.BEFORE_RESPONSE_PERSISTENCE
        if self.plan.fault_for(point, self.hit_count(point) + 1) is not None:
            without = attrs.evolve(bundle, reply=None)
            committed = await self.inner.commit_bundle(without, inside_transaction=hook)
            self.reach(point)  # fails, as planned
            return committed
        receipt = await self.inner.commit_bundle(bundle, inside_transaction=hook)
        if receipt.phase is TurnPhase.DELIVERED:
            self.reach(point)
        return receipt

    async def claim_outbox(
        self,
        *,
        account_id: str | None,
        claim_token: str,
        now: datetime,
        lease_expires_at: datetime,
        limit: int = 16,
    ) -> list[OutboxRecord]:
        claimed = await self.inner.claim_outbox(
            account_id=account_id,
            claim_token=claim_token,
            now=now,
            lease_expires_at=lease_expires_at,
            limit=limit,
        )
        if claimed:
            self.reach(FaultPoint.BEFORE_OUTBOX_DISPATCH)
        return claimed

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
        self.reach(FaultPoint.AFTER_OUTBOX_DISPATCH)
        return await self.inner.settle_outbox(
            account_id,
            effect_id,
            claim_token=claim_token,
            result=result,
            outcome=outcome,
            retry_at=retry_at,
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
        self.reach(FaultPoint.BEFORE_RESPONSE_PERSISTENCE)
        return await self.inner.save_assistant_turn(
            account_id,
            turn_id,
            blocks,
            meta=meta,
            thread_context=thread_context,
            phase=phase,
            interactions=interactions,
            card_resolutions=card_resolutions,
        )

    async def find_recall(self, account_id: str, query: RecallQuery) -> RecallFound:
        self.reach(FaultPoint.BEFORE_RECALL_FIND)
        return await self.inner.find_recall(account_id, query)

    async def read_recall_record(self, account_id: str, session_id: str) -> RecallRecord | None:
        self.reach(FaultPoint.BEFORE_RECALL_GROUND)
        return await self.inner.read_recall_record(account_id, session_id)

    async def write_recall_entry(self, account_id: str, entry: NewRecallEntry) -> None:
        self.reach(FaultPoint.BEFORE_RECALL_INDEX_WRITE)
        await self.inner.write_recall_entry(account_id, entry)
