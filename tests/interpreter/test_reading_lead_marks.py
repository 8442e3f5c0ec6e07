"""Marks and slips at the start of a request do not hide it: a Spanish opening "¿" or "¡", a
"pleas" for "please", and a trip renamed by its full current name. Phrasings written for these
tests."""

from __future__ import annotations

import pytest
from interpreter_kit import field_event, talk

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "said", ["¿Could you refund 20 € on order 1001?", "¡Refund 20 € on order 1001, please!"]
)
async def test_an_opening_inverted_mark_still_shows_the_refund_card(said: str) -> None:
    card = {"case": "order-1001", "operation": "refund", "arguments": {"amount": 2000}}
    graded = await talk("refund-desk", (said,), {"events": [], "ends_with": "card", "card": card})
    assert graded.right, graded.why


async def test_pleas_at_the_start_is_please_and_the_request_is_read() -> None:
    added = {"case": "lisbon", "type": "extra_added", "data": {"item": "sun hats", "quantity": 3}}
    graded = await talk(
        "travel-desk",
        ("pleas add 3 sun hats at 12 euros each",),
        {"events": [added], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "Rename Lisbon city break to Lisbon long weekend",
        "please rename the Lisbon city break to Lisbon long weekend",
    ],
)
async def test_a_trip_renamed_by_its_whole_current_name_gets_the_new_name(said: str) -> None:
    renamed = field_event("lisbon", "name", "Lisbon long weekend")
    graded = await talk("travel-desk", (said,), {"events": [renamed], "ends_with": "committed"})
    assert graded.right, graded.why
