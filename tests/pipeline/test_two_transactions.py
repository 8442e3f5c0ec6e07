"""A turn in one read and two write transactions (ADR 0022), and what a crash at each of the new
boundaries leaves: before the seal nothing of a live turn is durable (its caller sends it
again); between the commit bundle and a reply left out of it, the reply is written after and
nothing runs again."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from pipeline_kit import ACCOUNT, question, running, say, scripted, set_field

from turnframe._converter import converter
from turnframe.actors.session import TurnIncomplete
from turnframe.lifecycle import TurnPhase
from turnframe.providers.base import Purpose
from turnframe.stores import SqliteStore, StoreTimeout
from turnframe.stores.delegating import DelegatingStore
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.pipeline import seed_store
from turnframe.testing.plans import TURN_CLOCK

pytestmark = pytest.mark.anyio

TEXT = "Set Bob's note to aisle"
ASK = "What is Bob's status?"


def _acts() -> list[object]:
    return [set_field(TEXT, "Bob", "note", "aisle", "note to aisle")]


class Counting(DelegatingStore):
    """Counts store calls by name, once the counting starts."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.calls: Counter[str] = Counter()
        self.seals: list[Any] = []

    def __getattribute__(self, name: str) -> Any:
        attribute = super().__getattribute__(name)
        if name.startswith("_") or not callable(attribute) or name in ("calls", "seals"):
            return attribute

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            if name == "seal_turn":
                self.seals.append(args[2])
            return await attribute(*args, **kwargs)

        return counted


