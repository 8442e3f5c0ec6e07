"""Budgets are checked against every provider of the chain, at load time and at bind time, as a
typed error naming the slot (and the provider it overflows). Load time:
``test_no_poison.py::test_references_over_a_fallback_providers_budget_fail_the_start_naming_the_slot``;
bind time (each turn, with its own text) here."""

from __future__ import annotations

import pytest
from desk_kit import desk_runtime, say

from turnframe.examples import sample
from turnframe.examples.travel_desk import SAMPLE_GLOSSARY
from turnframe.lifecycle import TurnPhase
from turnframe.providers.rules import RulesProvider
from turnframe.references import ContextBudgetExceededError, InlineSource
from turnframe.testing.scripted import ScriptedProvider

pytestmark = pytest.mark.anyio

DESK = "travel-desk"
GLOSSARY = InlineSource(content=(SAMPLE_GLOSSARY * 20).encode(), label="long glossary")


def chain(fallback_budget: int) -> list[object]:
    primary = RulesProvider(workflows=[sample(DESK).workflow])  # a large window
    return [primary, ScriptedProvider(name="small-fallback", context_budget_tokens=fallback_budget)]


async def tokens_bound_at_load() -> int:
    """What the template and the bound glossary need (read off the load-time error)."""
    with pytest.raises(ContextBudgetExceededError) as caught:
        async with desk_runtime(DESK, provider=chain(1), references={"glossary": GLOSSARY}):
            pass
    return caught.value.needed_tokens


async def test_a_turn_that_fits_the_primary_but_not_the_fallback_fails_at_bind_time_naming_the_slot_and_provider() -> (  # noqa: E501
    None
):
    budget = await tokens_bound_at_load() + 100  # the bound material fits; a long turn does not
    async with desk_runtime(
        DESK, provider=chain(budget), references={"glossary": GLOSSARY}
    ) as (rt, store):
        long_turn = "Please add a note to the Lisbon trip: " + "window seat " * 100
        assert len(long_turn) < rt.settings.max_turn_chars

        failed = await say(rt, long_turn)

        assert failed.phase is TurnPhase.FAILED
        assert [b.code for b in failed.blocks] == ["turnframe.notice.interpretation_failed"]
        replay = await store.get_replay_record("demo", failed.turn_id)
        assert replay is not None
        assert replay["error"]["code"] == "turnframe.reference.context_budget_exceeded"
        assert "'glossary'" in replay["error"]["message"]
        assert "provider 'small-fallback'" in replay["error"]["message"]
        assert replay["provider_attempts"] == []  # checked before any provider was asked
        assert await store.list_unfinished_turns(account_id=None) == []
        assert (await say(rt, "What is the status of the Lisbon trip?")).phase is not (
            TurnPhase.FAILED
        )
