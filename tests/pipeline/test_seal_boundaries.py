"""The boundaries around the seal transaction (ADR 0014): plan, reduction, cards and admission
are stored together, so a turn is either still open (and may be interpreted again) or sealed."""

from __future__ import annotations

from typing import Any

import pytest
from pipeline_kit import ACCOUNT, running, say, scripted, set_field

from turnframe.actors.session import TurnIncomplete
from turnframe.lifecycle import TurnPhase
from turnframe.providers.base import Purpose
from turnframe.stores import SqliteStore, StoreTimeout
from turnframe.stores.delegating import DelegatingStore
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.pipeline import seed_store

pytestmark = pytest.mark.anyio

TEXT = "Set Bob's note to aisle"


def _acts() -> list[object]:
    return [set_field(TEXT, "Bob", "note", "aisle", "note to aisle")]


class CountingAdmissions(DelegatingStore):
    """Counts the store calls that admit commands."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.seals = 0
        self.admits = 0

    async def seal_turn(self, *args: Any, **kwargs: Any) -> Any:
        self.seals += 1
        return await super().seal_turn(*args, **kwargs)

    async def admit(self, *args: Any, **kwargs: Any) -> Any:
        self.admits += 1
        return await super().admit(*args, **kwargs)


class NoSealNoPlan(DelegatingStore):
    """The process is as good as dead before the seal: neither the seal nor the plan is stored."""

    async def seal_turn(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreTimeout("the database stays locked (seal)")

    async def save_plan(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreTimeout("the database stays locked (plan)")


async def test_a_live_turn_is_admitted_once_by_its_seal_and_the_gate_does_not_admit_again() -> None:
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = CountingAdmissions(inner)
        async with running(scripted(_acts()), store=store) as (rt, _):
            response = await say(rt, TEXT)
        assert response.phase is TurnPhase.DELIVERED
        assert (store.seals, store.admits) == (1, 0)
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]


async def test_a_crash_right_after_the_seal_resumes_by_key_and_commits_once() -> None:
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        counting = CountingAdmissions(inner)
        plan = FaultPlan.crash(FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT)
        store = FaultyStore(counting, plan)
        provider = scripted(_acts())
        async with running(provider, store=store) as (rt, _):
            response = await say(rt, TEXT)
        assert response.phase is TurnPhase.DELIVERED
        # The seal's answer was lost: the resumed turn asks the journal again, by key.
        assert (counting.seals, counting.admits) == (1, 1)
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


async def test_a_seal_that_keeps_timing_out_leaves_the_turn_interpreted_and_recovery_does_not_interpret_again() -> (  # noqa: E501
    None
):
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        plan = FaultPlan.timeout(FaultPoint.BEFORE_INTERACTION_PERSISTENCE, times=None)
        async with running(provider, store=FaultyStore(inner, plan)) as (rt, _):
            with pytest.raises(TurnIncomplete):
                await say(rt, TEXT)
        [unfinished] = await inner.list_unfinished_turns(account_id=None)
        assert unfinished.phase is TurnPhase.INTERPRETED and unfinished.plan is not None
        assert await inner.list_journal(ACCOUNT, unfinished.turn_id) == []
        async with running(provider, store=inner) as (rt, _):
            pass  # recovery runs on start
        turn = await inner.get_turn(ACCOUNT, unfinished.turn_id)
        assert turn is not None and turn.phase is TurnPhase.DELIVERED
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


async def test_a_turn_stopped_before_its_seal_with_no_plan_stored_is_interpreted_again_and_commits_once() -> (  # noqa: E501
    None
):
    provider = scripted(_acts(), _acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        async with running(provider, store=NoSealNoPlan(inner)) as (rt, _):
            with pytest.raises(TurnIncomplete):
                await say(rt, TEXT)
        [unfinished] = await inner.list_unfinished_turns(account_id=None)
        assert unfinished.phase is TurnPhase.RECEIVED and unfinished.plan is None
        assert await inner.list_events(ACCOUNT) == []
        async with running(provider, store=inner) as (rt, _):
            pass  # recovery: nothing was admitted, so the turn is interpreted again
        turn = await inner.get_turn(ACCOUNT, unfinished.turn_id)
        assert turn is not None and turn.phase is TurnPhase.DELIVERED
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 2
