"""What a recall may find: the conversations themselves, never recall's own traffic and never the
session doing the recalling. A recall turn ("what was that thing about the pool?", "no, the one
about the ferry") asks about the past and is not it; a presentation quotes another session's
words. Neither is a word a cue can reach, nor a word shown as what was said."""

from __future__ import annotations

import json

import pytest
from recall_kit import (
    ACCOUNT,
    Chat,
    converse,
    index,
    presented_sessions,
    recall_block,
    recalling,
)

from turnframe.recall import search
from turnframe.stores import Store

pytestmark = pytest.mark.anyio

POOL = "The hotel pool is closed for repairs until March, so we settled on the lounge pass"
FERRY = "Can you check whether the ferry to Sintra runs on Sundays?"
TRAIN = "What time does the last train from Porto leave?"


def every_session_in(block_data: dict[str, object]) -> str:
    return json.dumps(block_data)


@pytest.mark.parametrize("indexed", [True, False], ids=["indexed", "never-indexed"])
async def test_a_sessions_own_recall_turns_are_never_candidates_in_a_later_recall(
    store: Store, indexed: bool
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=9)
        earlier = await Chat.start(rt)  # a session that only asked about the pool
        await earlier.say("what was that thing we settled about the hotel pool?")
        await earlier.say("no, not that one, the pool one with the lounge pass")
        await earlier.say("yes, that one")
        if indexed:
            await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what did we decide about the hotel pool?"))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block) == [pool.session_id]
        assert earlier.session.session_id not in every_session_in(block.data)
        assert earlier.session.session_id not in block.text


async def test_a_presentation_quoting_another_session_never_makes_its_session_a_candidate(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(
            rt, [TRAIN, "Also, Ines recommended a tiled cafe near the station"], days_ago=6
        )
        earlier = await Chat.start(rt)
        await earlier.say("do you remember that place somebody recommended?")
        await earlier.say("a cafe with tiles, I think")
        await earlier.click("expand")  # its reply quotes the cafe, word for word
        await earlier.say("never mind")
        await index(rt)
        found = await search(rt.store, ACCOUNT, "tiled cafe near the station", full_text=True)
        assert earlier.session.session_id not in [c.session_id for c in found.candidates]
        assert found.dropped == ()


async def test_the_words_shown_are_never_a_recall_turn_of_the_found_session(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        # One session: it said something of its own, then recalled another conversation in
        # words the later cue matches better than its own.
        both = await converse(
            rt,
            [FERRY, "what was that thing we said about the Sintra ferry and the Cascais boat?"],
            days_ago=4,
        )
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what did we say about the Sintra ferry and Cascais?"))
        [shown] = block.data["candidates"]
        assert shown["session_id"] == both.session_id
        assert shown["excerpt"] == FERRY


async def test_a_session_that_only_recalled_is_passed_over_and_never_named_as_unopenable(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        earlier = await Chat.start(rt)
        await earlier.say("what was that thing about the zeppelin museum?")
        await earlier.say("never mind")
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("do you remember the zeppelin museum thing?"))
        assert block.code == "turnframe.recall.ask"
        assert block.data["dropped"] == []
        assert earlier.session.session_id not in block.text


async def test_a_turn_that_moved_on_from_a_recall_is_still_the_conversation_itself(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=9)
        earlier = await Chat.start(rt)
        await earlier.say("what was that thing we settled about the hotel pool?")
        await earlier.say("Set the note to aisle seat on the night train please")
        chat = await Chat.start(rt)
        await chat.say("do you remember the night train thing?")
        await chat.say("something about an aisle seat")
        block = recall_block(await chat.click("expand"))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block)[0] == earlier.session.session_id
        assert "aisle seat" in block.data["candidates"][0]["excerpt"]


@pytest.mark.parametrize("scope", ["openings", "full text"])
async def test_the_current_session_is_never_a_candidate_of_its_own_recall(
    store: Store, scope: str
) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=30)
        chat = await Chat.start(rt)
        await chat.say("The Sintra ferry on Sundays, the Sintra ferry, the Sintra ferry")
        await chat.say("Add a note: ask about the Sintra ferry on Sundays")
        await rt.evict_idle_sessions(idle_for=0)  # its own entry is written, and matches best
        await index(rt)
        chat = Chat(rt, chat.session)
        chat.minute = 10
        if scope == "openings":
            block = recall_block(await chat.say("what did we say about the Sintra ferry?"))
        else:
            await chat.say("do you remember that thing from the other day?")
            await chat.say("the Sintra ferry on Sundays")
            block = recall_block(await chat.say("not that one"))
            if block.code == "turnframe.recall.expand":
                block = recall_block(await chat.click("expand"))
        assert chat.session.session_id not in every_session_in(block.data)
        assert chat.session.session_id not in block.text
        if block.code == "turnframe.recall.presented":
            assert presented_sessions(block) == [ferry.session_id]


async def test_naming_the_current_session_by_its_id_relays_nothing_and_finds_nothing_of_it(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        chat = await Chat.start(rt)
        await chat.say("The Sintra ferry on Sundays, is it running?")
        block = recall_block(await chat.say(f"do you remember session {chat.session.session_id}?"))
        assert block.code == "turnframe.recall.ask"
        assert block.data.get("candidates") is None
