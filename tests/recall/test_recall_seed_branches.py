"""The seed's FLOW branches and CONVERGENCE terminals that the first tests left implicit: the
correction route into the store expansion, a re-entry that keeps the full-text scope, the
nothing-found exhaustion, the adjacent candidates, V-binding's edge cases and a withdrawal
from every wait. Each runs through the public runtime with past sessions in a real store."""

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

from turnframe.recall import recalled_contexts
from turnframe.stores import NewRecallEntry, Store

pytestmark = pytest.mark.anyio

POOL = "The hotel pool is closed for repairs until March, so we settled on the lounge pass"
FERRY = "Can you check whether the ferry to Sintra runs on Sundays?"
TRAIN = "What time does the last train from Porto leave?"
CAFE = "Also, our friend Ines recommended a tiled cafe near the station"
MUSEUM = "Oh and the azulejo museum is shut on Mondays, Ines says"


async def test_a_correction_that_finds_nothing_offers_the_full_text_not_a_second_question(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        shown = recall_block(await chat.say("what did we say about the hotel pool?"))
        assert shown.code == "turnframe.recall.presented"
        offer = recall_block(await chat.say("no, the one about the zebra crossing with Marco"))
        assert offer.code == "turnframe.recall.expand"  # a round trip happened: no question
        assert offer.data["attempts_left"] == 2


async def test_after_expanding_a_correction_searches_the_full_text_again(store: Store) -> None:
    async with recalling(store) as rt:
        cafe = await converse(rt, [TRAIN, CAFE], days_ago=6)
        museum = await converse(rt, [FERRY, MUSEUM], days_ago=5)
        chat = await Chat.start(rt)
        await chat.say("do you remember that place somebody recommended?")
        offer = recall_block(await chat.say("a cafe with tiles, I think"))
        assert offer.code == "turnframe.recall.expand"
        expanded = recall_block(await chat.click("expand"))
        assert presented_sessions(expanded)[0] == cafe.session_id
        assert expanded.data["attempts_left"] == offer.data["attempts_left"]  # Find spends none
        # Only a later turn of the museum session holds these words: full text, not the spine.
        again = recall_block(await chat.say("no, the one about the azulejo museum being shut"))
        assert again.code == "turnframe.recall.presented"
        assert presented_sessions(again)[0] == museum.session_id


async def test_no_to_the_store_expansion_in_words_ends_in_a_null_match(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [TRAIN, CAFE], days_ago=6)
        chat = await Chat.start(rt)
        await chat.say("do you remember that place somebody recommended?")
        await chat.say("a cafe with tiles, I think")
        stopped = recall_block(await chat.say("no"))
        assert stopped.code == "turnframe.recall.null_match"
        assert await rt.store.list_open_interactions(ACCOUNT) == []


async def test_yes_to_the_store_expansion_in_words_searches_the_full_text(store: Store) -> None:
    async with recalling(store) as rt:
        cafe = await converse(rt, [TRAIN, CAFE], days_ago=6)
        chat = await Chat.start(rt)
        await chat.say("do you remember that place somebody recommended?")
        await chat.say("a cafe with tiles, I think")
        found = recall_block(await chat.say("yes, search everything"))
        assert found.code == "turnframe.recall.presented"
        assert presented_sessions(found)[0] == cafe.session_id


async def test_exhausted_with_nothing_in_hand_ends_in_a_null_match_not_a_candidate(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [TRAIN], days_ago=6)
        await index(rt)
        chat = await Chat.start(rt)
        said = [
            "do you remember the thing about the zebra crossing?",
            "it was with Marco",
            "it was about parking near the dentist",
            "it was on a rainy Tuesday in Braga",
            "it was about the blue umbrella",
        ]
        blocks = [recall_block(await chat.say(s)) for s in said]
        assert [b.code for b in blocks] == [
            "turnframe.recall.ask",
            "turnframe.recall.expand",
            "turnframe.recall.expand",
            "turnframe.recall.expand",
            "turnframe.recall.null_match",
        ]
        assert [b.data["attempts_left"] for b in blocks] == [3, 2, 1, 0, 0]
        assert blocks[-1].data.get("candidates") is None
        assert await rt.store.list_open_interactions(ACCOUNT) == []


async def test_only_unopenable_candidates_after_a_round_trip_offer_the_full_text_naming_them(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await rt.store.write_recall_entry(
            ACCOUNT, NewRecallEntry(session_id="ses_removed", entry={}, terms="sintra ferry")
        )
        chat = await Chat.start(rt)
        asked = recall_block(await chat.say("do you remember that thing from the other day?"))
        assert asked.code == "turnframe.recall.ask"
        offer = recall_block(await chat.say("the Sintra ferry"))
        assert offer.code == "turnframe.recall.expand"
        assert offer.data["dropped"] == ["ses_removed"]
        assert "ses_removed" in offer.text


async def test_a_presentation_names_the_adjacent_candidates_each_grounded_in_its_own_record(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        said = {
            n: f"Is the rooftop pool at hotel number {n} heated in winter?" for n in (1, 2, 3, 4)
        }
        sessions = {n: await converse(rt, [said[n]], days_ago=n) for n in said}
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("what did we say about the rooftop pool?"))
        assert block.data["members"] == 1
        candidates = block.data["candidates"]
        assert len(candidates) == 3  # the one presented and two adjacent ones, best first
        by_session = {s.session_id: n for n, s in sessions.items()}
        for candidate in candidates:
            assert candidate["excerpt"] == said[by_session[candidate["session_id"]]]
        assert "Also close:" in block.text


async def test_two_vague_references_in_one_turn_look_for_the_first_and_note_the_other(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=8)
        await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(
            await chat.say("what was that thing about the pool, and do you remember the ferry?")
        )
        assert presented_sessions(block)[0] == pool.session_id
        assert "I looked for the first" in block.text


async def test_a_recall_after_a_null_match_starts_fresh(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(rt, [TRAIN], days_ago=6)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("do you remember the thing about the zebra crossing?")
        await chat.say("it was with Marco")
        null = recall_block(await chat.click("stop"))
        assert null.code == "turnframe.recall.null_match"
        fresh = recall_block(await chat.say("do you remember the thing about the dentist?"))
        assert fresh.code == "turnframe.recall.ask"  # attempts 0 again: the question is owed
        assert fresh.data["attempts_left"] == 3
        assert "dentist" in fresh.text and "zebra" not in fresh.text


async def test_a_correction_naming_the_whole_line_rereads_the_unit(store: Store) -> None:
    async with recalling(store) as rt:
        for days_ago, said in (
            (20, "Ticket 4471: the rebooking fee for the Porto leg looks wrong"),
            (12, "Any news on ticket 4471? They still charge the fee"),
            (5, "Ticket 4471 is closed, the fee was refunded"),
        ):
            await converse(rt, [said], days_ago=days_ago)
        await index(rt)
        chat = await Chat.start(rt)
        first = recall_block(await chat.say("what did we say about ticket 4471?"))
        assert first.data["unit"] == "session"
        line = recall_block(await chat.say("no, I mean the whole thread about ticket 4471"))
        assert line.code == "turnframe.recall.presented"
        assert line.data["unit"] == "line"
        assert line.data["attempts_left"] == 2


@pytest.mark.parametrize("wait", ["asked", "expansion", "presented"])
async def test_an_unrelated_request_at_any_wait_withdraws_the_recall_and_is_served(
    store: Store, wait: str
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        if wait == "presented":
            await chat.say("what did we say about the hotel pool?")
        else:
            await chat.say("do you remember the thing about the zebra crossing?")
            if wait == "expansion":
                await chat.say("it was with Marco")
        response = await chat.say("Set the note to window seat please")
        assert codes(response)[0] == "turnframe.recall.withdrawn"
        assert [e.name for e in response.events] == ["field_set"]
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None and recalled_contexts(record.thread_context) == ()
        assert await rt.store.list_open_interactions(ACCOUNT) == []
        after = await chat.say("yes, that one")
        assert "turnframe.recall.identified" not in codes(after)


async def test_naming_another_accounts_session_is_as_if_it_did_not_exist(store: Store) -> None:
    async with recalling(store) as rt:
        theirs = await converse(rt, [FERRY], days_ago=3, account="someone-else")
        await index(rt, "someone-else")
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(f"do you remember session {theirs.session_id}?"))
        assert block.code == "turnframe.recall.ask"  # not relayed, not presented, not named
        assert block.data.get("candidates") is None and block.data["dropped"] == []
        absent = "ses_00000000000000000000000000000000"
        nowhere = recall_block(
            await (await Chat.start(rt)).say(f"do you remember session {absent}?")
        )
        assert block.text.replace(theirs.session_id, absent) == nowhere.text  # the same answer
        assert block.data == nowhere.data
        answer = recall_block(await chat.say("the ferry to Sintra on Sundays"))
        assert answer.code == "turnframe.recall.expand"  # their ferry is no candidate
        assert answer.data.get("candidates") is None and answer.data["dropped"] == []


async def test_an_identified_fork_resumes_through_its_parent(store: Store) -> None:
    async with recalling(store) as rt:
        parent = await converse(rt, ["Plan the Lisbon trip for the spring"], days_ago=12)
        fork = await converse(
            rt,
            ["On the side: is the tram 28 pass cheaper by the week?"],
            days_ago=11,
            fork_of=parent.session_id,
        )
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("remember the tram pass thing?")
        identified = recall_block(await chat.say("yes, that one"))
        assert identified.code == "turnframe.recall.identified"
        assert identified.data["session_id"] == fork.session_id
        assert identified.data["resume"].endswith(f"--session {parent.session_id}")
        assert f"--session {fork.session_id}" not in identified.text


async def test_only_unopenable_candidates_at_full_text_end_in_a_null_match_naming_them(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await rt.store.write_recall_entry(
            ACCOUNT, NewRecallEntry(session_id="ses_removed", entry={}, terms="sintra ferry")
        )
        chat = await Chat.start(rt)
        await chat.say("do you remember that thing from the other day?")
        offer = recall_block(await chat.say("the Sintra ferry"))
        assert offer.code == "turnframe.recall.expand"
        null = recall_block(await chat.click("expand"))
        assert null.code == "turnframe.recall.null_match"
        assert null.data["dropped"] == ["ses_removed"]
        assert "ses_removed" in null.text and "every turn and reply" in null.text
