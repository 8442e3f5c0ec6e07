"""Cards say what will happen (issue 12): the exact arguments a click executes, a new card
request supersedes the open card, corrections reach the card, long input gets a notice."""

from __future__ import annotations

from typing import Any

import pytest
from desk_kit import ACCOUNT, CLOCK, desk_runtime, say

from turnframe.lifecycle import TurnPhase
from turnframe.response import BlockKind
from turnframe.runtime import RuntimeSettings

pytestmark = pytest.mark.anyio


def _confirm_cards(response: Any) -> list[dict[str, Any]]:
    return [
        b.data
        for b in response.blocks
        if b.kind is BlockKind.CARD and b.data.get("interaction_kind") == "confirm_command"
    ]


async def _click(rt: Any, card: dict[str, Any], option_id: str) -> Any:
    session = await rt.open_session(account_id=ACCOUNT, session_id="s-1")
    return await rt.respond(
        session=session,
        interaction_id=card["interaction_id"],
        option_id=option_id,
        expected_revision=card["expected_revision"],
        at=CLOCK,
    )


async def _refunds(store: Any) -> list[int]:
    return [e.payload["amount"] for e in await store.list_events(ACCOUNT)]


async def test_a_confirmation_card_shows_every_argument_as_it_will_run_and_the_record() -> None:
    async with desk_runtime("refund-desk") as (rt, _):
        response = await say(rt, "refund 20 euros on order 1001 because the strap broke")
        (card,) = _confirm_cards(response)
        (command,) = card["commands"]
        assert command["operation"] == "refund"
        assert command["arguments"] == {"amount": 2000, "reason": "the strap broke"}
        assert command["shown"] == {"amount": "20.00 EUR", "reason": "\u201cthe strap broke\u201d"}
        assert command["identifying"] == ["Ana Reis", "Hotel Almirante, 1 night"]
        assert [o["option_id"] for o in card["options"]] == ["confirm", "decline"]


async def test_a_second_card_request_supersedes_the_open_card_whose_click_is_then_stale() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        first = await say(rt, "refund 20 euros on order 1001")
        second = await say(rt, "refund 30 euros on order 1001")
        assert second.phase is TurnPhase.DELIVERED
        (old,), (new,) = _confirm_cards(first), _confirm_cards(second)
        stale = await _click(rt, old, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        assert await _refunds(store) == []
        await _click(rt, new, "confirm")
        assert await _refunds(store) == [3000]


async def test_a_correction_later_in_the_message_is_what_the_card_shows_and_a_click_commits() -> (
    None
):
    async with desk_runtime("refund-desk") as (rt, store):
        response = await say(rt, "Refund 20 euros on 1001, no wait, make it 25")
        (card,) = _confirm_cards(response)
        assert card["commands"][0]["arguments"] == {"amount": 2500}
        await _click(rt, card, "confirm")
        assert await _refunds(store) == [2500]


async def test_a_new_value_in_the_next_turn_amends_the_open_card() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        first = await say(rt, "refund 20 euros on order 1001")
        amended = await say(rt, "make it 30 instead")
        (card,) = _confirm_cards(amended)
        assert card["commands"][0]["arguments"] == {"amount": 3000}
        stale = await _click(rt, _confirm_cards(first)[0], "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        await _click(rt, card, "confirm")
        assert await _refunds(store) == [3000]


async def test_a_changed_quantity_is_committed_never_the_old_one() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        await say(rt, "Add 3 city cards, sorry, 2.")
        (event,) = await store.list_events(ACCOUNT)
        assert (event.payload["item"], event.payload["quantity"]) == ("city cards", 2)


async def test_a_message_over_the_length_limit_gets_a_notice_and_changes_nothing() -> None:
    settings = RuntimeSettings(pool_size=2, ask_timeout=10.0, max_turn_chars=50)
    async with desk_runtime("travel-desk", settings=settings) as (rt, store):
        response = await say(rt, "Set the note to " + "very " * 20 + "long")
        assert [b.code for b in response.blocks] == ["turnframe.notice.input_too_long"]
        assert response.phase is TurnPhase.FAILED
        assert await store.list_events(ACCOUNT) == []
