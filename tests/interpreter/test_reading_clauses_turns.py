"""Corrections and follow-ups across turns, through the real runtime with the rules interpreter:
what a conversation commits, event by event. The phrasings are written for these tests."""

from __future__ import annotations

import pytest
from interpreter_kit import field_event, talk

pytestmark = pytest.mark.anyio


async def test_an_admitted_typo_in_the_next_turn_sets_the_value_again() -> None:
    graded = await talk(
        "travel-desk",
        ("set the budget to 5000", "oops, typo - 500"),
        {
            "events": [
                field_event("lisbon", "budget", 500000),
                field_event("lisbon", "budget", 50000),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_corrections_in_a_row_commit_only_the_last_amount_after_the_click() -> None:
    graded = await talk(
        "refund-desk",
        ("refund 25 on order 1001 no 35 no sorry 30", "/click confirm"),
        {
            "events": [
                {"case": "order-1001", "type": "refund_requested", "data": {"amount": 3000}}
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_follow_up_turn_naming_another_record_and_a_quoted_value_sets_it_there() -> None:
    graded = await talk(
        "refund-desk",
        ("set the note on order 1002 to 'waiting'", "and on order 1001 'done'"),
        {
            "events": [
                field_event("order-1002", "note", "waiting"),
                field_event("order-1001", "note", "done"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_same_for_a_person_in_the_next_turn_repeats_the_act_for_that_person() -> None:
    added = {"case": "lisbon", "type": "extra_added"}
    graded = await talk(
        "travel-desk",
        ("add a kayak paid by Pedro", "same for Sofia"),
        {
            "events": [
                {**added, "data": {"item": "kayak", "paid_by": "Pedro"}},
                {**added, "data": {"item": "kayak", "paid_by": "Sofia"}},
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_name_inside_an_address_in_a_next_turn_correction_never_moves_the_change() -> None:
    graded = await talk(
        "refund-desk",
        (
            "change the email on order 1002 to lee@mail.example",
            "sorry, wrong one - set it to ana.b@mail.example",
        ),
        {
            "events": [
                field_event("order-1002", "contact_email", "lee@mail.example"),
                field_event("order-1002", "contact_email", "ana.b@mail.example"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_typo_owned_up_to_in_the_next_turn_shows_the_carded_operation_again() -> None:
    graded = await talk(
        "refund-desk",
        ("refund 20 on order 1001", "sorry typo, 25", "/click confirm"),
        {
            "events": [
                {"case": "order-1001", "type": "refund_requested", "data": {"amount": 2500}}
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why
