"""Every branch of the recall protocol's FLOW, through the public runtime with past sessions in a
real store (SQLite on asyncio and trio, PostgreSQL on asyncio)."""

from __future__ import annotations

import pytest
from recall_kit import (
    ACCOUNT,
    Chat,
    codes,
    converse,
    index,
    presented_sessions,
    recall_block,
    recalling,
)

from turnframe.recall import CURRENCY_CAVEAT, recalled_contexts
from turnframe.stores import Store

pytestmark = pytest.mark.anyio

POOL = (
    "The hotel pool is closed for repairs until March, so we settled on the lounge pass "
    "at the airport instead"
)
FERRY = "Can you check whether the ferry to Sintra runs on Sundays?"
TRAIN = "What time does the last train from Porto leave?"


def unwrap(excerpt: str) -> str:
    return excerpt.strip("\u2026")


async def stored_context(store: Store, session_id: str) -> object:
    record = await store.get_session(ACCOUNT, session_id)
    assert record is not None
    return record.thread_context


async def test_a_vague_recall_shows_the_earlier_words_with_where_they_are_and_how_to_resume(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL, "Add a note: lounge pass booked"], days_ago=8)
        await converse(rt, [FERRY], days_ago=3)
        await index(rt)
        chat = await Chat.start(rt)
        response = await chat.say("what was that thing we settled about the hotel pool last week?")
        block = recall_block(response)
        assert block.code == "turnframe.recall.presented"
        [shown, *_] = block.data["candidates"]
        assert shown["session_id"] == pool.session_id
        assert unwrap(shown["excerpt"]) in POOL
        assert shown["resume"].startswith("turnframe chat --store ")
        assert shown["resume"].endswith(f"--session {pool.session_id}")
        assert block.data["attempts_left"] == 3
        assert response.events == ()


