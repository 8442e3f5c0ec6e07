"""Deliberately broken components, swapped in by ``--sabotage`` to prove that the checker catches
each class of violation (a chaos run that finds nothing with a broken part is a broken checker).

- ``retry-after-seal``: a session actor that asks for the turn's interpretation again once it is
  sealed (the seal is the one rule that makes retries safe);
- ``duplicate-effect``: a store whose commit bundle is not one transaction (events first, the
  rest after), with a crash in between, so the resumed batch commits its events again;
- ``drop-receipt``: a narrator that leaves receipts out of the reply, so a committed act has no
  visible result.

Each also adds the faults that expose it, so a short run finds it.
"""

from __future__ import annotations

import contextlib
import enum
from typing import Any

import attrs

from turnframe.actors.narrator import NarratorActor
from turnframe.actors.session import SessionActor
from turnframe.actors.stages import Interpret, Narrate, Narration
from turnframe.messages import UserTurn
from turnframe.response import BlockKind
from turnframe.runtime import Runtime
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.inputs import CommitBundle
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import BundleReceipt, TurnRecord
from turnframe.testing.chaos.schedule import FaultKind, StoreFault
from turnframe.testing.faults import FaultPoint, InjectedCrash


class Sabotage(enum.StrEnum):
    RETRY_AFTER_SEAL = "retry-after-seal"
    DUPLICATE_EFFECT = "duplicate-effect"
    DROP_RECEIPT = "drop-receipt"


class SealIgnoringSession(SessionActor):
    """Broken: once a turn is sealed, it asks for the turn's interpretation again."""

    async def _step(self, turn: UserTurn, record: TurnRecord) -> Any:
        if record.phase.is_sealed and not record.phase.is_terminal:
            message = Interpret(turn=turn, workflow=self._workflow, case_labels=())
            with contextlib.suppress(Exception):  # it only asks; the answer does not matter
                await self._ask(self._stages.interpreter, message)
        return await super()._step(turn, record)


class ReceiptDroppingNarrator(NarratorActor):
    """Broken: the reply loses its receipts."""

    async def narrate(self, message: Narrate) -> Narration:
        narration = await super().narrate(message)
        kept = tuple(b for b in narration.blocks if b.kind is not BlockKind.RECEIPT)
        return attrs.evolve(narration, blocks=kept)


class NonAtomicCommits(DelegatingStore):
    """Broken: writes a commit bundle's events in a transaction of their own, before the rest;
    and the first time, the process dies between the two (which is what atomicity is for)."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self._died = False

    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        if not bundle.events:
            return await self.inner.commit_bundle(bundle, inside_transaction=inside_transaction)
        first = CommitBundle(
            account_id=bundle.account_id,
            turn_id=bundle.turn_id,
            new_cases=bundle.new_cases,
            events=bundle.events,
        )
        early = await self.inner.commit_bundle(first)
        if not self._died:
            self._died = True
            raise InjectedCrash(FaultPoint.INSIDE_COMMIT_BUNDLE, 1)
        rest = attrs.evolve(bundle, new_cases=(), events=())
        late = await self.inner.commit_bundle(rest, inside_transaction=inside_transaction)
        return attrs.evolve(late, events=early.events, cases=(*early.cases, *late.cases))


def runtime_class(sabotage: Sabotage | None) -> type[Runtime]:
    """The Runtime, or one built from the sabotaged actor."""
    if sabotage is Sabotage.RETRY_AFTER_SEAL:

        class SealIgnoringRuntime(Runtime):
            _session_class = SealIgnoringSession

        return SealIgnoringRuntime
    if sabotage is Sabotage.DROP_RECEIPT:

        class ReceiptDroppingRuntime(Runtime):
            _narrator_class = ReceiptDroppingNarrator

        return ReceiptDroppingRuntime
    return Runtime


def sabotaged_store(sabotage: Sabotage | None, store: Store) -> Store:
    return NonAtomicCommits(store) if sabotage is Sabotage.DUPLICATE_EFFECT else store


def exposing_faults(sabotage: Sabotage | None) -> tuple[StoreFault, ...]:
    """Faults that make a broken part show: the seal is tested best by a resumed turn (the
    non-atomic store brings its own crash)."""
    if sabotage is not Sabotage.RETRY_AFTER_SEAL:
        return ()
    point = FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT
    return (StoreFault(kind=FaultKind.STORE_CRASH, point=point, occurrence=1, times=1),)


__all__ = [
    "NonAtomicCommits",
    "ReceiptDroppingNarrator",
    "Sabotage",
    "SealIgnoringSession",
    "exposing_faults",
    "runtime_class",
    "sabotaged_store",
]
