"""A model provider reads recall through the plan schema: it is told what a recall waits for and
answers with a recall act's disposition; the protocol treats it exactly as the rules' reading."""

from __future__ import annotations

import json

import pytest
from recall_kit import DESK, Chat, converse, index, recall_block, recalling

from turnframe.plan import RecallAct, RecallDisposition
from turnframe.providers.base import Purpose
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import Store
from turnframe.testing import span
from turnframe.testing.pipeline import plan_answer
from turnframe.testing.scripted import Answer, ScriptedProvider

pytestmark = pytest.mark.anyio

POOL = "The hotel pool is closed until March, so we settled on the lounge pass instead"
ASKED = "hey, that hotel pool business from last week, what did we land on?"
ANSWERED = "That's the one, cheers"


async def test_a_model_is_told_what_the_recall_waits_for_and_answers_with_a_disposition(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=8)
        await index(rt)
    model = ScriptedProvider(
        name="model",
        script=[
            Answer(plan_answer([RecallAct(description=ASKED, evidence=span(ASKED, ASKED))])),
            Answer(
                plan_answer(
                    [
                        RecallAct(
                            description="",
                            disposition=RecallDisposition.IDENTIFIED,
                            evidence=span(ANSWERED, "That's the one"),
                        )
                    ]
                )
            ),
        ],
    )
    runtime = Runtime(
        workflows=[DESK.workflow],
        store=store,
        provider=model,
        settings=RuntimeSettings(pool_size=1, ask_timeout=20.0),
    )
    async with runtime as rt:
        chat = await Chat.start(rt)
        assert recall_block(await chat.say(ASKED)).code == "turnframe.recall.presented"
        identified = recall_block(await chat.say(ANSWERED))
        assert identified.code == "turnframe.recall.identified"
        assert identified.data["session_id"] == pool.session_id
    first, second = model.requests_for(Purpose.INTERPRET)
    assert "recall_pending" not in json.loads(first.messages[-1].content)
    assert json.loads(second.messages[-1].content)["recall_pending"] == "presented"
    assert "disposition" in json.dumps(second.answer_schema)
