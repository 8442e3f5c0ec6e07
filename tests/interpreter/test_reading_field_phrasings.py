"""Everyday ways of changing a field that are not "set X to Y": the old value said before the
new one, a note "that …" or "logged", an amount right after the field. The phrasings are
written for these tests from what people type at a desk."""

from __future__ import annotations

import pytest
from interpreter_kit import field_event, talk

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("desk", "said", "case", "field", "value"),
    [
        (
            "refund-desk",
            "change the contact email from ana@old.pt to ana@new.pt on 1001",
            "order-1001",
            "contact_email",
            "ana@new.pt",
        ),
        (
            "refund-desk",
            "please change the email on 1002 from rui@old.pt to rui@new.pt",
            "order-1002",
            "contact_email",
            "rui@new.pt",
        ),
        (
            "refund-desk",
            "add a note to 1001 that the customer called twice",
            "order-1001",
            "note",
            "the customer called twice",
        ),
        (
            "refund-desk",
            "pls log a note on 1002 saying lounge was closed",
            "order-1002",
            "note",
            "lounge was closed",
        ),
        ("refund-desk", "make a note on 1001: no calls", "order-1001", "note", "no calls"),
        ("travel-desk", "set budget 2500 €", "lisbon", "budget", 250000),
        ("travel-desk", "change budget 3000", "lisbon", "budget", 300000),
        ("travel-desk", "update the budget 1.800 euros", "lisbon", "budget", 180000),
        ("travel-desk", "set travel date 13 march", "lisbon", "travel_date", "2026-03-13"),
        ("travel-desk", "change return date 18/3", "lisbon", "return_date", "2026-03-18"),
        ("refund-desk", "change email on 1001 a@b.pt", "order-1001", "contact_email", "a@b.pt"),
    ],
)
async def test_a_field_change_said_the_everyday_way_commits_the_new_value(
    desk: str, said: str, case: str, field: str, value: object
) -> None:
    graded = await talk(
        desk, (said,), {"events": [field_event(case, field, value)], "ends_with": "committed"}
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    ("desk", "said"),
    [
        ("refund-desk", "Set the email on order 1001"),
        ("refund-desk", "update the contact email for 1002"),
        ("travel-desk", "set the note 3 bags on the trip to march 18"),
        ("travel-desk", "set note call back"),
    ],
)
async def test_a_record_or_a_date_where_the_value_should_be_is_never_the_value(
    desk: str, said: str
) -> None:
    graded = await talk(desk, (said,), {"ends_with": "clarification"})
    assert not graded.events, graded.events


async def test_a_note_for_each_of_two_records_after_their_colons_goes_to_each() -> None:
    graded = await talk(
        "refund-desk",
        ("note on 1001: late checkout, on 1002: waiting for papers",),
        {
            "events": [
                field_event("order-1001", "note", "late checkout"),
                field_event("order-1002", "note", "waiting for papers"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    ["can you add a leg to the trip", "add a flight to the trip", "add a third leg to Porto"],
)
async def test_adding_what_another_operation_takes_is_never_an_extra(said: str) -> None:
    graded = await talk("travel-desk", (said,), {"ends_with": "rejected"})
    assert graded.events == (), graded.events
