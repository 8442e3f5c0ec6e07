"""Typed store errors, each with a stable code and a hint that says what to do next.

Messages never mention the account: another account's id must answer exactly like an unknown one,
so a message built from the id alone is the same in both cases.
"""

from __future__ import annotations

from turnframe.errors import TurnframeError


class StoreError(TurnframeError):
    """Base class of everything a store raises on purpose."""

    code = "turnframe.store.error"


class NotFound(StoreError):
    """The id is unknown in this account (or belongs to another account: the answer is the same)."""

    code = "turnframe.store.not_found"

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(
            f"no {kind} {ident!r} in this account",
            hint=f"check the {kind} id and the account it was created under",
        )
        self.kind = kind
        self.ident = ident


class AlreadyExists(StoreError):
    """A row with this id already exists and holds different content."""

    code = "turnframe.store.already_exists"

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(
            f"{kind} {ident!r} already exists",
            hint="use a fresh id (turnframe._ids.new_id) or read the existing row",
        )
        self.kind = kind
        self.ident = ident


class PayloadImmutable(StoreError):
    """A write-once payload was written again with different content; nothing is rewritten."""

    code = "turnframe.store.payload_immutable"

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(
            f"the {kind} stored for {ident!r} differs from the one given",
            hint="payloads are immutable: read the stored one instead of writing a new one",
        )
        self.kind = kind
        self.ident = ident


class RevisionConflict(StoreError):
    """A case changed since it was read: the expected revision is stale. Nothing was written."""

    code = "turnframe.store.revision_conflict"

    def __init__(self, case_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"case {case_id!r} is at revision {actual}, not the expected {expected}",
            hint="reload the case and decide again; a stale revision is never overwritten",
        )
        self.case_id = case_id
        self.expected = expected
        self.actual = actual


class PhaseConflict(StoreError):
    """The turn's phase is not the one the caller expected (someone else moved it)."""

    code = "turnframe.store.phase_conflict"

    def __init__(self, turn_id: str, expected: str, actual: str) -> None:
        super().__init__(
            f"turn {turn_id!r} is in phase {actual!r}, not the expected {expected!r}",
            hint="reload the turn and continue from its stored phase",
        )
        self.turn_id = turn_id
        self.expected = expected
        self.actual = actual


class IllegalTransition(StoreError):
    """A lifecycle column was asked to move backwards or out of a terminal state."""

    code = "turnframe.store.illegal_transition"

    def __init__(self, kind: str, ident: str, current: str, new: str) -> None:
        super().__init__(
            f"the {kind} of {ident!r} may not move from {current!r} to {new!r}",
            hint="lifecycle columns only move forward; a terminal state is final",
        )
        self.kind = kind
        self.ident = ident
        self.current = current
        self.new = new


class StatusConflict(StoreError):
    """A compare-and-swap on a status column found a different status than expected."""

    code = "turnframe.store.status_conflict"

    def __init__(self, kind: str, ident: str, expected: str, actual: str) -> None:
        super().__init__(
            f"{kind} {ident!r} is {actual!r}, not the expected {expected!r}",
            hint=f"reload the {kind} and continue from its stored status",
        )
        self.kind = kind
        self.ident = ident
        self.expected = expected
        self.actual = actual


class KeyReused(StoreError):
    """An idempotency key was reused for different content."""

    code = "turnframe.store.key_reused"

    def __init__(self, kind: str, key: str) -> None:
        super().__init__(
            f"the idempotency key {key!r} is already used by another {kind}",
            hint="keys are derived from the content; a reused key means a bug upstream",
        )
        self.kind = kind
        self.key = key


class BlockingCardOpen(StoreError):
    """A case already has an open blocking card; a second one is refused."""

    code = "turnframe.store.blocking_card_open"

    def __init__(self, case_id: str) -> None:
        super().__init__(
            f"case {case_id!r} already has an open blocking card",
            hint="resolve or expire the open card before opening another blocking one",
        )
        self.case_id = case_id


class LeaseLost(StoreError):
    """An outbox row is no longer claimed under this token (its lease was reaped, or settled)."""

    code = "turnframe.store.lease_lost"

    def __init__(self, effect_id: str) -> None:
        super().__init__(
            f"outbox effect {effect_id!r} is not claimed under this token",
            hint="the lease expired or the row was settled; claim it again before settling",
        )
        self.effect_id = effect_id


class StoreTimeout(StoreError):
    """The store did not answer in time. The SQLite store raises it only for a transaction that
    was rolled back (the database stayed locked), so nothing of that call was written."""

    code = "turnframe.store.timeout"

    def __init__(self, message: str = "the store did not answer in time") -> None:
        super().__init__(message, hint="retry later; recover the turn from its phase marker")


class SchemaTooNew(StoreError):
    """The database was written by a newer turnframe than this one."""

    code = "turnframe.store.schema_too_new"

    def __init__(self, location: str, found: int, supported: int) -> None:
        super().__init__(
            f"{location} has schema version {found}; this turnframe supports up to {supported}",
            hint="upgrade turnframe to open this database; it is never downgraded",
        )
        self.location = location
        self.found = found
        self.supported = supported


class StoreClosed(StoreError):
    """The store was used after it was closed."""

    code = "turnframe.store.closed"

    def __init__(self) -> None:
        super().__init__(
            "the store is closed",
            hint="use the store only inside its `async with ... open(...)` block",
        )