class DeadBeforeTheSeal(DelegatingStore):
    """The process is as good as dead once the turn is interpreted: nothing more is written."""

    async def seal_turn(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreTimeout("the database stays locked (seal)")

    async def record_user_turn(self, **kwargs: Any) -> Any:
        raise StoreTimeout("the database stays locked (turn)")


class FirstLiveSealDies(DelegatingStore):
    """The first seal that records a live turn fails before writing anything."""

    died = 0

    async def seal_turn(self, account_id: str, turn_id: str, seal: Any) -> Any:
        if seal.user_turn is not None and not self.died:
            self.died += 1
            raise RuntimeError("the seal dies before it writes")
        return await super().seal_turn(account_id, turn_id, seal)


class ReplyNeverWritten(DelegatingStore):
    """The bundle commits without its reply, and no reply can be written after it."""

    async def commit_bundle(self, bundle: Any, **kwargs: Any) -> Any:
        import attrs

        return await super().commit_bundle(attrs.evolve(bundle, reply=None), **kwargs)

    async def save_assistant_turn(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreTimeout("the database stays locked (reply)")


async def test_a_template_turn_that_commits_takes_one_read_and_two_write_transactions() -> None:
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = Counting(inner)
        async with running(scripted([], _acts()), store=store) as (rt, _):
            await say(rt, "Hello")  # the session actor's start is not a turn's cost
            session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
            turn = rt.new_turn(session, TEXT, at=TURN_CLOCK)
            store.calls.clear()
            response = await rt.handle_turn(turn)
            calls = store.calls.copy()
        assert response.phase is TurnPhase.DELIVERED and len(response.events) == 1
        assert calls == Counter(get_turn_start=1, seal_turn=1, commit_bundle=1)
        stored = await inner.get_assistant_turn(ACCOUNT, response.turn_id)
        assert stored is not None
        assert [converter.unstructure(b) for b in response.blocks] == stored.blocks


async def test_a_turn_that_only_asks_ends_in_two_write_transactions() -> None:
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = Counting(inner)
        acts = [question(ASK, "Bob", "status", "Bob's status?")]
        async with running(scripted(acts), store=store) as (rt, _):
            session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
            turn = rt.new_turn(session, ASK, at=TURN_CLOCK)
            store.calls.clear()
            response = await rt.handle_turn(turn)
            calls = store.calls.copy()
        assert response.phase is TurnPhase.DELIVERED
        writes = {n: c for n, c in calls.items() if not n.startswith(("get_", "list_"))}
        assert writes == {"seal_turn": 1, "commit_bundle": 1}


async def test_a_turn_already_in_the_inbox_is_not_recorded_again() -> None:
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = Counting(inner)
        async with running(scripted(_acts()), store=store) as (rt, _):
            session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
            turn = rt.new_turn(session, TEXT, at=TURN_CLOCK)
            await inner.submit_turn(
                account_id=ACCOUNT,
                session_id="sess-1",
                payload=converter.unstructure(turn),
                turn_id=turn.turn_id,
            )
            response = await rt.handle_turn(turn)
        assert response.phase is TurnPhase.DELIVERED
        assert store.calls["record_user_turn"] == 0
        assert [s.user_turn for s in store.seals] == [None]


async def test_a_live_turn_stopped_before_its_seal_leaves_nothing_and_sent_again_commits_once() -> (
    None
):
    provider = scripted(_acts(), _acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        async with running(provider, store=DeadBeforeTheSeal(inner)) as (rt, _):
            session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
            turn = rt.new_turn(session, TEXT, at=TURN_CLOCK)
            with pytest.raises(StoreTimeout):
                await rt.handle_turn(turn)
        assert await inner.get_turn(ACCOUNT, turn.turn_id) is None
        assert await inner.list_unfinished_turns(account_id=None) == []
        assert await inner.list_journal(ACCOUNT, turn.turn_id) == []
        async with running(provider, store=inner) as (rt, _):
            response = await rt.handle_turn(turn)  # the caller sends it again
        assert response.phase is TurnPhase.DELIVERED
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 2


async def test_a_crash_as_a_turn_arrives_restarts_its_session_and_the_turn_commits_once() -> None:
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FaultyStore(inner, FaultPlan.crash(FaultPoint.BEFORE_TURN_RECORDED))
        async with running(provider, store=store) as (rt, _):
            response = await say(rt, TEXT)
        assert [h.point for h in store.fired] == [FaultPoint.BEFORE_TURN_RECORDED]
        assert response.phase is TurnPhase.DELIVERED
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


async def test_a_seal_that_fails_to_record_a_live_turn_records_it_with_its_plan_and_commits_once() -> (  # noqa: E501
    None
):
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FirstLiveSealDies(inner)
        async with running(provider, store=store) as (rt, _):
            response = await say(rt, TEXT)
        assert response.phase is TurnPhase.DELIVERED
        assert store.died == 1
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


async def test_a_reply_left_out_of_its_bundle_is_written_by_recovery_without_running_again() -> (
    None
):
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        async with running(provider, store=ReplyNeverWritten(inner)) as (rt, _):
            with pytest.raises(TurnIncomplete):
                await say(rt, TEXT)
        [unfinished] = await inner.list_unfinished_turns(account_id=None)
        assert unfinished.phase is TurnPhase.COMMITTED
        assert await inner.get_assistant_turn(ACCOUNT, unfinished.turn_id) is None
        async with running(provider, store=inner) as (rt, _):
            pass  # recovery runs on start
        turn = await inner.get_turn(ACCOUNT, unfinished.turn_id)
        assert turn is not None and turn.phase is TurnPhase.DELIVERED
        assert await inner.get_assistant_turn(ACCOUNT, unfinished.turn_id) is not None
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


async def test_a_crash_between_the_commit_and_its_reply_delivers_the_reply_after_once() -> None:
    provider = scripted(_acts())
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FaultyStore(inner, FaultPlan.crash(FaultPoint.BEFORE_RESPONSE_PERSISTENCE))
        async with running(provider, store=store) as (rt, _):
            response = await say(rt, TEXT)
        assert [h.point for h in store.fired] == [FaultPoint.BEFORE_RESPONSE_PERSISTENCE]
        assert response.phase is TurnPhase.DELIVERED
        stored = await inner.get_assistant_turn(ACCOUNT, response.turn_id)
        assert stored is not None
        assert [converter.unstructure(b) for b in response.blocks] == stored.blocks
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["field_set"]
