"""Corrections said in a later turn (and a few in the same breath), through the real runtime
with the rules interpreter: the corrected value wins, and an operation that waits for a card
never commits the value the user took back. The phrasings are written for these tests."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter_kit import field_event, read, talk

pytestmark = pytest.mark.anyio


def _refund(amount: int) -> dict[str, Any]:
    return {"case": "order-1001", "type": "refund_requested", "data": {"amount": amount}}


async def test_an_amount_said_wrong_in_the_next_turn_is_confirmed_at_the_new_amount() -> None:
    graded = await talk(
        "refund-desk",
        ("please refund 50 on order 1001", "oops, 50 is wrong - 5 euros", "/click confirm"),
        {"events": [_refund(500)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_an_earlier_date_called_right_after_all_is_the_one_confirmed() -> None:
    graded = await talk(
        "travel-desk",
        (
            "rebook the return to 17 March",
            "no, 18 March",
            "sorry, 17 March is fine after all",
            "/click confirm",
        ),
        {
            "events": [{"case": "lisbon", "type": "rebooked", "data": {"date": "2026-03-17"}}],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_corrected_note_keeps_the_not_inside_its_words() -> None:
    graded = await talk(
        "travel-desk",
        ("add a note: hotel paid", "correction: hotel not paid in full"),
        {
            "events": [
                field_event("lisbon", "note", "hotel paid"),
                field_event("lisbon", "note", "hotel not paid in full"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_typo_owned_up_to_with_its_it_is_sets_the_email_again() -> None:
    graded = await talk(
        "refund-desk",
        ("the email on 1002 is rui@costa.con", "sorry, typo, it is rui@costa.com"),
        {
            "events": [
                field_event("order-1002", "contact_email", "rui@costa.con"),
                field_event("order-1002", "contact_email", "rui@costa.com"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_the_new_one_said_after_the_old_one_sets_the_field_again() -> None:
    graded = await talk(
        "refund-desk",
        (
            "set the email on 1002 to rui@work.pt",
            "hmm no, that's the outdated one. the right one is rui@home.pt",
        ),
        {
            "events": [
                field_event("order-1002", "contact_email", "rui@work.pt"),
                field_event("order-1002", "contact_email", "rui@home.pt"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_scratch_that_and_the_field_restated_corrects_that_field() -> None:
    graded = await talk(
        "refund-desk",
        (
            "put the note 'send voucher' on 1001",
            "scratch that, the note should read: call after lunch",
        ),
        {
            "events": [
                field_event("order-1001", "note", "send voucher"),
                field_event("order-1001", "note", "call after lunch"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_restated_value_of_another_field_never_corrects_the_one_just_changed() -> None:
    graded = await talk(
        "refund-desk",
        ("put the note 'send voucher' on 1001", "scratch that, the email should be: a@b.pt"),
        {"events": [field_event("order-1001", "note", "send voucher")], "ends_with": "nothing"},
    )
    assert not graded.wrong_commits, graded.events


async def test_better_with_a_colon_in_the_next_turn_renames_again() -> None:
    graded = await talk(
        "travel-desk",
        ("rename the trip to Spring break", "or better: Easter in Lisbon"),
        {
            "events": [
                field_event("lisbon", "name", "Spring break"),
                field_event("lisbon", "name", "Easter in Lisbon"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_ok_then_another_date_after_a_turned_down_card_offers_a_new_card() -> None:
    graded = await talk(
        "travel-desk",
        ("move the outbound to the 14th of March", "/click cancel", "okay then the 15th of March"),
        {
            "events": [],
            "ends_with": "card",
            "card": {"case": "lisbon", "operation": "rebook", "arguments": {"date": "2026-03-15"}},
        },
    )
    assert graded.right, graded.why


def test_lets_say_after_an_amount_corrects_it_and_a_hedge_is_no_part_of_it() -> None:
    reading = read("refund 60 on order 1001 ... hmm, let's say 55 just to be sure", "refund-desk")
    assert reading.unread == []
    assert reading.args(len(reading.acts) - 1)["amount"] == 5500


def test_a_colon_after_change_that_to_is_no_part_of_the_corrected_note() -> None:
    said = "note on 1002: leave at desk — no wait, change that to: leave at door"
    reading = read(said, "refund-desk")
    assert reading.acts[-1].value == "leave at door"  # type: ignore[attr-defined]


def test_days_of_a_thing_priced_per_day_count_the_thing_not_the_days() -> None:
    reading = read("could you add 4 days of kayak rental at 25 euros per day?")
    (args,) = [reading.args(i) for i, a in enumerate(reading.acts) if a.kind == "operation"]
    assert args["item"] == "kayak rental"
    assert args["quantity"] == 4


async def test_a_note_set_with_a_then_the_same_for_another_case_sets_both() -> None:
    graded = await talk(
        "refund-desk",
        ("set a note on 1002: urgent", "and 1001 too"),
        {
            "events": [
                field_event("order-1002", "note", "urgent"),
                field_event("order-1001", "note", "urgent"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


def test_a_weekday_before_a_corrected_day_keeps_the_month_of_the_date_it_corrects() -> None:
    reading = read("rebook the outbound to March 8th, wait, to Monday the 9th")
    last = len(reading.acts) - 1
    assert str(reading.args(last)["date"]) == "2026-03-09"


@pytest.mark.parametrize(
    ("desk_name", "first", "correction"),
    [
        ("refund-desk", "please refund 60 on order 1001", "wait, make it the blue one instead"),
        ("refund-desk", "refund 30 euros on 1001", "actually I meant something totally different"),
        ("refund-desk", "refund 30 euros on 1001", "hang on, that should go on the other thing"),
        ("travel-desk", "rebook the return to 17 March", "no wait, the one my wife said"),
        ("travel-desk", "withdraw the trip", "sorry, I meant a different one"),
    ],
)
async def test_a_correction_the_desk_cannot_read_leaves_no_card_that_a_click_can_confirm(
    desk_name: str, first: str, correction: str
) -> None:
    graded = await talk(
        desk_name,
        (first, correction, "/click confirm"),
        {"events": [], "ends_with": "nothing"},
    )
    assert graded.events == (), graded.why


async def test_a_readable_correction_still_moves_the_card_to_the_new_value() -> None:
    graded = await talk(
        "refund-desk",
        ("refund 60 euros on 1001", "no wait, make it 50", "/click confirm"),
        {"events": [_refund(5000)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize("answer", ["the boat tour for 2, around 40 each", "kayak x2 maybe"])
async def test_a_hedged_free_text_answer_is_shown_on_a_card_or_asked_never_committed(
    answer: str,
) -> None:
    graded = await talk(
        "travel-desk",
        ("Add an extra please", answer),
        {"events": [], "ends_with": "card"},
    )
    assert graded.events == (), graded.why
    assert "card:confirm_command" in graded.shown or "notice:needs_argument" in graded.shown


@pytest.mark.parametrize(
    ("answer", "item"), [("a kayak", "kayak"), ("bike rental", "bike rental"), ("Kayak", "Kayak")]
)
async def test_a_few_plain_words_answering_which_extra_complete_the_request_at_once(
    answer: str, item: str
) -> None:
    added = {"case": "lisbon", "type": "extra_added", "data": {"item": item, "quantity": 1}}
    graded = await talk(
        "travel-desk",
        ("Add an extra please", answer),
        {"events": [added], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize("answer", ["no idea", "not sure", "whatever", "nothing"])
async def test_an_answer_that_names_no_value_never_commits(answer: str) -> None:
    graded = await talk("travel-desk", ("Add an extra please", answer), {"ends_with": "card"})
    assert graded.events == (), graded.events


@pytest.mark.parametrize(
    "text",
    [
        'Could you please add the note "seats together if possible"? Thank you kindly.',
        "Please add the note \u201ccall me back if possible\u201d, thanks",
        'If you don\'t mind, set the note to "late check-in if you can"',
    ],
)
async def test_politeness_inside_a_quoted_value_is_kept_as_written(text: str) -> None:
    graded = await talk("travel-desk", (text,), {"events": [], "ends_with": "committed"})
    notes = [e["data"]["value"] for e in graded.events if e["type"] == "field_set"]
    assert len(notes) == 1 and notes[0].endswith(("possible", "you can")), graded.events


@pytest.mark.parametrize(
    "answer", ["order 1001, 50 euros", "1001, 50 euros", "50 euros on 1001", "for 1001, 50"]
)
async def test_naming_the_record_asked_for_with_the_amount_beside_it_completes_the_request(
    answer: str,
) -> None:
    graded = await talk(
        "refund-desk",
        ("refund please", answer, "/click confirm"),
        {"events": [_refund(5000)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_naming_the_record_asked_for_with_a_story_beside_it_commits_nothing() -> None:
    graded = await talk(
        "refund-desk",
        ("refund please", "1001, the hotel was awful", "/click confirm"),
        {"ends_with": "nothing"},
    )
    assert graded.events == (), graded.events


@pytest.mark.parametrize(
    "said",
    [
        "refund 1001 50. actually 60. no wait, the first number was right",
        "refund 50 on 1001, no make it 60, hmm no, the first one was right",
        "refund 50 on 1001. sorry, 60. ugh, go back to the original amount",
    ],
)
async def test_the_first_value_said_again_as_right_is_the_one_confirmed(said: str) -> None:
    graded = await talk(
        "refund-desk",
        (said, "/click confirm"),
        {"events": [_refund(5000)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_the_first_one_was_right_is_never_taken_for_a_value() -> None:
    graded = await talk(
        "refund-desk",
        ("set the note on 1001 to 'vip', no, 'regular', actually the first one was right",),
        {"ends_with": "committed"},
    )
    assert all(e["data"]["value"] != "the first one" for e in graded.events), graded.events


@pytest.mark.parametrize(
    ("turns", "expect"),
    [
        (
            ("set the budget", "the budget? 2000 euros"),
            {"events": [field_event("lisbon", "budget", 200000)], "ends_with": "committed"},
        ),
        (
            ("rebook the outbound", "date? 13 march"),
            {
                "events": [],
                "ends_with": "card",
                "card": {
                    "case": "lisbon",
                    "operation": "rebook",
                    "arguments": {"date": "2026-03-13"},
                },
            },
        ),
    ],
)
async def test_an_answer_that_says_the_question_back_first_is_read_as_the_answer(
    turns: tuple[str, ...], expect: dict[str, object]
) -> None:
    graded = await talk("travel-desk", turns, expect)
    assert graded.right, graded.why
