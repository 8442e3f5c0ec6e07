"""The sample desks end to end: rules interpreter → reducer → gate → grounding → narration."""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio
import pytest
from desk_kit import ACCOUNT, CLOCK, desk_runtime, say

from turnframe._converter import converter
from turnframe.examples import sample
from turnframe.examples.travel_desk import SAMPLE_GLOSSARY
from turnframe.lifecycle import TurnPhase
from turnframe.messages import UserTurn
from turnframe.providers.chain import ProviderChain
from turnframe.providers.policy import RetryPolicy
from turnframe.providers.rules import RulesProvider
from turnframe.references import parse_cli_references
from turnframe.response import BlockKind
from turnframe.results import ActStatus, InteractionToCreate, OptionAction
from turnframe.runtime import Runtime
from turnframe.stores import SqliteStore
from turnframe.testing.scripted import Hang, ManualDeadline, ScriptedProvider

pytestmark = pytest.mark.anyio

DEMO_FIRST = (
    "Change the travel date to Friday and add a note: window seat please. "
    "Actually, leave the date as it is. Is the discount still valid?"
)


async def test_the_demo_turn_keeps_the_date_adds_the_note_and_answers_the_discount() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        [case] = await store.list_cases(ACCOUNT)
        response = await say(rt, DEMO_FIRST)
        after = await store.get_case(ACCOUNT, case.case_id)
        assert after is not None
        assert after.state["travel_date"] == case.state["travel_date"]
        assert after.state["note"] == "window seat"
        kinds = [b.kind for b in response.blocks]
        assert BlockKind.ANSWER in kinds and BlockKind.RECEIPT in kinds
        notice = next(b for b in response.blocks if b.code == "turnframe.notice.kept_unchanged")
        assert "travel date" in notice.text
        assert response.results[0].status is ActStatus.SUPERSEDED_BY_CORRECTION


async def test_a_refund_taken_back_in_the_same_message_moves_nothing() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        response = await say(rt, "Refund 20 euros on order 1001\u2026 actually don't.")
        assert response.phase is TurnPhase.DELIVERED
        assert await store.list_events(ACCOUNT) == []
        assert await store.list_open_interactions(ACCOUNT) == []
        assert await store.list_outbox(ACCOUNT) == []


async def test_a_refund_over_what_was_paid_is_refused_before_any_card() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        response = await say(rt, "Refund 500 euros on order 1001.")
        assert response.results[0].status is ActStatus.REJECTED
        assert await store.list_open_interactions(ACCOUNT) == []
        assert not any(b.kind is BlockKind.CARD for b in response.blocks)


async def test_a_double_click_refunds_once() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        first = await say(rt, "Refund 20 euros on order 1001 because the strap broke.")
        assert first.results[0].status is ActStatus.AWAITING_CONFIRMATION
        [record] = await store.list_open_interactions(ACCOUNT)
        card = converter.structure(record.payload, InteractionToCreate)
        confirm = next(o.option_id for o in card.options if o.action is OptionAction.CONFIRM)
        session = await rt.open_session(account_id=ACCOUNT, session_id="s-1")
        for _ in range(2):
            await rt.respond(
                session=session,
                interaction_id=card.interaction_id,
                option_id=confirm,
                expected_revision=card.expected_revision or 0,
                at=CLOCK,
            )
        events = [e.type for e in await store.list_events(ACCOUNT)]
        assert events.count("refund_requested") + events.count("refunded") == 1, events
        assert len(await store.list_outbox(ACCOUNT)) == 1


async def test_a_silent_provider_is_never_sent_again_and_its_late_answer_is_recorded_once() -> None:
    desk = sample("refund-desk")
    text = "Refund 500 euros on order 1001."
    rules = RulesProvider(workflows=[desk.workflow])
    probe = UserTurn(
        session_id="s-1", account_id=ACCOUNT, turn_id="t-probe", text=text, clock=CLOCK
    )
    plan = rules.interpret(probe, desk.workflow, case_labels=["Order 1001", "Order 1002"])
    late = Hang(answer=plan)
    held = Hang(answer=plan)
    silent = ScriptedProvider(name="silent", script=[late])
    backup = ScriptedProvider(name="backup", script=[held])
    deadline = ManualDeadline()
    chain = ProviderChain([silent, backup], policy=RetryPolicy(), deadline=deadline)
    async with desk_runtime("refund-desk", provider=chain) as (rt, store):
        session = await rt.open_session(account_id=ACCOUNT, session_id="s-1")
        turn = rt.new_turn(session, text, at=CLOCK)
        async with anyio.create_task_group() as tg:
            tg.start_soon(rt.handle_turn, turn)
            await late.reached()
            deadline.expire()
            await held.reached()
            late.release()
            await late.delivered()
            held.release()
        record = await store.get_turn(ACCOUNT, turn.turn_id)
        assert record is not None and record.phase is TurnPhase.DELIVERED
        attempts = record.plan["provider_attempts"]
        outcomes = [(a["provider"], a["outcome"]) for a in attempts]
        assert outcomes == [("silent", "timed_out"), ("silent", "late_answer"), ("backup", "ok")]
        assert len(silent.requests) == 1


