"""Above session scope: a line, a topic or a concept, joined from several sessions by the
documented edge rules (ADR 0017), presented in one shape, with the edges it rests on and the
links that resolved to no record."""

from __future__ import annotations

import pytest
from recall_kit import Chat, converse, index, presented_sessions, recall_block, recalling

from turnframe.stores import Store

pytestmark = pytest.mark.anyio

THREAD = "remind me how the whole thread about ticket 4471 went"
TOPIC = "remind me of everything we said about the lounge pass"


async def test_the_whole_thread_about_a_ticket_is_a_line_in_time_order(store: Store) -> None:
    async with recalling(store) as rt:
        first = await converse(
            rt, ["Ticket 4471: the rebooking fee for the Porto leg looks wrong"], days_ago=20
        )
        await converse(rt, ["Can you add a note that I prefer aisle seats?"], days_ago=15)
        second = await converse(
            rt,
            ["Any news on ticket 4471? They still charge the fee. My notes are in "
             "memory/ticket-notes.md and we spoke in ses_00000000deadbeef"],
            days_ago=12,
        )
        third = await converse(rt, ["Ticket 4471 is closed, the fee was refunded"], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(THREAD))
        assert block.code == "turnframe.recall.presented"
        assert block.data["unit"] == "line"
        members = presented_sessions(block)[: block.data["members"]]
        assert members == [first.session_id, second.session_id, third.session_id]
        assert {e["rule"] for e in block.data["joined"]} == {"succession"}
        assert all("#4471" in e["shared"] for e in block.data["joined"])
        skipped = {(s["anchor"], s["reason"]) for s in block.data["skipped"]}
        assert skipped == {
            ("memory/ticket-notes.md", "memory_note"),
            ("ses_00000000deadbeef", "no_record"),
        }
        identified = recall_block(await chat.say("yes, that's it"))
        assert identified.code == "turnframe.recall.identified"
        assert [c["session_id"] for c in identified.data["candidates"]] == members


async def test_everything_said_about_one_subject_is_a_topic(store: Store) -> None:
    async with recalling(store) as rt:
        asked = await converse(rt, ["Is the lounge pass at the airport worth it?"], days_ago=14)
        booked = await converse(
            rt, ["Please add the lounge pass for the airport on the way back"], days_ago=9
        )
        await converse(rt, ["What time does the last train from Porto leave?"], days_ago=7)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(TOPIC))
        assert block.data["unit"] == "topic"
        members = presented_sessions(block)[: block.data["members"]]
        assert set(members) == {asked.session_id, booked.session_id}
        assert {e["rule"] for e in block.data["joined"]} == {"topic"}


async def test_a_name_forged_in_one_session_and_settled_in_another_is_a_concept(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        forged = await converse(
            rt, ["For the early airport shuttle plan, let's call it Bluebird"], days_ago=21
        )
        settled = await converse(
            rt,
            ["About the Bluebird shuttle plan: we agreed, go with Bluebird for both legs"],
            days_ago=10,
        )
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(
            await chat.say("what was the name we came up with for the shuttle plan?")
        )
        assert block.data["unit"] == "concept"
        members = presented_sessions(block)[: block.data["members"]]
        assert members == [forged.session_id, settled.session_id]  # forged, then settled
        assert block.data["joined"] == [
            {"from": members[0], "to": members[1], "rule": "concept", "shared": ["bluebird"]}
        ] or block.data["joined"] == [
            {"from": members[1], "to": members[0], "rule": "concept", "shared": ["bluebird"]}
        ]


async def test_a_line_that_nothing_joins_is_presented_at_session_scope(store: Store) -> None:
    async with recalling(store) as rt:
        only = await converse(rt, ["Ticket 4471: the rebooking fee looks wrong"], days_ago=20)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(THREAD))
        assert block.data["unit"] == "session"
        assert presented_sessions(block)[0] == only.session_id
