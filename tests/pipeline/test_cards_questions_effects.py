"""Cards, questions, narration providers and external effects through the Runtime (issue 4)."""

from __future__ import annotations

import anyio
import pytest
from pipeline_kit import (
    ACCOUNT,
    answers,
    open_card,
    operation,
    option,
    question,
    running,
    say,
    scripted,
    set_field,
)

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.outbox import DispatchReport
from turnframe.plan import QuestionAct
from turnframe.providers.base import Purpose
from turnframe.response import BlockKind
from turnframe.results import OptionAction
from turnframe.stores.records import OutboxStatus
from turnframe.testing import span
from turnframe.testing.plans import TURN_CLOCK
from turnframe.testing.scripted import Answer, Fail, ManualDeadline, ScriptedProvider
from turnframe.testing.senders import Hang, RecordingSender

pytestmark = pytest.mark.anyio

NOTE = "Set Bob's note to aisle"


def _note_acts() -> list[object]:
    return [set_field(NOTE, "Bob", "note", "aisle", "note to aisle")]


async def test_a_provider_failing_after_commit_regenerates_narration_without_repeating_commands() -> (  # noqa: E501
    None
):
    writer = ScriptedProvider(name="writer", script=[], narrate=[Fail(kind="fatal")])
    async with running(scripted(_note_acts()), narration_provider=writer) as (rt, store):
        response = await say(rt, NOTE)
        assert response.phase is TurnPhase.DELIVERED
        assert [b.kind for b in response.blocks] == [BlockKind.RECEIPT]
        assert [e.type for e in await store.list_events(ACCOUNT)] == ["field_set"]
        journal = await store.list_journal(ACCOUNT, response.turn_id)
        assert [j.status for j in journal] == [JournalStatus.COMMITTED]
        stored = await store.get_assistant_turn(ACCOUNT, response.turn_id)
        assert stored is not None and stored.meta["narration_attempts"]


async def test_narration_may_retry_after_commit_and_its_lead_only_restates_the_reply() -> None:
    lead = '{"lead": "Your note now reads \\u201caisle\\u201d."}'
    writer = ScriptedProvider(name="writer", script=[], narrate=[Fail(kind="retry"), Answer(lead)])
    async with running(scripted(_note_acts()), narration_provider=writer) as (rt, store):
        response = await say(rt, NOTE)
        assert response.blocks[0].code == "turnframe.text.model_lead"
        assert response.blocks[0].data["model_authored"] is True
        assert len(writer.requests_for(Purpose.NARRATE)) == 2
        assert [e.type for e in await store.list_events(ACCOUNT)] == ["field_set"]


async def test_a_lead_that_claims_a_value_no_block_backs_is_dropped() -> None:
    writer = ScriptedProvider(
        name="writer", script=[], narrate=[Answer('{"lead": "Refunded 500 euros."}')]
    )
    async with running(scripted(_note_acts()), narration_provider=writer) as (rt, _):
        response = await say(rt, NOTE)
        assert all(b.code != "turnframe.text.model_lead" for b in response.blocks)


async def test_text_and_a_card_click_in_one_turn_both_take_effect() -> None:
    withdraw = "Withdraw Bob's trip"
    also = "Also set Carla's note to late"
    provider = scripted(
        [operation(withdraw, "Bob", "withdraw", withdraw)],
        [set_field(also, "Carla", "note", "late", "note to late")],
    )
    async with running(provider) as (rt, store):
        await say(rt, withdraw)
        card = await open_card(store)
        session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
        response = await rt.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id=option(card, OptionAction.CONFIRM),
            expected_revision=card.expected_revision or 0,
            text=also,
            at=TURN_CLOCK,
        )
        assert response.phase is TurnPhase.DELIVERED
        types = sorted(e.type for e in await store.list_events(ACCOUNT))
        assert types == ["field_set", "withdrawn"]
        assert await store.list_open_interactions(ACCOUNT) == []


async def test_a_question_during_an_open_card_keeps_the_card() -> None:
    withdraw = "Withdraw Bob's trip"
    ask = "What is Bob's status?"
    provider = scripted(
        [operation(withdraw, "Bob", "withdraw", withdraw)],
        [question(ask, "Bob", "status", ask)],
    )
    async with running(provider) as (rt, store):
        await say(rt, withdraw)
        card = await open_card(store)
        response = await say(rt, ask)
        assert any(b.kind is BlockKind.ANSWER for b in response.blocks)
        assert (await open_card(store)).interaction_id == card.interaction_id


async def test_an_unsupported_question_says_so() -> None:
    ask = "How about lunch?"
    provider = ScriptedProvider(
        name="model",
        script=answers([QuestionAct(evidence=span(ask, ask))]),
    )
    async with running(provider) as (rt, _):
        response = await say(rt, ask)
        [answer] = [b for b in response.blocks if b.kind is BlockKind.ANSWER]
        assert answer.code == "turnframe.answer.no_source"
        assert "lunch" in answer.text


async def test_an_external_timeout_becomes_an_unknown_outcome_not_a_retry() -> None:
    book = "Book Carla's trip"
    sender = RecordingSender([Hang()])
    deadline = ManualDeadline()
    settled = anyio.Event()

    def on_report(report: DispatchReport) -> None:
        settled.set()

    options = {"deadline": deadline, "on_report": on_report, "poll_interval": 3600.0}
    provider = scripted([operation(book, "Carla", "book", book)])
    async with running(provider, senders={"booking": sender}, outbox_options=options) as (
        rt,
        store,
    ):
        response = await say(rt, book)
        assert any(b.code == "turnframe.notice.verification_in_progress" for b in response.blocks)
        await sender.wait_for_sends(1)
        deadline.expire()
        with anyio.fail_after(10):
            await settled.wait()
        [row] = await store.list_outbox(ACCOUNT)
        assert row.status is OutboxStatus.OUTCOME_UNKNOWN
        assert rt.dispatcher is not None
        await rt.dispatcher.dispatch_once()
        assert len(sender.sends) == 1  # never blindly re-sent
