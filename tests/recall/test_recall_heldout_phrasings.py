"""Recall cues as people type them, written apart from the code (held-out style): other phrasings,
typos, a non-native turn of phrase, cues that reach nothing, cues that reach two conversations
alike. The expected outcome of each comes from the seed: the conversation the cue names is
presented from its own record and nothing is claimed until the user says so; a cue that reaches
nothing asks the one open question; two equal candidates are ordered (never merged, never
chosen for the user) with the other named alongside."""

from __future__ import annotations

import pytest
from recall_kit import Chat, codes, converse, index, presented_sessions, recall_block, recalling

from turnframe.runtime import Runtime
from turnframe.stores import Store
from turnframe.stores.records import SessionRecord

pytestmark = pytest.mark.anyio

PAST = {
    "pool": (
        "The hotel pool is closed for repairs until March, so we settled on the lounge pass",
        8,
    ),
    "ferry": ("Can you check whether the ferry to Sintra runs on Sundays?", 5),
    "refund": ("I want a refund for the cancelled Porto train, the fare was 42 euros", 10),
    "ticket": ("Ticket 4471: the rebooking fee for the Faro leg looks wrong", 7),
    "review": ("Hold the booking until PR 309 is merged, the reviewer wants new fare rules", 12),
}

SAID = [
    ("what did we decide about the pool thing", "pool"),
    ("that ticket from last week", "ticket"),
    ("remember the refund we talked about?", "refund"),
    ("what about the refund we discussed", "refund"),
    ("the refund thing from last week, what did we say?", "refund"),
    ("wat was that thing abot the pool", "pool"),
    ("do u remeber the hotel pol thing", "pool"),
    ("whats that thing we talked abt the ferry", "ferry"),
    ("you remember what we decide for the pool?", "pool"),
    ("what we was deciding about hotel pool?", "pool"),
    ("u remember the Sintra boat thing?", "ferry"),
    ("hey, that lounge pass business, what did we land on?", "pool"),
    ("what did we say about PR-309?", "review"),
    ("remember the PR#309 thing?", "review"),
    ("what about the pull-request 309 we discussed", "review"),
    ("issue #309, what did we decide?", "review"),
    ("/recollect rebooking fee Faro", "ticket"),
]


async def past(rt: Runtime) -> dict[str, SessionRecord]:
    sessions = {
        name: await converse(rt, [text], days_ago=days) for name, (text, days) in PAST.items()
    }
    await index(rt)
    return sessions


@pytest.mark.parametrize(("said", "meant"), SAID, ids=[s for s, _ in SAID])
async def test_a_recall_said_as_people_say_it_presents_the_conversation_it_means(
    store: Store, said: str, meant: str
) -> None:
    async with recalling(store) as rt:
        sessions = await past(rt)
        chat = await Chat.start(rt)
        response = await chat.say(said)
        assert "turnframe.recall.identified" not in codes(response)
        block = recall_block(response)
        assert block.code == "turnframe.recall.presented"
        [shown, *_] = block.data["candidates"]
        assert shown["session_id"] == sessions[meant].session_id
        assert shown["excerpt"] == PAST[meant][0]


@pytest.mark.parametrize(
    "said",
    [
        "what did we decide about the zeppelin",
        "do you remember the thing about the feryy?",  # the one word that would find it, misspelt
        "remember that chat about the opera seats?",
    ],
)
async def test_a_cue_that_reaches_nothing_asks_once_and_claims_nothing(
    store: Store, said: str
) -> None:
    async with recalling(store) as rt:
        sessions = await past(rt)
        chat = await Chat.start(rt)
        asked = recall_block(await chat.say(said))
        assert asked.code == "turnframe.recall.ask"
        assert asked.data.get("candidates") is None
        found = recall_block(await chat.say("the boat to Sintra on a Sunday"))
        assert found.code == "turnframe.recall.presented"
        assert presented_sessions(found)[0] == sessions["ferry"].session_id


async def test_a_cue_reaching_two_conversations_alike_shows_the_newer_and_names_the_other(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        older = await converse(rt, ["Is the Porto hotel breakfast included?"], days_ago=9)
        newer = await converse(rt, ["Is the Porto hotel breakfast included?"], days_ago=3)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("do you remember the Porto breakfast thing?"))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block) == [newer.session_id, older.session_id]
        assert block.data["members"] == 1  # one presented, the other named alongside
        other = recall_block(await chat.say("no, the older one"))
        assert presented_sessions(other)[0] == older.session_id
        identified = recall_block(await chat.say("yes, that one"))
        assert identified.code == "turnframe.recall.identified"
        assert identified.data["session_id"] == older.session_id
