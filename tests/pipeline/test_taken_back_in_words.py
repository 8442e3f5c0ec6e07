"""A request taken back in words in the next turn closes the card that waits for it (ADR 0024):
a later click on the old card answers stale and commits nothing. Phrasings written for these
tests from what people type."""

from __future__ import annotations

import pytest
from desk_kit import cards, click, committed, desk_runtime, say

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "said",
    [
        "forget it",
        "never mind",
        "actually don't",
        "no, cancel that",
        "don't refund it",
        "cancel the refund",
        "hmm no, leave it",
    ],
)
async def test_a_refund_taken_back_in_words_is_never_committed_by_a_click_on_its_old_card(
    said: str,
) -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        shown = await say(rt, "refund 20 on 1001")
        (card,) = cards(shown, "confirm_command")
        await say(rt, said)
        stale = await click(rt, card, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        assert await committed(store) == []


async def test_a_bare_no_after_a_card_leaves_the_card_to_the_click() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        shown = await say(rt, "refund 20 on 1001")
        (card,) = cards(shown, "confirm_command")
        await say(rt, "no")
        await click(rt, card, "confirm")
        assert [e[0] for e in await committed(store)] == ["refund_requested"]


async def test_a_request_taken_back_then_asked_again_is_confirmed_on_its_new_card() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        await say(rt, "Rebook the return flight to 18 March 2026")
        await say(rt, "hmm no, leave it")
        again = await say(rt, "no actually, do rebook the return flight to 18 March 2026")
        (card,) = cards(again, "confirm_command")
        await click(rt, card, "confirm")
        assert [e[0] for e in await committed(store)] == ["rebooked"]
