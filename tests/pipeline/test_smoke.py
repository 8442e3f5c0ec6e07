from __future__ import annotations

import pytest

from turnframe.lifecycle import TurnPhase
from turnframe.plan import LabelTarget, SetFieldAct
from turnframe.runtime import Runtime
from turnframe.stores import SqliteStore
from turnframe.testing import TRIP_WORKFLOW, span
from turnframe.testing.pipeline import plan_answer, seed_store
from turnframe.testing.plans import TURN_CLOCK
from turnframe.testing.scripted import Answer, ScriptedProvider


@pytest.mark.anyio
async def test_a_field_change_commits_one_revision_and_is_receipted() -> None:
    text = "Set Bob's note to window seat"
    acts = [
        SetFieldAct(
            target=LabelTarget(label="Bob"),
            field="note",
            value="window seat",
            evidence=span(text, "note to window seat"),
        )
    ]
    provider = ScriptedProvider(name="model", script=[Answer(plan_answer(acts))])
    async with SqliteStore.open(":memory:") as store:
        await seed_store(store)
        async with Runtime(workflows=[TRIP_WORKFLOW], store=store, provider=provider) as rt:
            session = await rt.open_session(account_id="acct-1")
            turn = rt.new_turn(session, text, at=TURN_CLOCK)
            response = await rt.handle_turn(turn)
            assert response.phase is TurnPhase.DELIVERED
            assert [b.code for b in response.blocks] == ["turnframe.receipt.committed"]
            case = await store.get_case("acct-1", "case-bob")
            assert case is not None and case.state["note"] == "window seat"
            assert case.revision == 3
