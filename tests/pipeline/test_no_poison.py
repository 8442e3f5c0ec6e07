"""No poison: whatever a turn brings ends that turn with a typed reason; the runtime serves on."""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from desk_kit import desk_runtime
from pipeline_kit import ACCOUNT, running, say, scripted, set_field

from turnframe.actors.session import InvalidTurn, TurnIncomplete
from turnframe.examples import sample
from turnframe.examples.travel_desk import SAMPLE_GLOSSARY
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.providers.base import ProviderAnswer, ProviderRequest, Purpose
from turnframe.providers.rules import RulesProvider
from turnframe.references import ContextBudgetExceededError, InlineSource
from turnframe.runtime import RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.supervisors import EventKind, SupervisionEvent
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.pipeline import plan_answer, seed_store
from turnframe.testing.scripted import Answer, ScriptedProvider

pytestmark = pytest.mark.anyio

TEXT = "Set Bob's note to aisle"


def _note_plan() -> str:
    return plan_answer([set_field(TEXT, "Bob", "note", "aisle", "note to aisle")])


def _codes(response: Any) -> list[str]:
    return [b.code for b in response.blocks]


async def test_an_answer_nested_a_thousand_levels_deep_fails_its_turn_and_the_next_turn_works() -> (
    None
):
    deep = "[" * 1000 + "]" * 1000
    # The deep answer, then the same again in the repair round: the turn fails.
    script = [Answer(deep), Answer(deep), Answer(_note_plan())]
    provider = ScriptedProvider(name="model", script=script)
    async with running(provider) as (rt, store):
        failed = await say(rt, TEXT)
        assert failed.phase is TurnPhase.FAILED
        assert _codes(failed) == ["turnframe.notice.plan_rejected"]
        replay = await store.get_replay_record(ACCOUNT, failed.turn_id)
        assert replay is not None and replay["error"]["code"] == "turnframe.plan.rejected"
        assert (await say(rt, TEXT)).phase is TurnPhase.DELIVERED
        assert await store.list_unfinished_turns(account_id=None) == []
        assert (await rt.recover()).resumed == ()


async def test_a_lone_surrogate_in_a_plan_value_is_a_rejected_plan_never_a_store_error() -> None:
    escaped = _note_plan().replace('"aisle"', '"\\ud800"')
    literal = _note_plan().replace('"aisle"', '"\ud800"')  # a provider handing back a bad str
    # Each turn's answer comes twice: the answer, then the same in the repair round.
    script = [Answer(escaped), Answer(escaped), Answer(literal), Answer(literal)]
    provider = ScriptedProvider(name="model", script=script)
    async with running(provider) as (rt, store):
        for _ in range(2):
            response = await say(rt, TEXT)
            assert response.phase is TurnPhase.FAILED
            assert _codes(response) == ["turnframe.notice.plan_rejected"]
            replay = await store.get_replay_record(ACCOUNT, response.turn_id)
            assert replay is not None and "surrogate" in json.dumps(replay["problems"])
        assert await store.list_unfinished_turns(account_id=None) == []
        assert await store.list_events(ACCOUNT) == []


async def test_a_turn_text_with_a_lone_surrogate_is_refused_typed_and_nothing_is_recorded() -> None:
    async with running(scripted()) as (rt, store):
        session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
        with pytest.raises(InvalidTurn) as caught:
            await rt.handle_turn(rt.new_turn(session, "Set the note to \ud800"))
        assert caught.value.code == "turnframe.turn.invalid"
        assert await store.list_session_turns(ACCOUNT, "sess-1") == []


async def test_references_over_a_fallback_providers_budget_fail_the_start_naming_the_slot() -> None:
    desk = "travel-desk"
    big = InlineSource(content=(SAMPLE_GLOSSARY * 200).encode(), label="big glossary")
    small = ScriptedProvider(name="small-fallback", context_budget_tokens=2_000)
    primary = RulesProvider(workflows=[sample(desk).workflow])
    with pytest.raises(ContextBudgetExceededError) as caught:
        async with desk_runtime(desk, provider=[primary, small], references={"glossary": big}):
            pass
    assert caught.value.slot == "glossary"
    assert caught.value.provider == "provider 'small-fallback'"
    assert "'glossary'" in caught.value.message


async def test_a_turn_too_large_for_the_budget_fails_typed_and_is_never_left_received() -> None:
    provider = ScriptedProvider(name="model", context_budget_tokens=1_000)
    async with running(provider) as (rt, store):
        # Under the length limit (max_turn_chars), over the budget with the prompt around it.
        text = "Set Bob's note to " + "very " * 750 + "long"
        assert len(text) < rt.settings.max_turn_chars
        response = await say(rt, text)
        assert response.phase is TurnPhase.FAILED
        assert _codes(response) == ["turnframe.notice.interpretation_failed"]
        replay = await store.get_replay_record(ACCOUNT, response.turn_id)
        assert replay is not None
        assert replay["error"]["code"] == "turnframe.reference.context_budget_exceeded"
        assert provider.requests == []  # failed before any provider call
        assert await store.list_unfinished_turns(account_id=None) == []
        assert (await rt.recover()).resumed == ()