async def test_the_glossary_maps_the_usual_hotel_and_never_adds_what_the_user_did_not_say(
    tmp_path: Path,
) -> None:
    glossary = tmp_path / "glossary.md"
    glossary.write_text(SAMPLE_GLOSSARY, encoding="utf-8")
    bindings = parse_cli_references([f"glossary={glossary}"], cwd=tmp_path)
    async with desk_runtime("travel-desk", cli_references=bindings) as (rt, store):
        response = await say(rt, "Add the usual hotel night.")
        assert len(response.results) == 1
        for event in await store.list_events(ACCOUNT):
            assert "lounge" not in str(event.payload).lower()
        record = await store.get_turn(ACCOUNT, response.turn_id)
        assert record is not None and "lounge" not in record.plan["raw"].lower()
        assert "Hotel Almirante" in record.plan["raw"]  # the alias, with evidence on "usual hotel"
        [act] = record.plan["plan"]["acts"]
        assert all(e["text"] in "Add the usual hotel night." for e in act["evidence"])
        references = record.plan["references"]["references"]
        digest = hashlib.sha256(glossary.read_bytes()).hexdigest()
        assert [(r["slot"], r["digest"]) for r in references] == [("glossary", digest)]


async def test_two_runs_differing_only_in_glossary_bytes_differ_in_digest_not_template_hash(
    tmp_path: Path,
) -> None:
    records = []
    for n, text in enumerate([SAMPLE_GLOSSARY, SAMPLE_GLOSSARY + "- late checkout\n"]):
        path = tmp_path / f"g{n}.md"
        path.write_text(text, encoding="utf-8")
        bindings = parse_cli_references([f"glossary={path}"], cwd=tmp_path)
        async with desk_runtime("travel-desk", cli_references=bindings) as (rt, store):
            response = await say(rt, "Set the note to window seat.")
            record = await store.get_turn(ACCOUNT, response.turn_id)
            assert record is not None
            records.append(record.plan["references"])
    assert records[0]["reference_digest"] != records[1]["reference_digest"]
    assert records[0]["template_hash"] == records[1]["template_hash"]


async def test_the_thread_context_survives_a_session_resume(tmp_path: Path) -> None:
    path = tmp_path / "turns.db"
    async with SqliteStore.open(str(path)) as store:
        from desk_kit import seed

        await seed(store, "travel-desk")
    async with (
        SqliteStore.open(str(path)) as store,
        desk_runtime("travel-desk", store=store, anaphora=True) as (rt, _),
    ):
        await say(rt, "Why does light reveal truth?")
    async with (
        SqliteStore.open(str(path)) as store,
        desk_runtime("travel-desk", store=store, anaphora=True) as (rt, _),
    ):
        response = await say(rt, "What is light?")
    [answer] = [b for b in response.blocks if b.kind is BlockKind.ANSWER]
    assert answer.text == (
        "(Recalling turn 0: chain cause_light_reveals_truth.) light — pack-grounded "
        "(en_core_cognition_v1): cognition.illumination; logos.core; perception.clarity."
    )


async def test_a_workflow_words_its_own_receipts_from_the_committed_event() -> None:
    async with desk_runtime("travel-desk") as (rt, _):
        response = await say(rt, "Add an extra: 3 nights at the hotel at 80 euros each.")
        [receipt] = [b for b in response.blocks if b.kind is BlockKind.RECEIPT]
        assert receipt.text == (
            "Trip \u201cLisbon\u201d: extra added: 3 x nights at the hotel at 80.00 EUR, paid by "
            "traveller."
        )


async def test_anaphora_can_be_turned_on_for_one_session_only() -> None:
    from turnframe.testing.seed_surfaces import LIGHT, RECALLING_LIGHT_CAUSE

    lines = ("Why does light reveal truth?", "What is light?")
    async with desk_runtime("travel-desk") as (rt, _):  # the runtime's default: off
        chosen = await rt.open_session(account_id=ACCOUNT, session_id="s-on", anaphora=True)
        answers = {}
        for session_id in ("s-on", "s-default"):
            response = None
            for text in lines:
                session = await rt.open_session(account_id=ACCOUNT, session_id=session_id)
                response = await rt.handle_turn(rt.new_turn(session, text, at=CLOCK))
            assert response is not None
            [answer] = [b for b in response.blocks if b.kind is BlockKind.ANSWER]
            answers[session_id] = answer.text
        assert chosen.session_id == "s-on"
    assert answers == {"s-on": RECALLING_LIGHT_CAUSE + LIGHT, "s-default": LIGHT}


async def test_a_workflows_own_corpora_are_registered_by_the_runtime() -> None:
    desk = sample("travel-desk")
    async with SqliteStore.open(":memory:") as store:
        from desk_kit import seed

        await seed(store, "travel-desk")
        async with Runtime(
            workflows=[desk.workflow],
            store=store,
            provider=RulesProvider(workflows=[desk.workflow]),
        ) as rt:  # no registry given: the shipped corpora and the workflow's own
            session = await rt.open_session(account_id=ACCOUNT)
            response = await rt.handle_turn(
                rt.new_turn(session, "What is a fare difference?", at=CLOCK)
            )
    [answer] = [b for b in response.blocks if b.kind is BlockKind.ANSWER]
    assert answer.text.startswith("fare difference — pack-grounded (travel_policy_v1)")
