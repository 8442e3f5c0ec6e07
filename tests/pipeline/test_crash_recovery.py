"""A crash or timeout at every named boundary: the turn ends once, effects happen once."""

from __future__ import annotations

import pytest
from pipeline_kit import ACCOUNT, running, say, scripted, set_field

from turnframe.actors import Actor
from turnframe.actors.session import TurnIncomplete
from turnframe.lifecycle import TurnPhase
from turnframe.providers.base import Purpose
from turnframe.stores import SqliteStore
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.pipeline import seed_store

pytestmark = pytest.mark.anyio

TEXT = "Set Bob's note to aisle"
TURN_POINTS = [
    FaultPoint.AFTER_INTERACTION_PERSISTENCE,
    FaultPoint.BEFORE_JOURNAL_INSERT,
    FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT,
    FaultPoint.INSIDE_COMMIT_BUNDLE,
    FaultPoint.BEFORE_RESPONSE_PERSISTENCE,
]


def _acts() -> list[object]:
    return [set_field(TEXT, "Bob", "note", "aisle", "note to aisle")]


@pytest.mark.parametrize("mode", ["crash", "timeout"])
@pytest.mark.parametrize("point", TURN_POINTS)
async def test_a_fault_at_a_boundary_ends_the_turn_delivered_with_its_effect_once(
    point: FaultPoint, mode: str
) -> None:
    plan = FaultPlan.crash(point) if mode == "crash" else FaultPlan.timeout(point)
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FaultyStore(inner, plan)
        async with running(provider, store=store) as (rt, _):
            response = await say(rt, TEXT)
        assert [h.point for h in store.fired] == [point]
        assert response.phase is TurnPhase.DELIVERED
        events = await inner.list_events(ACCOUNT)
        assert [e.type for e in events] == ["field_set"]
        turn = await inner.get_turn(ACCOUNT, response.turn_id)
        assert turn is not None and turn.phase is TurnPhase.DELIVERED
        # Interpretation ran once: nothing asked the provider again after the seal, and the
        # recorded attempts say so (one first attempt, no gate question, no retry).
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1
        attempts = turn.plan["provider_attempts"]
        assert [(a["step"], a["gate"], a["outcome"]) for a in attempts] == [
            ("first", "not_asked", "ok")
        ]


async def test_a_stuck_turn_is_finished_exactly_once_by_recovery_on_the_next_start() -> None:
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        broken = FaultyStore(inner, FaultPlan.timeout(FaultPoint.INSIDE_COMMIT_BUNDLE, times=None))
        async with running(provider, store=broken) as (rt, _):
            with pytest.raises(TurnIncomplete):
                await say(rt, TEXT)
        assert await inner.list_events(ACCOUNT) == []  # nothing partial is visible
        [unfinished] = await inner.list_unfinished_turns(account_id=None)
        assert unfinished.phase is TurnPhase.EXECUTING
        async with running(provider, store=inner) as (rt, _):
            pass  # recovery runs on start
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        turn = await inner.get_turn(ACCOUNT, unfinished.turn_id)
        assert turn is not None and turn.phase is TurnPhase.DELIVERED
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


async def test_failed_card_persistence_yields_no_text_about_a_card() -> None:
    text = "Withdraw Bob's trip"
    from pipeline_kit import operation

    provider = scripted([operation(text, "Bob", "withdraw", "Withdraw Bob's trip")])
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FaultyStore(inner, FaultPlan.crash(FaultPoint.BEFORE_INTERACTION_PERSISTENCE))
        async with running(provider, store=store) as (rt, _):
            response = await say(rt, text)
        assert response.phase is TurnPhase.FAILED
        assert await inner.list_open_interactions(ACCOUNT) == []
        for block in response.blocks:
            assert "card" not in block.text.lower() and "confirm" not in block.text.lower()


async def test_a_stage_actor_failing_mid_turn_is_asked_again_and_the_turn_completes_once() -> None:
    from turnframe.actors import narrator

    crashed: list[bool] = []
    original = narrator.compose_blocks

    def crash_once(**kwargs: object) -> object:
        if not crashed:
            crashed.append(True)
            raise RuntimeError("narrator killed mid-turn")
        return original(**kwargs)  # type: ignore[arg-type]

    provider = scripted(_acts())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(narrator, "compose_blocks", crash_once)
        async with running(provider) as (rt, store):
            response = await say(rt, TEXT)
            assert response.phase is TurnPhase.DELIVERED
            assert [e.type for e in await store.list_events(ACCOUNT)] == ["field_set"]
    assert crashed == [True]
    assert issubclass(narrator.NarratorActor, Actor)


async def test_recovery_leaves_the_turns_of_a_workflow_it_does_not_serve() -> None:
    from turnframe.examples import sample

    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        other = await inner.create_session(account_id=ACCOUNT, workflow="refund-desk")
        await inner.record_user_turn(
            account_id=ACCOUNT,
            session_id=other.session_id,
            payload={"text": "hello"},
            turn_id="turn-elsewhere",
        )
        async with running(scripted(), store=inner) as (rt, _):
            report = await rt.recover()
        assert report.skipped == ("turn-elsewhere",)
        assert sample("refund-desk").workflow.name == "refund-desk"


async def test_operators_see_a_supervision_event_when_a_stage_actor_fails_on_a_message() -> None:
    from turnframe.actors import narrator
    from turnframe.supervisors import EventKind, SupervisionEvent

    seen: list[SupervisionEvent] = []
    crashed: list[bool] = []
    original = narrator.compose_blocks

    def crash_once(**kwargs: object) -> object:
        if not crashed:
            crashed.append(True)
            raise RuntimeError("narrator killed mid-turn")
        return original(**kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(narrator, "compose_blocks", crash_once)
        async with running(scripted(_acts()), on_supervision_event=seen.append) as (rt, _):
            await say(rt, TEXT)
            assert rt.dead_letters.total == 0
    kinds = {(e.kind, e.child) for e in seen}
    assert any(kind is EventKind.CRASHED and "narrator" in child for kind, child in kinds)
    # Stage actors keep no state: the failed message is answered, nothing is restarted.
    assert not any(kind is EventKind.RESTARTED and "narrator" in child for kind, child in kinds)


async def test_a_store_down_when_the_turn_arrives_answers_with_a_typed_store_error() -> None:
    from turnframe.stores.delegating import DelegatingStore
    from turnframe.stores.errors import StoreTimeout

    class Down(DelegatingStore):
        async def record_user_turn(self, **kwargs: object) -> object:  # type: ignore[override]
            raise StoreTimeout("the database stayed locked")

        # A turn's arrival reads the store first (ADR 0022: the seal records a live turn).
        async def get_turn_start(self, *args: object) -> object:  # type: ignore[override]
            raise StoreTimeout("the database stayed locked")

    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        async with running(scripted(_acts()), store=Down(inner)) as (rt, _):
            with pytest.raises(StoreTimeout):
                await say(rt, TEXT)
            assert rt.dead_letters.total == 0
