"""A recall that gives nothing to look for. The seed's FLOW: a recall is bound to its own words,
else to what the turn said before them, else to the previous user message; with none of them
there is nothing to find, so the first (empty) Find asks the one open question. While a recall
waits, a turn with no cue is silence: it decides nothing (no identification, no correction, no
withdrawal, no try spent) and the protocol still waits where it stood."""

from __future__ import annotations

import pytest
from recall_kit import (
    ACCOUNT,
    DESK,
    Chat,
    converse,
    index,
    presented_sessions,
    recall_block,
    recalling,
)

from turnframe.pipeline.replay_view import load_replay_view
from turnframe.plan import RecallAct, RecallDisposition
from turnframe.recall import recalled_contexts
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import Store
from turnframe.testing import span
from turnframe.testing.pipeline import plan_answer
from turnframe.testing.scripted import Answer, ScriptedProvider

pytestmark = pytest.mark.anyio

FERRY = "Can you check whether the ferry to Sintra runs on Sundays?"
NO_CUE = [
    "/recollect",
    "/recollect \u201c\u201d",
    '/recollect ""',
    "/recollect '   '",
    "recall \u201c\u201d",
]


async def recall_state(rt: Runtime, chat: Chat) -> dict[str, object] | None:
    record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
    assert record is not None
    context = record.thread_context if isinstance(record.thread_context, dict) else {}
    memory = context.get("recall") or {}
    state: dict[str, object] | None = memory.get("state")
    return state


@pytest.mark.parametrize("said", NO_CUE)
async def test_a_recall_with_no_cue_and_nothing_said_before_asks_the_one_open_question(
    store: Store, said: str
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(await chat.say(said))
        assert block.code == "turnframe.recall.ask"
        assert block.text.startswith("I have nothing to look for yet.")
        assert "\u201crecall\u201d" not in block.text and "\u201c\u201d" not in block.text
        assert block.data["attempts_left"] == 3
        state = await recall_state(rt, chat)
        assert state is not None and state["phase"] == "asked" and state["attempts"] == 0
        found = recall_block(await chat.say("the ferry to Sintra"))
        assert presented_sessions(found)[0] != chat.session.session_id
        assert found.data["attempts_left"] == 2


@pytest.mark.parametrize("said", ["/recollect", "/recollect \u201c \u201d", "do you remember?"])
async def test_a_recall_with_no_cue_of_its_own_looks_for_the_previous_message(
    store: Store, said: str
) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("hmm, the Sintra ferry on Sundays")
        block = recall_block(await chat.say(said))
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block)[0] == ferry.session_id


async def test_what_the_turn_said_before_the_recall_is_its_cue(store: Store) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        block = recall_block(
            await chat.say("the Sintra ferry thing from last week, what did we say?")
        )
        assert block.code == "turnframe.recall.presented"
        assert presented_sessions(block)[0] == ferry.session_id


@pytest.mark.parametrize(
    "said", ["recall \u201c\u201d", "/recollect", "\u201c\u201d", "...", "do you remember?"]
)
async def test_a_turn_with_no_cue_while_a_presentation_waits_decides_nothing(
    store: Store, said: str
) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        shown = recall_block(await chat.say("what did we say about the Sintra ferry?"))
        before = await recall_state(rt, chat)
        silent = recall_block(await chat.say(said))
        assert silent.code == "turnframe.recall.no_cue"
        assert silent.data["attempts_left"] == shown.data["attempts_left"] == 3
        assert ferry.session_id in silent.text  # what it still waits on
        assert await recall_state(rt, chat) == before
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None and recalled_contexts(record.thread_context) == ()
        identified = recall_block(await chat.say("yes, that one"))
        assert identified.code == "turnframe.recall.identified"
        assert identified.data["session_id"] == ferry.session_id


@pytest.mark.parametrize("said", ["\u201c \u201d", "hmm", "recall \u201c\u201d"])
async def test_an_answer_to_the_open_question_with_nothing_to_look_for_spends_no_try(
    store: Store, said: str
) -> None:
    async with recalling(store) as rt:
        ferry = await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        asked = recall_block(await chat.say("do you remember that thing from the other day?"))
        assert asked.code == "turnframe.recall.ask"
        silent = recall_block(await chat.say(said))
        assert silent.code == "turnframe.recall.no_cue"
        assert silent.data["attempts_left"] == 3
        state = await recall_state(rt, chat)
        assert state is not None and state["phase"] == "asked" and state["attempts"] == 0
        found = recall_block(await chat.say("the ferry to Sintra"))
        assert presented_sessions(found)[0] == ferry.session_id
        assert found.data["attempts_left"] == 2


async def test_a_turn_with_no_cue_leaves_the_store_expansion_card_open(store: Store) -> None:
    async with recalling(store) as rt:
        await converse(
            rt, ["What time is the last train?", "Ines loved the tiled cafe"], days_ago=6
        )
        chat = await Chat.start(rt)
        await chat.say("do you remember that place somebody recommended?")
        offered = recall_block(await chat.say("a cafe with tiles, I think"))
        assert offered.code == "turnframe.recall.expand"
        silent = recall_block(await chat.say("\u201c\u201d"))
        assert silent.code == "turnframe.recall.no_cue"
        [card] = await rt.store.list_open_interactions(ACCOUNT, session_id=chat.session.session_id)
        assert card.interaction_id == offered.data["interaction_id"]
        expanded = recall_block(await chat.click("expand"))
        assert expanded.code == "turnframe.recall.presented"


async def test_a_turn_with_no_cue_is_never_an_identification_even_when_a_model_says_so(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [FERRY], days_ago=5)
        await index(rt)
    asked = "what did we say about the Sintra ferry?"
    quotes = "\u201c\u201d"
    model = ScriptedProvider(
        name="model",
        script=[
            Answer(plan_answer([RecallAct(description=asked, evidence=span(asked, asked))])),
            Answer(
                plan_answer(
                    [
                        RecallAct(
                            description="",
                            disposition=RecallDisposition.IDENTIFIED,
                            evidence=span(quotes, quotes),
                        )
                    ]
                )
            ),
        ],
    )
    settings = RuntimeSettings(pool_size=1, ask_timeout=20.0)
    async with Runtime(
        workflows=[DESK.workflow], store=store, provider=model, settings=settings
    ) as rt:
        chat = await Chat.start(rt)
        assert recall_block(await chat.say(asked)).code == "turnframe.recall.presented"
        silent = recall_block(await chat.say(quotes))
        assert silent.code == "turnframe.recall.no_cue"
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None and recalled_contexts(record.thread_context) == ()


async def test_the_act_summary_of_a_recall_with_no_cue_says_it_has_none(store: Store) -> None:
    async with recalling(store) as rt:
        chat = await Chat.start(rt)
        response = await chat.say("/recollect \u201c\u201d")
        view = await load_replay_view(rt.store, account_id=ACCOUNT, turn_id=response.turn_id)
        assert view is not None
        [act] = view.acts
        assert act.summary == "recall (no cue of its own)"


async def test_a_click_on_another_card_while_a_recall_waits_moves_on_from_it(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [FERRY], days_ago=5)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("Please withdraw the trip")  # a confirmation card stays open
        shown = recall_block(await chat.say("what did we say about the Sintra ferry?"))
        assert shown.code == "turnframe.recall.presented"
        clicked = await chat.click("decline")
        assert recall_block(clicked).code == "turnframe.recall.withdrawn"
        assert await recall_state(rt, chat) is None
