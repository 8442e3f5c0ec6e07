"""The seal's guard for hot cases (ADR 0018), checked inside the admission transaction.

A turn's ready batches expect their cases at the revisions it reduced on. When it seals, the
store checks in the same transaction, for each of those cases, that the revision is still the
expected one, that no other turn holds a live claim on the case, and that no other turn has
commands on it admitted and not yet settled. Otherwise nothing is written and
:class:`CaseContended` says which: the turn may claim the case (wait its turn), reduce its same
plan again on the case as it is, and seal then. The gate sets the guard around its admission
call; the stores' ``_write`` find it in the task's context, like the lease fence.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

import attrs

from turnframe.stores.errors import StoreError


class CaseContended(StoreError):
    """The turn was not sealed: a case it writes moved, or another turn is writing it."""

    code = "turnframe.store.case_contended"

    def __init__(self, turn_id: str, case_id: str, *, busy: bool) -> None:
        why = "another turn is writing it" if busy else "it moved since the turn was reduced"
        super().__init__(
            f"turn {turn_id!r} was not sealed: case {case_id!r}: {why}; nothing was written",
            hint="claim the case, reduce the same plan again on it, and seal then",
        )
        self.turn_id = turn_id
        self.case_id = case_id
        self.busy = busy


@attrs.frozen(kw_only=True)
class CaseGuard:
    account_id: str
    turn_id: str
    #: ``(case_id, expected_revision)`` of each ready batch.
    expectations: tuple[tuple[str, int], ...]


_GUARD: ContextVar[CaseGuard | None] = ContextVar("turnframe_case_guard", default=None)


def current_guard() -> CaseGuard | None:
    return _GUARD.get()


@contextlib.contextmanager
def guarding(guard: CaseGuard | None) -> Iterator[None]:
    token = _GUARD.set(guard)
    try:
        yield
    finally:
        _GUARD.reset(token)


__all__ = ["CaseContended", "CaseGuard", "current_guard", "guarding"]
