"""A later clause of the same message takes back an earlier request by what it names, and a
request at the end of a story refers back to the one thing the story names. Played through the
real runtime with the rules interpreter; the phrasings are written for these tests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interpreter_kit import field_event, talk

from turnframe.examples import sample
from turnframe.plan import CancelAct
from turnframe.providers.rules import read_turn
from turnframe.testing import make_turn

pytestmark = pytest.mark.anyio


def _card(case: str, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "events": [],
        "ends_with": "card",
        "card": {"case": case, "operation": operation, "arguments": arguments},
    }


# --- taking back one request later in the same message ---------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Move the outbound flight to 14 March. Hmm, no, leave the outbound flight as it is.",
        "Please rebook my way back to 20 March. On second thought keep the way back unchanged.",
        "Rebook the return flight to 18 March... actually forget the return flight part.",
    ],
)
async def test_leaving_the_named_thing_as_it_is_withdraws_the_earlier_request(text: str) -> None:
    graded = await talk("travel-desk", (text,), {"events": [], "ends_with": "nothing"})
    assert graded.right, graded.why
    assert not graded.wrong_commits


@pytest.mark.parametrize(
    "text",
    [
        "Put a note 'see you soon' and submit it. Actually don't submit, just the note.",
        "Write the note 'all good' and submit. Hmm, only the note please",
        "Set the note to 'packed' and submit the trip. Never mind the submit bit.",
    ],
)
async def test_just_the_named_change_keeps_it_and_drops_the_rest(text: str) -> None:
    note = text.split("'")[1]
    graded = await talk(
        "travel-desk",
        (text,),
        {"events": [field_event("lisbon", "note", note)], "ends_with": "committed"},
    )
    assert graded.right, graded.why
    assert not graded.wrong_commits


async def test_forgetting_one_part_keeps_the_other_request() -> None:
    graded = await talk(
        "refund-desk",
        ("On 1001 set the note to 'called back' and refund 10 euros. Forget the refund part.",),
        {"events": [field_event("order-1001", "note", "called back")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_a_withdrawal_naming_nothing_said_earlier_withdraws_nothing() -> None:
    graded = await talk(
        "travel-desk",
        ("Set the note to 'umbrellas'. Leave the budget as it is.",),
        {"events": [field_event("lisbon", "note", "umbrellas")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_dont_do_the_named_thing_after_all_keeps_the_other_request() -> None:
    graded = await talk(
        "travel-desk",
        (
            "Rebook the return flight to 17 March and add a note 'late'. "
            "Don't do the return flight after all.",
        ),
        {"events": [field_event("lisbon", "note", "late")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_keeping_another_thing_as_it_is_adds_no_second_request() -> None:
    graded = await talk(
        "travel-desk",
        ("Move the way back to 20 March but keep the outbound flight as it is.",),
        _card("lisbon", "rebook", {"leg": "return", "date": "2026-03-20"}),
    )
    assert graded.right, graded.why
    assert graded.shown.count("card:") == 1, graded.shown


# --- a request at the end of a story takes the one thing the story names ---------------------


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        (
            "Order 1001: the minibar charged me 18 euros for water I never had. Refund it please.",
            1800,
        ),
        ("About 1001. The hotel billed 25,50 € twice for parking! Could you pay that back?", 2550),
        (
            "Hi, order 1001, I stayed one night and was charged €30 too much. Please refund that.",
            3000,
        ),
    ],
)
async def test_a_refund_of_it_after_a_story_with_one_amount_proposes_that_amount(
    text: str, amount: int
) -> None:
    graded = await talk("refund-desk", (text,), _card("order-1001", "refund", {"amount": amount}))
    assert graded.right, graded.why
    assert not graded.wrong_commits


@pytest.mark.parametrize(
    "text",
    [
        "On 1001 I paid 12 euros for parking and 9 euros for towels. Please refund it.",
        "Order 1001. They took 20 euros at check-in. Then another 35 euros at checkout. "
        "Refund that.",
    ],
)
async def test_a_refund_of_it_after_a_story_with_several_amounts_asks_which(text: str) -> None:
    graded = await talk(
        "refund-desk",
        (text,),
        {"events": [], "ends_with": "clarification", "clarification": {"argument": "amount"}},
    )
    assert graded.right, graded.why


async def test_a_rebooking_of_it_after_a_story_about_one_leg_moves_that_leg() -> None:
    graded = await talk(
        "travel-desk",
        (
            "Seriously? My way back is booked for the 16th? I asked for the 18th. "
            "Rebook it to 18 March.",
        ),
        _card("lisbon", "rebook", {"leg": "return", "date": "2026-03-18"}),
    )
    assert graded.right, graded.why


async def test_a_story_date_never_becomes_the_new_date_of_a_request() -> None:
    graded = await talk(
        "travel-desk",
        ("The return flight is on 16 March and that does not work for us. Please rebook it.",),
        {"events": [], "ends_with": "clarification", "clarification": {"argument": "date"}},
    )
    assert graded.right, graded.why


async def test_a_routine_change_is_never_filled_from_a_story() -> None:
    graded = await talk(
        "travel-desk",
        ("We spent 900 euros last year in Rome and it was plenty. Set the budget.",),
        {"events": [], "ends_with": "clarification"},
    )
    assert graded.right, graded.why
    assert not graded.wrong_commits


# --- a bare "is it?" asks about the sentence before it ---------------------------------------


@pytest.mark.parametrize(
    ("desk", "text", "answer"),
    [
        (
            "travel-desk",
            "I only booked because of the promo code. That code had better be valid. Is it?",
            "discount_valid",
        ),
        (
            "refund-desk",
            "Order 1001 should really have a receipt on file by now. Does it?",
            "receipt",
        ),
    ],
)
async def test_a_bare_is_it_asks_about_what_the_sentence_before_it_says(
    desk: str, text: str, answer: str
) -> None:
    graded = await talk(desk, (text,), {"events": [], "ends_with": "answer", "answers": [answer]})
    assert graded.right, graded.why


async def test_a_bare_is_it_with_nothing_before_it_answers_nothing() -> None:
    graded = await talk("travel-desk", ("Is it?",), {"events": [], "ends_with": "answer"})
    assert not graded.wrong_commits
    assert "answer:discount_valid" not in graded.shown


# --- a take-back names what it takes back ----------------------------------------------------

_OTHER_WORDS = ("garden", "blue car", "old sofa", "weekend plan", "spare key", "window seat")


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(_OTHER_WORDS),
    st.sampled_from(("leave the {} as it is", "forget the {} part", "keep my {} unchanged")),
)
def test_a_take_back_naming_nothing_the_message_asked_for_cancels_nothing(
    words: str, form: str
) -> None:
    text = f"Set the note to 'call me'. Actually, {form.format(words)}."
    turn = make_turn(text)
    plan = read_turn(turn, sample("travel-desk").workflow, case_labels=("Lisbon",))
    assert not [a for a in plan.acts if isinstance(a, CancelAct)], plan.acts
