"""Lease fencing: a worker that lost a session's lease writes nothing more for that session.

A lease only keeps two workers from *serving* a session at once while both are alive and on
time. A worker that paused (a long GC, a stopped VM, a slow network) may wake up after its
lease expired and another worker took the session over; whatever it writes next must be
refused. So every session-scoped write of a leased runtime names what it writes for (a
:class:`FenceTarget`), and the store checks, *inside the write's own transaction*, that the
session's lease row still names this worker and the epoch it was granted (ADR 0018). On
PostgreSQL the check holds the session row (``FOR NO KEY UPDATE``) until the write commits, so
a takeover waits for it; on SQLite the write transaction holds the database.

:class:`FencedStore` wraps any store and sets the target around each session-scoped write; the
stores' ``_write`` find it in the task's context (a :class:`contextvars.ContextVar`: the write
runs in the task that called the method). Writes that anyone may make stay unfenced: a new user
turn (the inbox), sessions, cases seeded outside a turn, the outbox, the recall index.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar

import attrs

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.errors import StoreError
from turnframe.stores.inputs import (
    CardResolution,
    CommitBundle,
    NewInteraction,
    NewJournalEntry,
    PhaseMove,
    TurnSeal,
)
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import (
    Admission,
    AssistantTurnRecord,
    BundleReceipt,
    InteractionRecord,
    JournalRecord,
    Json,
    SealReceipt,
    TurnRecord,
)

#: ``(account_id, session_id)`` → ``(worker_id, epoch)`` this writer holds, or None.
Holder = Callable[[str, str], "tuple[str, int] | None"]


class SessionLeaseLost(StoreError):
    """This worker no longer holds the session's lease (or holds an older epoch of it): the
    write was refused and nothing of it was written."""

    code = "turnframe.store.session_lease_lost"

    def __init__(self, session_id: str, detail: str) -> None:
        super().__init__(
            f"session {session_id!r}: {detail}; nothing was written",
            hint="another worker serves this session now; drop it and claim other work",
        )
        self.session_id = session_id


@attrs.frozen(kw_only=True)
class FenceTarget:
    """What a write is for: the session, or the turn, card or journal entry that names it."""

    account_id: str
    holder: Holder
    session_id: str | None = None
    turn_id: str | None = None
    interaction_id: str | None = None
    journal_key: str | None = None

    def judge(self, session_id: str, worker: str | None, epoch: int) -> None:
        """Raise :class:`SessionLeaseLost` unless the lease row (``worker``, ``epoch``) is this
        writer's."""
        held = self.holder(self.account_id, session_id)
        if held is None:
            raise SessionLeaseLost(session_id, "this worker holds no lease on it")
        if worker != held[0] or epoch != held[1]:
            raise SessionLeaseLost(
                session_id, f"its lease is at epoch {epoch} of {worker!r}, not this worker's"
            )


_TARGET: ContextVar[FenceTarget | None] = ContextVar("turnframe_fence_target", default=None)


def current_target() -> FenceTarget | None:
    """The fence the write about to run must pass (None: an unfenced write)."""
    return _TARGET.get()


@contextlib.contextmanager
def writing_for(target: FenceTarget) -> Iterator[None]:
    token = _TARGET.set(target)
    try:
        yield
    finally:
        _TARGET.reset(token)


class FencedStore(DelegatingStore):
    """A store whose session-scoped writes pass only while ``holder`` says this worker holds
    the session's lease at the epoch the database holds."""

    def __init__(self, inner: Store, holder: Holder) -> None:
        super().__init__(inner)
        self._holder = holder

    def _for(self, account_id: str, **names: str | None) -> contextlib.AbstractContextManager[None]:
        return writing_for(FenceTarget(account_id=account_id, holder=self._holder, **names))

    async def save_thread_context(
        self, account_id: str, session_id: str, thread_context: Json
    ) -> None:
        with self._for(account_id, session_id=session_id):
            await self._inner.save_thread_context(account_id, session_id, thread_context)

    async def advance_phase(
        self, account_id: str, turn_id: str, expected: TurnPhase, new: TurnPhase
    ) -> TurnRecord:
        with self._for(account_id, turn_id=turn_id):
            return await self._inner.advance_phase(account_id, turn_id, expected, new)

    async def note_turn_failure(self, account_id: str, turn_id: str, *, signature: str) -> int:
        with self._for(account_id, turn_id=turn_id):
            return await self._inner.note_turn_failure(account_id, turn_id, signature=signature)

    async def save_plan(
        self, account_id: str, turn_id: str, plan: Json, *, phase: PhaseMove | None = None
    ) -> TurnRecord:
        with self._for(account_id, turn_id=turn_id):
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
        with self._for(account_id, turn_id=turn_id):
            return await self._inner.save_reduction(
                account_id, turn_id, reduction, interactions=interactions, phase=phase
            )

    async def seal_turn(self, account_id: str, turn_id: str, seal: TurnSeal) -> SealReceipt:
        with self._for(account_id, turn_id=turn_id):
            return await self._inner.seal_turn(account_id, turn_id, seal)

    async def renew_reduction(
        self, account_id: str, turn_id: str, *, expected: Json, reduction: Json
    ) -> TurnRecord:
        with self._for(account_id, turn_id=turn_id):
            return await self._inner.renew_reduction(
                account_id, turn_id, expected=expected, reduction=reduction
            )

    async def resolve_interaction(
        self, account_id: str, resolution: CardResolution
    ) -> InteractionRecord:
        with self._for(account_id, interaction_id=resolution.interaction_id):
            return await self._inner.resolve_interaction(account_id, resolution)

    async def admit(
        self,
        account_id: str,
        turn_id: str,
        entries: Sequence[NewJournalEntry],
        *,
        phase: PhaseMove | None = None,
    ) -> list[Admission]:
        with self._for(account_id, turn_id=turn_id):
            return await self._inner.admit(account_id, turn_id, entries, phase=phase)

    async def set_journal_status(
        self,
        account_id: str,
        idempotency_key: str,
        *,
        expected: JournalStatus,
        new: JournalStatus,
        outcome: Json | None = None,
    ) -> JournalRecord:
        with self._for(account_id, journal_key=idempotency_key):
            return await self._inner.set_journal_status(
                account_id, idempotency_key, expected=expected, new=new, outcome=outcome
            )

    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        with self._for(bundle.account_id, turn_id=bundle.turn_id):
            return await self._inner.commit_bundle(bundle, inside_transaction=inside_transaction)

    async def save_replay_record(self, account_id: str, turn_id: str, record: Json) -> None:
        with self._for(account_id, turn_id=turn_id):
            await self._inner.save_replay_record(account_id, turn_id, record)

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
        with self._for(account_id, turn_id=turn_id):
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


__all__ = ["FenceTarget", "FencedStore", "SessionLeaseLost", "current_target", "writing_for"]
