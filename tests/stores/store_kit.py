"""Shared names for the store conformance suite: accounts, factories, small builders."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

import attrs

from turnframe.clock import ManualClock
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseRecord,
    NewJournalEntry,
    PhaseMove,
    SqliteStore,
    Store,
    TurnRecord,
)

ACCOUNT = "acct-a"
OTHER = "acct-b"

PHASE_ORDER = [
    TurnPhase.RECEIVED,
    TurnPhase.INTERPRETED,
    TurnPhase.REDUCED,
    TurnPhase.EXECUTING,
    TurnPhase.COMMITTED,
    TurnPhase.COMPOSED,
    TurnPhase.DELIVERED,
]


class StoreFactory(Protocol):
    @property
    def persistent(self) -> bool:
        """Whether a store opened again sees what an earlier one wrote (false for ``:memory:``)."""
        ...

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        """Open the factory's one backing database (the same one on every call)."""
        ...


@attrs.frozen
class SqliteFileFactory:
    path: Path
    persistent: bool = True

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        return SqliteStore.open(self.path, clock=clock)


@attrs.frozen
class SqliteMemoryFactory:
    persistent: bool = False

    def open(self, *, clock: ManualClock) -> AbstractAsyncContextManager[Store]:
        return SqliteStore.open(":memory:", clock=clock)


#: Store implementations the suite runs against, by id. Each gets a fresh temp directory.
FACTORIES: dict[str, Callable[[Path], StoreFactory]] = {
    "sqlite": lambda tmp: SqliteFileFactory(tmp / "store.db"),
    "sqlite-memory": lambda tmp: SqliteMemoryFactory(),
}


#: The ``make_turn`` and ``make_case`` fixtures (see conftest).
MakeTurn = Callable[..., Awaitable[TurnRecord]]
MakeCase = Callable[..., Awaitable[CaseRecord]]


def move(expected: TurnPhase, new: TurnPhase) -> PhaseMove:
    return PhaseMove(expected=expected, new=new)


def entry(
    key: str,
    *,
    digest: str | None = None,
    case_id: str | None = None,
    expected_revision: int | None = None,
    status: JournalStatus = JournalStatus.PENDING,
) -> NewJournalEntry:
    return NewJournalEntry(
        idempotency_key=key,
        command_id=f"cmd-{key}",
        content_digest=digest or f"digest-{key}",
        payload={"command": "set_field", "key": key},
        case_id=case_id,
        expected_revision=expected_revision,
        status=status,
    )
