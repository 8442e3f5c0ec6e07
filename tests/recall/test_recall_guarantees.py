"""What recall guarantees whatever the conversation: one identifier however it is written, a fork
resumed through its parent, no gist in a presentation, no account seeing another's sessions,
no session lost to a stale or missing index entry, records that cannot be opened named."""

from __future__ import annotations

import itertools
import json

import pytest
from recall_kit import (
    ACCOUNT,
    DESK,
    Chat,
    codes,
    converse,
    index,
    presented_sessions,
    recall_block,
    recalling,
    seed,
)

from turnframe.lifecycle import TurnPhase
from turnframe.providers.rules import RulesProvider
from turnframe.recall import search
from turnframe.recall.stage import RecallStage
from turnframe.recall.writer import index_session
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import NewRecallEntry, Store
from turnframe.supervisors import EventKind, SupervisionEvent

pytestmark = pytest.mark.anyio

REVIEW = "Can you hold the booking until PR 309 is merged? The reviewer wants the new fare rules"
ORDER = "Order 309 arrived with the wrong adapter, can you send another one?"
DOCS = "Please attach the packing list from docs/packing.md to the trip"


@pytest.mark.parametrize(
    "asked",
    [
        "what did we say about PR 309?",
        "do you remember the pull request 309 thing?",
        "what was that thing we discussed about #309?",
        "remind me what we decided about pull request #309",
    ],
)
async def test_pr_309_pull_request_309_and_hash_309_are_one_identifier(
    store: Store, asked: str
) -> None:
    async with recalling(store) as rt:
        review = await converse(rt, [REVIEW], days_ago=10)
        await converse(rt, [ORDER], days_ago=2)
        await converse(rt, [DOCS], days_ago=1)
        await index(rt)
        entries = await rt.store.get_recall_entries(ACCOUNT, [review.session_id])
        literals = [i["literal"] for i in entries[0].entry["identifiers"]]
        assert literals == ["#309"]
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(asked))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block)[0] == review.session_id


async def test_an_order_number_never_anchors_a_pull_request_recall(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [ORDER], days_ago=1)  # the newer one
        await converse(rt, [REVIEW], days_ago=5)
        await index(rt)
        pull = await search(rt.store, ACCOUNT, "PR 309")
        assert next(c.excerpt for c in pull.candidates) == REVIEW
        assert all(c.score == 0 for c in pull.candidates if c.excerpt == ORDER)
        order = await search(rt.store, ACCOUNT, "order #309")
        assert next(c.excerpt for c in order.candidates) == ORDER


async def test_a_fork_resolves_to_its_parents_resume_handle(store: Store) -> None:
    async with recalling(store) as rt:
        parent = await converse(rt, ["Plan the Lisbon trip for the spring"], days_ago=12)
        fork = await converse(
            rt,
            ["On the side: the tram 28 pass, is it cheaper by the week?"],
            days_ago=11,
            fork_of=parent.session_id,
        )
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what did we say about the tram pass?"))
        [shown, *_] = block.data["candidates"]
        assert shown["session_id"] == fork.session_id
        assert shown["resume"].endswith(f"--session {parent.session_id}")
        assert fork.session_id not in shown["resume"]


async def test_a_fork_whose_parent_is_gone_says_it_cannot_be_resumed(store: Store) -> None:
    async with recalling(store) as rt:
        fork = await converse(
            rt, ["The tram 28 pass, is it cheaper by the week?"], days_ago=11, fork_of="ses_gone"
        )
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what did we say about the tram pass?"))
        [shown, *_] = block.data["candidates"]
        assert shown["session_id"] == fork.session_id
        assert shown["resume"] is None
        assert "cannot be resumed" in block.text


async def test_the_gist_never_appears_in_a_presentation(store: Store) -> None:
    async with recalling(store) as rt:
        review = await converse(rt, [REVIEW, "Set the note to wait for PR 309"], days_ago=10)
        await index(rt)
        [entry] = await rt.store.get_recall_entries(ACCOUNT, [review.session_id])
        gist = entry.entry["gist"]
        assert gist
        chat = await Chat.start(rt)
        for said in ("what did we say about PR 309?", "yes, that one"):
            response = await chat.say(said)
            for block in response.blocks:
                shown = block.text + json.dumps(block.data, ensure_ascii=False)
                assert gist not in shown
                assert "conversation of" not in shown  # the gist's own wording


async def test_an_account_never_sees_another_accounts_sessions(store: Store) -> None:
    async with recalling(store) as rt:
        theirs = await converse(rt, [REVIEW], days_ago=3, account="someone-else")
        await index(rt, "someone-else")
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what did we say about PR 309?"))
        assert block.code == "turnframe.recall.ask"
        assert theirs.session_id not in json.dumps(block.data)
        found = await search(rt.store, ACCOUNT, "PR 309 reviewer fare rules", full_text=True)
        # Today's session only asked about it: a recall turn is never a candidate either.
        assert found.candidates == () and found.dropped == ()
        assert found.sessions == 1  # the account's own sessions: today's alone