async def test_yes_that_one_makes_the_presented_conversation_recalled_context_with_the_caveat(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("do you remember what we decided about the pool?")
        response = await chat.say("yes, that one")
        block = recall_block(response)
        assert block.code == "turnframe.recall.identified"
        assert block.data["session_id"] == pool.session_id
        assert CURRENCY_CAVEAT == "Recall shows that this was discussed, not that it still holds."
        assert CURRENCY_CAVEAT in block.text
        recalled = recalled_contexts(await stored_context(rt.store, chat.session.session_id))
        assert [c.members[0].session_id for c in recalled] == [pool.session_id]


async def test_silence_after_a_presentation_identifies_nothing(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("remind me what we decided about the pool")
    async with recalling(store) as rt:  # later, in another process: no answer ever came
        context = await stored_context(rt.store, chat.session.session_id)
        assert recalled_contexts(context) == ()
        assert isinstance(context, dict) and context["recall"]["state"]["phase"] == "presented"


async def test_an_unrelated_request_withdraws_the_recall_and_is_served_in_the_same_turn(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("what was that thing we settled about the hotel pool?")
        response = await chat.say("Set the note to window seat please")
        assert codes(response)[0] == "turnframe.recall.withdrawn"
        assert "turnframe.receipt.committed" in codes(response)
        assert [e.name for e in response.events] == ["field_set"]
        context = await stored_context(rt.store, chat.session.session_id)
        assert recalled_contexts(context) == ()
        follow_up = await chat.say("yes, that one")  # nothing is waiting any more
        assert "turnframe.recall.identified" not in codes(follow_up)


async def test_thanks_after_a_presentation_is_not_an_identification(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("what was that thing we settled about the hotel pool?")
        response = await chat.say("thanks!")
        assert recall_block(response).code == "turnframe.recall.withdrawn"
        assert recalled_contexts(await stored_context(rt.store, chat.session.session_id)) == ()


async def test_no_the_one_about_the_ferry_presents_that_conversation_instead(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=8)
        ferry = await converse(rt, [FERRY, "and is there a ferry back late at night?"], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        first = recall_block(await chat.say("do you remember the thing we talked about?"))
        assert first.code in ("turnframe.recall.ask", "turnframe.recall.presented")
        chat2 = await Chat.start(rt)
        shown = recall_block(await chat2.say("what did we say about the pool?"))
        assert presented_sessions(shown)[0] == pool.session_id
        again = recall_block(await chat2.say("no, the one about the ferry"))
        assert again.code == "turnframe.recall.presented"
        assert presented_sessions(again)[0] == ferry.session_id
        assert again.data["attempts_left"] == 2


async def test_the_first_empty_search_asks_one_open_question_and_the_answer_finds_it(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=4)
        await index(rt)
        chat = await Chat.start(rt)
        asked = recall_block(await chat.say("do you remember that thing from the other day?"))
        assert asked.code == "turnframe.recall.ask"
        found = recall_block(await chat.say("it was about a ferry to Sintra"))
        assert found.code == "turnframe.recall.presented"
        assert presented_sessions(found)[0] == ferry.session_id
        assert found.data["attempts_left"] == 2


async def test_after_a_round_trip_an_empty_search_offers_the_full_text_and_expanding_finds_it(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        # Never indexed: only the opening (the spine) and, on election, the full text hold it.
        cafe = "Also, our friend Ines recommended a tiled cafe near the station"
        later = await converse(rt, [TRAIN, cafe], days_ago=6)
        chat = await Chat.start(rt)
        asked = recall_block(await chat.say("do you remember that place somebody recommended?"))
        assert asked.code == "turnframe.recall.ask"
        offer = recall_block(await chat.say("a cafe with tiles, I think"))
        assert offer.code == "turnframe.recall.expand"
        assert [o["option_id"] for o in offer.data["options"]] == ["expand", "stop"]
        expanded = recall_block(await chat.click("expand"))
        assert expanded.code == "turnframe.recall.presented"
        assert presented_sessions(expanded)[0] == later.session_id
        assert "tiled cafe" in expanded.data["candidates"][0]["excerpt"]


async def test_stopping_at_the_openings_ends_without_recalling_anything(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [TRAIN, "Ines recommended a tiled cafe near the station"], days_ago=6)
        chat = await Chat.start(rt)
        await chat.say("do you remember that place somebody recommended?")
        await chat.say("a cafe with tiles, I think")
        stopped = recall_block(await chat.click("stop"))
        assert stopped.code == "turnframe.recall.null_match"
        context = await stored_context(rt.store, chat.session.session_id)
        assert recalled_contexts(context) == ()
        assert not isinstance(context, dict) or "recall" not in context
        assert await rt.store.list_open_interactions(ACCOUNT) == []


async def test_an_empty_full_text_search_ends_in_a_null_match(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [TRAIN], days_ago=6)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("do you remember the thing about the zebra crossing?")
        await chat.say("it was with Marco, about parking near the dentist")
        null = recall_block(await chat.click("expand"))
        assert null.code == "turnframe.recall.null_match"
        assert "Nothing was recalled" in null.text


async def test_after_three_corrections_the_closest_candidate_is_named_and_nothing_claimed(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pools = [
            await converse(rt, [f"Is the rooftop pool at hotel number {n} heated?"], days_ago=n)
            for n in range(1, 7)
        ]
        await index(rt)
        chat = await Chat.start(rt)
        left = [recall_block(await chat.say("what did we say about the hotel pool?")).data]
        for _ in range(3):
            block = recall_block(await chat.say("not that one"))
            assert block.code == "turnframe.recall.presented"
            left.append(block.data)
        assert [d["attempts_left"] for d in left] == [3, 2, 1, 0]
        last_shown = left[-1]["candidates"][0]["session_id"]
        exhausted = recall_block(await chat.say("no, not that one either"))
        assert exhausted.code == "turnframe.recall.exhausted"
        assert exhausted.data["candidates"][0]["session_id"] == last_shown
        assert last_shown in {p.session_id for p in pools}
        assert "not claiming" in exhausted.text
        assert recalled_contexts(await stored_context(rt.store, chat.session.session_id)) == ()


async def test_never_mind_stands_the_recall_down(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("what was that thing about the pool?")
        response = await chat.say("never mind")
        assert recall_block(response).code == "turnframe.recall.withdrawn"
        assert recalled_contexts(await stored_context(rt.store, chat.session.session_id)) == ()


async def test_recollect_alone_recalls_what_the_previous_message_was_about(store: Store) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=9)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("hmm, the Sintra ferry on Sundays")
        block = recall_block(await chat.say("/recollect"))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block)[0] == ferry.session_id


async def test_recollect_with_text_recalls_that_text(store: Store) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=9)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("/recollect ferry to Sintra"))
        assert presented_sessions(block)[0] == ferry.session_id


async def test_naming_a_session_by_its_id_relays_it_without_starting_the_protocol(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=9)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(f"do you remember session {ferry.session_id}?"))
        assert block.code == "turnframe.recall.relayed"
        assert block.data["session_id"] == ferry.session_id
        context = await stored_context(rt.store, chat.session.session_id)
        assert not isinstance(context, dict) or "state" not in (context.get("recall") or {})


async def test_recall_commits_no_event_and_recalled_context_is_never_evidence(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        before = len(await rt.store.list_events(ACCOUNT))
        chat = await Chat.start(rt)
        asked = await chat.say("what was that thing we settled about the hotel pool?")
        identified = await chat.say("yes, that one")
        assert asked.events == () and identified.events == ()
        assert len(await rt.store.list_events(ACCOUNT)) == before
        change = await chat.say("Set the note to lounge pass")
        turn = await rt.store.get_turn(ACCOUNT, change.turn_id)
        assert turn is not None and turn.plan is not None
        [act] = turn.plan["plan"]["acts"]
        said = "Set the note to lounge pass"
        assert all(said[e["start"] : e["end"]] == e["text"] for e in act["evidence"])
        assert [e.name for e in change.events] == ["field_set"]