async def test_a_step_that_fails_the_same_way_every_time_parks_the_turn_failed_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from turnframe.actors import reduction

    def broken(*_: object) -> object:
        raise KeyError("a reducer bug this turn trips every time")

    monkeypatch.setattr(reduction, "reduce", broken)
    provider = scripted([set_field(TEXT, "Bob", "note", "aisle", "note to aisle")])
    async with running(provider) as (rt, store):
        response = await say(rt, TEXT)
        assert response.phase is TurnPhase.FAILED
        assert _codes(response) == ["turnframe.notice.turn_failed"]
        replay = await store.get_replay_record(ACCOUNT, response.turn_id)
        assert replay is not None
        assert (replay["outcome"], replay["reason"]) == ("turn_failed", "turnframe.turn.parked")
        assert replay["error"]["code"] == "builtins.KeyError"
        assert replay["stopped_in"] == "interpreted"
        # Recorded once, never tried again: no unfinished turn, one interpretation.
        assert await store.list_unfinished_turns(account_id=None) == []
        assert (await rt.recover()).resumed == ()
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1
        reloaded = await rt.reload(account_id=ACCOUNT, turn_id=response.turn_id)
        assert reloaded is not None and reloaded.blocks == response.blocks


async def test_a_reply_that_keeps_failing_after_the_commit_is_delivered_with_a_fallback_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from turnframe.actors import narrator

    def broken(**_: object) -> object:
        raise ValueError("a narration bug this turn trips every time")

    monkeypatch.setattr(narrator, "compose_blocks", broken)
    provider = scripted([set_field(TEXT, "Bob", "note", "aisle", "note to aisle")])
    async with running(provider) as (rt, store):
        response = await say(rt, TEXT)
        assert response.phase is TurnPhase.DELIVERED  # the change committed: never denied
        [block] = response.blocks
        assert block.code == "turnframe.notice.reply_unavailable" and block.acts == (0,)
        assert [e.type for e in await store.list_events(ACCOUNT)] == ["field_set"]
        stored = await store.get_assistant_turn(ACCOUNT, response.turn_id)
        assert stored is not None and stored.meta is not None
        assert stored.meta["parked"]["error"]["code"] == "builtins.ValueError"


async def test_a_transient_failure_is_left_to_recovery_then_parked_after_its_budget() -> None:
    provider = scripted([set_field(TEXT, "Bob", "note", "aisle", "note to aisle")])
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        plan = FaultPlan.timeout(FaultPoint.INSIDE_COMMIT_BUNDLE, times=None)
        settings = RuntimeSettings(pool_size=1, ask_timeout=10.0, park_after=3)
        async with running(provider, store=FaultyStore(inner, plan), settings=settings) as (rt, _):
            with pytest.raises(TurnIncomplete):
                await say(rt, TEXT)
            [stuck] = await inner.list_unfinished_turns(account_id=None)
            assert stuck.phase is TurnPhase.EXECUTING
            first = await rt.recover()
            assert first.incomplete == (stuck.turn_id,)
            second = await rt.recover()  # the third time the same way: parked
            assert second.resumed == (stuck.turn_id,)
            assert (await rt.recover()).resumed == ()
        turn = await inner.get_turn(ACCOUNT, stuck.turn_id)
        assert turn is not None and turn.phase is TurnPhase.FAILED
        journal = await inner.list_journal(ACCOUNT, stuck.turn_id)
        assert [j.status for j in journal] == [JournalStatus.FAILED]
        assert await inner.list_events(ACCOUNT) == []
        replay = await inner.get_replay_record(ACCOUNT, stuck.turn_id)
        assert replay is not None and replay["error"]["code"] == "turnframe.store.timeout"
        assert replay["attempts"] == 3
        assert len(provider.requests_for(Purpose.INTERPRET)) == 1


class NotePlanner:
    """Answers any turn that says "note to aisle" with that one act, whatever the session."""

    name = "model"
    context_budget_tokens = 8192

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        text = json.loads(request.messages[0].content)["text"]
        await anyio.lowlevel.checkpoint()
        if "note to aisle" not in text:
            return ProviderAnswer(text=plan_answer([]))
        acts = [set_field(text, "Bob", "note", "aisle", "note to aisle")]
        return ProviderAnswer(text=plan_answer(acts))