async def test_a_session_never_indexed_is_found_by_its_opening(store: Store) -> None:
    async with recalling(store) as rt:
        review = await converse(rt, [REVIEW], days_ago=4)
        assert await rt.store.get_recall_entries(ACCOUNT, [review.session_id]) == []
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what was that thing about the reviewer?"))
        assert presented_sessions(block)[0] == review.session_id


async def test_a_stale_entry_never_loses_a_session(store: Store) -> None:
    async with recalling(store) as rt:
        trip = await converse(rt, [DOCS], days_ago=9)
        await index(rt)  # then the conversation went on: the entry no longer covers it
        later = await rt.open_session(account_id=ACCOUNT, session_id=trip.session_id)
        await rt.handle_turn(rt.new_turn(later, "Oh and Ines says the azulejo museum is shut"))
        chat = await Chat.start(rt)
        await chat.say("do you remember what somebody said about a museum?")
        await chat.say("the azulejo one, I think it was shut")
        found = recall_block(await chat.click("expand"))
        assert found.code == "turnframe.recall.presented"
        assert presented_sessions(found)[0] == trip.session_id
        assert "azulejo" in found.data["candidates"][0]["excerpt"]


async def test_a_candidate_whose_record_cannot_be_opened_is_dropped_and_named(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        review = await converse(rt, [REVIEW], days_ago=4)
        await index(rt)
        # An entry that outlived its record (the session was removed from the store).
        await rt.store.write_recall_entry(
            ACCOUNT,
            NewRecallEntry(session_id="ses_removed", entry={}, terms="reviewer fare rules 309"),
        )
        chat = await Chat.start(rt)
        said = "what did we say about the reviewer and the fare rules?"
        block = recall_block(await chat.say(said))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block) == [review.session_id]
        assert block.data["dropped"] == ["ses_removed"]
        assert "ses_removed" in block.text


async def test_only_unopenable_candidates_lead_to_the_open_question_naming_them(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await rt.store.write_recall_entry(
            ACCOUNT, NewRecallEntry(session_id="ses_removed", entry={}, terms="sintra ferry")
        )
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("do you remember the Sintra ferry thing?"))
        assert block.code == "turnframe.recall.ask"
        assert "ses_removed" in block.text


async def test_a_record_built_from_less_than_its_whole_source_says_so_when_recalled(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        # A conversation imported without the runtime's own reading of it (no plan on record).
        session = await rt.store.create_session(account_id=ACCOUNT, workflow="travel-desk")
        turn = await rt.store.record_user_turn(
            account_id=ACCOUNT,
            session_id=session.session_id,
            payload={"text": "The night bus to Faro leaves from Oriente at 23:40"},
        )
        for before, after in itertools.pairwise(list(TurnPhase)[:-1]):
            await rt.store.advance_phase(ACCOUNT, turn.turn_id, before, after)
        entry = await index_session(rt.store, ACCOUNT, session.session_id)
        assert entry is not None and entry.source_scan.unverified_user_turns == 1
        chat = await Chat.start(rt)
        await chat.say("what did we say about the night bus to Faro?")
        block = recall_block(await chat.say("yes, that one"))
        assert block.code == "turnframe.recall.identified"
        assert "less than its whole source" in block.text


async def test_a_recall_stage_failing_on_every_message_parks_those_turns_and_stops_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No poison (ADR 0013) for the recall stage too: far more failures than the stages
    supervisor's restart intensity allows, and the runtime serves on."""
    async def broken(self: RecallStage, message: object) -> object:
        raise KeyError("a recall bug tripped by this conversation")

    monkeypatch.setattr(RecallStage, "advance", broken)
    events: list[SupervisionEvent] = []
    await seed(store)
    async with Runtime(
        workflows=[DESK.workflow],
        store=store,
        provider=RulesProvider(workflows=[DESK.workflow]),
        settings=RuntimeSettings(pool_size=1, ask_timeout=20.0),
        on_supervision_event=events.append,
    ) as rt:
        chat = await Chat.start(rt)
        for _ in range(5):  # 3 failed tries each: more than 10 restarts would escalate
            response = await chat.say("what did we say about PR 309?")
            assert response.phase is TurnPhase.DELIVERED
            assert codes(response) == ["turnframe.notice.reply_unavailable"]
        assert (await chat.say("Thanks!")).phase is TurnPhase.DELIVERED
    assert not [e for e in events if e.kind in (EventKind.ESCALATED, EventKind.RESTARTED)]
