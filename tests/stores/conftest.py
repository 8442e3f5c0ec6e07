"""The store conformance suite's fixtures.

Every test in ``tests/stores`` runs once per (store factory, anyio backend). To run the suite on
another implementation, add its factory to ``store_kit.FACTORIES``; the ``store_factory`` params
follow that dict. The PostgreSQL factory (a fresh schema per test, dropped afterwards) runs only
when ``TURNFRAME_TEST_POSTGRES_DSN`` is set, and only on asyncio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from store_kit import ACCOUNT, FACTORIES, PHASE_ORDER, MakeCase, MakeTurn, StoreFactory

from turnframe.clock import ManualClock
from turnframe.lifecycle import TurnPhase
from turnframe.stores import CaseRecord, NewCase, Store, TurnRecord


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=list(FACTORIES))
async def store_factory(
    request: pytest.FixtureRequest, tmp_path: Path, anyio_backend: str
) -> AsyncIterator[StoreFactory]:
    factory = FACTORIES[request.param](tmp_path)
    reason = factory.unsupported(anyio_backend)
    if reason is not None:
        pytest.skip(reason)
    try:
        yield factory
    finally:
        await factory.discard()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def store(store_factory: StoreFactory, clock: ManualClock) -> AsyncIterator[Store]:
    async with store_factory.open(clock=clock) as opened:
        yield opened


@pytest.fixture
def make_turn(store: Store) -> MakeTurn:
    """A fresh session and user turn, walked forward to ``phase``."""

    async def make(
        account_id: str = ACCOUNT, *, phase: TurnPhase = TurnPhase.RECEIVED, text: str = "hi"
    ) -> TurnRecord:
        session = await store.create_session(account_id=account_id, workflow="tickets")
        turn = await store.record_user_turn(
            account_id=account_id, session_id=session.session_id, payload={"text": text}
        )
        for before, after in pairwise(PHASE_ORDER):
            if before is phase:
                break
            turn = await store.advance_phase(account_id, turn.turn_id, before, after)
        return turn

    return make


@pytest.fixture
def make_case(store: Store) -> MakeCase:
    """A seeded case (revision 1 unless told)."""

    async def make(
        account_id: str = ACCOUNT, *, label: str = "Ticket 1", state: Any = None, revision: int = 1
    ) -> CaseRecord:
        case = NewCase(
            workflow="tickets",
            label=label,
            state={"status": "open"} if state is None else state,
            revision=revision,
        )
        return await store.create_case(account_id=account_id, case=case)

    return make
