"""A booking confirmation or an itinerary pasted into a message is context: its "Key: value"
lines are never field changes, and what the writer asks around it is read as usual. A ticket
whose every key is request vocabulary is still a list of changes. Phrasings written for these
tests."""

from __future__ import annotations

import pytest
from interpreter_kit import field_event, talk

pytestmark = pytest.mark.anyio


async def test_a_budget_line_in_a_pasted_itinerary_is_context_and_only_the_ask_is_done() -> None:
    said = (
        "Itinerary:\n- 12 March: fly out TP1351\n- 16 March: fly back TP1350\nBudget: 1500\n\n"
        "please add a note: we need a cot"
    )
    graded = await talk(
        "travel-desk",
        (said,),
        {"events": [field_event("lisbon", "note", "we need a cot")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_a_pasted_order_summary_commits_none_of_its_lines() -> None:
    said = (
        "Order 1001\nCustomer: Ana Reis\nItem: Hotel Almirante, 1 night\nPaid: 120.00 EUR\n"
        "Note: late arrival\n\nThe room was not cleaned. I want 40 back."
    )
    card = {"case": "order-1001", "operation": "refund", "arguments": {"amount": 4000}}
    graded = await talk("refund-desk", (said,), {"events": [], "ends_with": "card", "card": card})
    assert graded.right, graded.why


async def test_a_ticket_whose_keys_are_all_request_words_is_still_a_list_of_changes() -> None:
    graded = await talk(
        "refund-desk",
        ("Order: 1001\nNote: VIP guest\nEmail: ana@x.pt",),
        {
            "events": [
                field_event("order-1001", "note", "VIP guest"),
                field_event("order-1001", "contact_email", "ana@x.pt"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why
