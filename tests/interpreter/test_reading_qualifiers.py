"""A number with a word that says how it counts ("25 each", "30 total", "40 pp") after a
request is part of that request: never a second request for something called "each". The
phrasings are written for these tests from what people type."""

from __future__ import annotations

import pytest
from interpreter_kit import field_event, talk

pytestmark = pytest.mark.anyio


def _extra(item: str, quantity: int, unit_price: int | None) -> dict[str, object]:
    data: dict[str, object] = {"item": item, "quantity": quantity}
    if unit_price is not None:
        data["unit_price"] = unit_price
    return {"case": "lisbon", "type": "extra_added", "data": data}


@pytest.mark.parametrize(
    ("said", "item", "quantity", "unit_price"),
    [
        ("add 3 museum tickets, 15 each", "museum tickets", 3, 1500),
        ("please add 2 city cards 20 apiece", "city cards", 2, 2000),
        ("add 2 massages, 40 pp", "massages", 2, 4000),
        ("add four fado tickets, 30 per person", "fado tickets", 4, 3000),
    ],
)
async def test_a_number_said_each_after_an_extra_is_its_price_per_unit(
    said: str, item: str, quantity: int, unit_price: int
) -> None:
    graded = await talk(
        "travel-desk",
        (said,),
        {"events": [_extra(item, quantity, unit_price)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "add travel insurance for both of us, 25 each",
        "add a boat tour, 30 total",
        "add a boat tour, 30 per couple",
        "we want a cooking class for the family, 45 all in",
    ],
)
async def test_a_qualified_number_never_becomes_an_extra_of_its_own(said: str) -> None:
    graded = await talk("travel-desk", (said,), {"ends_with": "nothing"})
    items = [e["data"]["item"] for e in graded.events]
    assert not {"each", "total", "per couple", "all in", "all"} & {i.lower() for i in items}
    assert all(e["data"]["quantity"] < 25 for e in graded.events), graded.events


@pytest.mark.parametrize(
    "said",
    [
        "Refund Ana's booking in loyalty points instead of money",
        "refund 1001 as store credit rather than cash",
        "could you refund order 1001 as a gift voucher instead of a payment",
    ],
)
async def test_an_operation_asked_in_another_form_than_money_is_refused_and_shows_no_card(
    said: str,
) -> None:
    graded = await talk("refund-desk", (said,), {"events": [], "ends_with": "rejected"})
    assert graded.right, graded.why
    assert "card" not in graded.shown


@pytest.mark.parametrize(
    ("turns", "quantities"),
    [
        (("add 2 city cards and 2 more for our friends",), [2, 2]),
        (("add a bike and another one",), [1, 1]),
        (("Add a snorkel set", "and two more for the kids"), [1, 2]),
    ],
)
async def test_more_of_the_same_is_another_extra_never_taken_for_the_first_said_again(
    turns: tuple[str, ...], quantities: list[int]
) -> None:
    graded = await talk("travel-desk", turns, {"ends_with": "committed"})
    assert sorted(e["data"]["quantity"] for e in graded.events) == quantities, graded.events


@pytest.mark.parametrize(
    ("said", "amount"),
    [
        ("please refund ana 1/2 of what she paid", 6000),
        ("refund 50% of 1001", 6000),
        ("refund 1/4 of order 1001", 3000),
    ],
)
async def test_a_share_written_as_a_fraction_or_percentage_is_that_share_of_the_proposal(
    said: str, amount: int
) -> None:
    refund = {"case": "order-1001", "type": "refund_requested", "data": {"amount": amount}}
    graded = await talk(
        "refund-desk", (said, "/click confirm"), {"events": [refund], "ends_with": "committed"}
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "refund 1001 minus the minibar (15)",
        "refund everything except the 20 tax on 1001",
        "refund 1001 less 15 euros for the minibar",
        "refund order 1001 apart from the 10 euro deposit",
    ],
)
async def test_an_amount_said_as_what_to_leave_out_is_never_the_amount_refunded(said: str) -> None:
    graded = await talk("refund-desk", (said, "/click confirm"), {"ends_with": "clarification"})
    assert all(
        e["data"]["amount"] not in (1500, 2000, 1000) for e in graded.events
    ), graded.events