async def test_a_poisoned_session_cannot_stop_a_healthy_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The poisoned session's turns crash a stage actor and its own session actor, over and
    over; the healthy session keeps being served throughout and nothing escalates."""
    from turnframe.actors import reduction
    from turnframe.stores.delegating import DelegatingStore

    real_reduce = reduction.reduce

    def reduce_unless_poisoned(plan: Any, context: Any) -> Any:
        if "poison" in context.turn.text:
            raise RecursionError("a stage crash this session's input provokes")
        return real_reduce(plan, context)

    class CrashesPoisonedSessions(DelegatingStore):
        async def record_user_turn(self, **kwargs: Any) -> Any:
            if kwargs["session_id"] == "poisoned" and "crash" in kwargs["payload"]["text"]:
                raise RuntimeError("the poisoned session's actor dies here")
            return await super().record_user_turn(**kwargs)

        # A live turn is recorded by its seal (ADR 0022): the same failure, where it now is.
        async def seal_turn(self, account_id: str, turn_id: str, seal: Any) -> Any:
            arrived = seal.user_turn
            poisoned = arrived is not None and arrived.session_id == "poisoned"
            if poisoned and "crash" in arrived.payload["text"]:
                raise RuntimeError("the poisoned session's actor dies here")
            return await super().seal_turn(account_id, turn_id, seal)

    monkeypatch.setattr(reduction, "reduce", reduce_unless_poisoned)
    events: list[SupervisionEvent] = []
    healthy_text = TEXT
    poison_text = "poison: Set Bob's note to aisle"
    rounds = 12
    provider = NotePlanner()
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = CrashesPoisonedSessions(inner)
        settings = RuntimeSettings(pool_size=1, ask_timeout=10.0)
        async with running(
            provider, store=store, settings=settings, on_supervision_event=events.append
        ) as (rt, _):
            healthy = await rt.open_session(account_id=ACCOUNT, session_id="healthy")
            poisoned = await rt.open_session(account_id=ACCOUNT, session_id="poisoned")
            served: list[TurnPhase] = []

            async def poison_it() -> None:
                for i in range(rounds):
                    text = poison_text if i % 2 == 0 else f"crash {i}"
                    try:
                        response = await rt.handle_turn(rt.new_turn(poisoned, text))
                    except Exception as error:  # typed: the session actor died on this one
                        assert getattr(error, "code", "").startswith("turnframe.")
                    else:
                        assert response.phase is TurnPhase.FAILED

            async with anyio.create_task_group() as tg:
                tg.start_soon(poison_it)
                for _ in range(rounds):
                    response = await rt.handle_turn(rt.new_turn(healthy, healthy_text))
                    served.append(response.phase)
            assert served == [TurnPhase.DELIVERED] * rounds
            assert (await rt.handle_turn(rt.new_turn(healthy, healthy_text))).blocks
        assert not [e for e in events if e.kind is EventKind.ESCALATED]
        healthy_events = {e.kind for e in events if e.child == f"{ACCOUNT}/healthy"}
        assert healthy_events <= {EventKind.STARTED, EventKind.STOPPED}
        assert any(e.kind is EventKind.GAVE_UP for e in events)  # the poisoned one, alone
        assert await inner.list_unfinished_turns(account_id=None) == []


async def test_a_parked_turn_shows_its_reason_in_sessions_and_replay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from turnframe.actors import reduction
    from turnframe.cli.sessions import session_rows
    from turnframe.pipeline.replay_view import load_replay_view

    def broken(*_: object) -> object:
        raise KeyError("a reducer bug")

    monkeypatch.setattr(reduction, "reduce", broken)
    provider = scripted([set_field(TEXT, "Bob", "note", "aisle", "note to aisle")])
    async with running(provider) as (rt, store):
        response = await say(rt, TEXT)
        [row] = await session_rows(store, ACCOUNT, every_turn=False)
        assert (row.phase, row.reason) == ("failed", "builtins.KeyError")
        assert row.phase_shown == "failed (builtins.KeyError)"
        view = await load_replay_view(store, account_id=ACCOUNT, turn_id=response.turn_id)
        assert view is not None and view.failure is not None
        assert view.failure["reason"] == "turnframe.turn.parked"
        assert (view.failure["stopped_in"], view.failure["attempts"]) == ("interpreted", 3)


async def test_a_click_whose_ids_hold_a_lone_surrogate_is_refused_typed_and_nothing_recorded() -> (
    None
):
    async with running(scripted()) as (rt, store):
        session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
        with pytest.raises(InvalidTurn) as caught:
            await rt.respond(
                session=session, interaction_id="int-\udcff", option_id="ok", expected_revision=1
            )
        assert "interaction_response" in caught.value.message
        assert await store.list_session_turns(ACCOUNT, "sess-1") == []
