"""Seeding records idempotently: create the cases an account does not have yet.

An example or a service start-up that seeds records runs again in the same store (a second run,
a restart); each case is created once, and a case the account already has is left exactly as it
is, whatever turns have changed since.
"""

from __future__ import annotations

from collections.abc import Iterable

from turnframe.stores.errors import AlreadyExists
from turnframe.stores.inputs import NewCase
from turnframe.stores.protocol import Store


async def create_missing_cases(store: Store, account_id: str, cases: Iterable[NewCase]) -> int:
    """Create each of ``cases`` that ``account_id`` does not have yet (by case id); returns how
    many were created. Every case needs its ``case_id``, or there is nothing to recognise it by:
    a case without one is refused (``ValueError``) before anything is created."""
    wanted = list(cases)
    unnamed = [case.label for case in wanted if case.case_id is None]
    if unnamed:
        raise ValueError(
            f"create_missing_cases needs a case_id on every case; missing on: {', '.join(unnamed)}"
        )
    named = [(case.case_id, case) for case in wanted if case.case_id is not None]
    created = 0
    for case_id, case in named:
        if await store.get_case(account_id, case_id) is not None:
            continue
        try:
            await store.create_case(account_id=account_id, case=case)
        except AlreadyExists:  # created meanwhile by another process: it exists, as wanted
            continue
        created += 1
    return created


__all__ = ["create_missing_cases"]