@pytest.mark.parametrize(
    "said",
    [
        "the email on 1001 is a.reis@mail.com, is that right?",
        "the note on 1002 says call back, is that correct?",
        "set the note on 1001 to vip. is that ok?",
    ],
)
async def test_a_value_stated_then_asked_to_be_checked_waits_for_a_card(said: str) -> None:
    graded = await talk("refund-desk", (said,), {"ends_with": "card"})
    assert graded.events == (), graded.events


@pytest.mark.parametrize(
    "said",
    [
        "rebook the outbound to March 3rd and the return to march 9th",
        "move the outbound to March 3 and the return to March 9",
        "rebook the outbound to March 3, the return to March 9",
    ],
)
async def test_a_verbless_second_leg_after_a_rebooking_is_rebooked_too_never_a_field_change(
    said: str,
) -> None:
    graded = await talk("travel-desk", (said,), {"ends_with": "card"})
    assert graded.events == (), graded.events
    assert "card:confirm_command" in graded.shown


async def test_a_field_joined_after_an_extra_is_still_the_field() -> None:
    graded = await talk(
        "travel-desk",
        ("add a kayak and the budget to 500",),
        {
            "events": [
                {"case": "lisbon", "type": "extra_added", "data": {"item": "kayak"}},
                field_event("lisbon", "budget", 50000),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "add a kayak at about 40 euros",
        "add a kayak for roughly €40",
        "add a boat trip, around 40 each",
        "add a kayak at approx. 40 euros for me and one for Pedro",
        "add a kayak for like 40",
    ],
)
async def test_an_estimated_price_is_asked_about_and_its_hedge_is_never_part_of_the_item(
    said: str,
) -> None:
    graded = await talk("travel-desk", (said,), {"ends_with": "clarification"})
    assert graded.events == (), graded.events
    assert "card:provide_argument" in graded.shown


@pytest.mark.parametrize(
    ("said", "item"),
    [
        ("We talked about a sauna and a wine tasting; add only the wine tasting", "wine tasting"),
        ("please just add a beach towel", "beach towel"),
    ],
)
async def test_a_focus_word_before_the_item_is_no_part_of_its_name(said: str, item: str) -> None:
    added = {"case": "lisbon", "type": "extra_added", "data": {"item": item}}
    graded = await talk("travel-desk", (said,), {"events": [added], "ends_with": "committed"})
    assert not graded.wrong_commits, graded.events
    assert [e["data"]["item"] for e in graded.events] == [item], graded.events


async def test_like_before_an_amount_is_a_hedge_but_would_like_is_a_request() -> None:
    said = ("can u refund 1001 like 30",)
    hedged = await talk("refund-desk", said, {"ends_with": "clarification"})
    assert "card:provide_argument" in hedged.shown and hedged.events == ()
    card = {"case": "order-1001", "operation": "refund", "arguments": {"amount": 3000}}
    wanted = await talk(
        "refund-desk",
        ("I'd like 30 back on 1001",),
        {"events": [], "ends_with": "card", "card": card},
    )
    assert wanted.right, wanted.why


async def test_a_decimal_comma_in_a_price_is_one_amount_never_a_second_extra() -> None:
    data = {"item": "museum tickets", "quantity": 2, "unit_price": 1250}
    added = {"case": "lisbon", "type": "extra_added", "data": data}
    graded = await talk(
        "travel-desk",
        ("add 2 museum tickets at EUR 12,50 each",),
        {"events": [added], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_a_second_extra_for_a_record_the_desk_does_not_know_is_asked_about() -> None:
    towel = {"case": "lisbon", "type": "extra_added", "data": {"item": "towel"}}
    graded = await talk(
        "travel-desk",
        ("add a towel to the Lisbon trip and a bike to the Porto trip",),
        {"events": [towel], "ends_with": "committed"},
    )
    assert graded.right, graded.why
    assert "notice:needs_clarification" in graded.shown
