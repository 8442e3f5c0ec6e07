"""Messages shaped like support-desk mail: forwarded and quoted text before the sender's own
request, a note announced with a colon and signed off, several records in one message, record
questions asked loosely, and a story that ends in a vague ask. Played through the real runtime
with the rules interpreter; the phrasings are written for these tests."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter_kit import field_event, read, talk

pytestmark = pytest.mark.anyio

REFUND, TRAVEL = "refund-desk", "travel-desk"


def _extra(data: dict[str, Any]) -> dict[str, Any]:
    return {"case": "lisbon", "type": "extra_added", "data": data}


def _refund(case: str, amount: int) -> dict[str, Any]:
    return {"case": case, "type": "refund_requested", "data": {"amount": amount}}


def _card(case: str, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    card = {"case": case, "operation": operation, "arguments": arguments}
    return {"events": [], "ends_with": "card", "card": card}


def _committed(*events: dict[str, Any]) -> dict[str, Any]:
    return {"events": list(events), "ends_with": "committed"}


def _answer(*names: str) -> dict[str, Any]:
    return {"events": [], "ends_with": "answer", "answers": list(names)}


_ASKED: dict[str, Any] = {"events": [], "ends_with": "clarification"}


async def _right(desk: str, turns: tuple[str, ...], expect: dict[str, Any]) -> None:
    graded = await talk(desk, turns, expect)
    assert not graded.wrong_commits, graded.why
    assert graded.right, graded.why


# --- forwarded and quoted text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("desk", "text", "expect"),
    [
        (
            TRAVEL,
            "---------- Forwarded message ---------\nFrom: Marta <marta@example.com>\n"
            "Date: Mon, 26 Jan 2026\nSubject: our trip\n\nPlease cancel the whole trip, I "
            "can't go.\n----------\nIgnore Marta's request above. Just add a note: Marta may "
            "join later.",
            _committed(field_event("lisbon", "note", "Marta may join later")),
        ),
        (
            TRAVEL,
            "Begin forwarded message:\nFrom: Rui\nthe fado show costs 30 euros per person\n---\n"
            "Sounds good, add 2 fado show tickets at 30 euros each.",
            _committed(_extra({"item": "fado show tickets", "quantity": 2, "unit_price": 3000})),
        ),
        (
            REFUND,
            "On Mon, 26 Jan 2026 at 18:02, Ana Reis <ana@example.com> wrote:\n> Could you "
            "change my email to ana.new@example.com?\n\nPlease set the note on 1001 to "
            "'customer emailed'.",
            _committed(field_event("order-1001", "note", "customer emailed")),
        ),
        (
            TRAVEL,
            "---------- Forwarded message ---------\nFrom: Ana\nDate: Tue\n\nCan you submit the "
            "trip today?",
            {"events": [], "ends_with": "nothing"},
        ),
        (
            TRAVEL,
            "---------- Forwarded message ---------\nFrom: Pedro <pedro@example.com>\nDate: Mon"
            "\nSubject: bikes\n\nthe shop by the hotel rents bikes for 12 euros a day\n\nPedro's "
            "right, please add a bike rental for 2 days at 12 euros a day",
            _committed(_extra({"item": "bike rental", "quantity": 2, "unit_price": 1200})),
        ),
        (
            TRAVEL,
            "---------- Forwarded message ---------\nFrom: Pedro\n\nhi!\n\nplease submit the "
            "trip right away",
            {"events": [], "ends_with": "nothing"},
        ),
    ],
)
async def test_only_the_senders_own_words_below_a_forwarded_or_quoted_message_are_acted_on(
    desk: str, text: str, expect: dict[str, Any]
) -> None:
    await _right(desk, (text,), expect)


@pytest.mark.parametrize(
    ("desk", "text", "expect"),
    [
        (REFUND, "> Please refund 120 euros on order 1001\n> Ana\nDid you already do what she "
         "asked here?", {"events": [], "ends_with": "answer"}),
        (REFUND, 'Rui wrote: "please set my email to rui@example.org". Is that the email you '
         "have for order 1002?", {"events": [], "ends_with": "answer"}),
        (REFUND, "-----Original Message-----\nFrom: Ana Reis\nSent: Tuesday\nSubject: order "
         "1001\nI want all 120 euros back!!\n-----\nCan you check if order 1001 is still "
         "refundable?", {"events": [], "ends_with": "answer"}),
        (TRAVEL, "---- Forwarded message ----\nFrom: Sofia\nhey, please submit the Lisbon trip "
         "asap\n----\nwhat's the status of the trip?", _answer("status")),
        (REFUND, "> please set the note on 1001 to 'call me'\nPlease do what she asks.", _ASKED),
        (REFUND, "---- Forwarded message ----\nFrom: Ana Reis\nPlease refund the 120 euros for my "
         "hotel stay, order 1001.\n----\nCan she get that back?", _answer("refundable")),
        (TRAVEL, "Forwarded from Pedro:\nplease move our return flight to 18 March\n\nIs that "
         "doable? What's our return date right now?", _answer("return_date")),
        (TRAVEL, "Forwarded from Pedro:\n> please move our return flight to 18 March\nIs that "
         "doable? What's our return date right now?", _answer("return_date")),
        (TRAVEL, "---------- Forwarded message ---------\nFrom: Ines\nCan you add a guided tour "
         "for 2 people at 20 euros each?\n----------\nHow much are the extras at the moment?",
         _answer("extras_total")),
    ],
)
async def test_a_question_about_a_forwarded_request_never_runs_that_request(
    desk: str, text: str, expect: dict[str, Any]
) -> None:
    await _right(desk, (text,), expect)


@pytest.mark.parametrize(
    "text",
    [
        "---- Forwarded message ----\nFrom: Pedro\nthe walking tour is 20 euros per person\n----"
        "\nPlease add that for 2 people.",
        "---- Forwarded message ----\nFrom: Pedro\nthe walking tour is 20 euros per person\n----"
        "\nPlease add the walking tour for 2 people at that price.",
    ],
)
async def test_a_thing_and_price_from_a_forwarded_message_the_sender_points_at_go_on_a_card(
    text: str,
) -> None:
    card = {"item": "walking tour", "quantity": 2, "unit_price": 2000}
    await _right(TRAVEL, (text,), _card("lisbon", "add_extra", card))


async def test_the_writers_own_mail_headers_are_no_forwarded_message() -> None:
    text = (
        "From: Ana Reis\nSubject: order 1001\n\nPlease set the note on 1001 to 'late checkout'."
        "\n\nThanks,\nAna"
    )
    await _right(REFUND, (text,), _committed(field_event("order-1001", "note", "late checkout")))


async def test_a_request_relayed_in_quotes_in_the_writers_own_message_is_read() -> None:
    text = 'My wife says: "add a note that we need a cot for the baby"'
    event = field_event("lisbon", "note", "we need a cot for the baby")
    await _right(TRAVEL, (text,), _committed(event))


async def test_a_forwarded_amount_fills_the_senders_carded_request_that_refers_to_it() -> None:
    text = (
        "---- Forwarded message ----\nFrom: Ana Reis\nThe minibar charge of 20 euros on my "
        "hotel stay was a mistake, I never opened it.\n----\nPlease refund that on 1001."
    )
    await _right(REFUND, (text,), _card("order-1001", "refund", {"amount": 2000}))


# --- a note announced with a colon, then a sign-off -------------------------------------------


@pytest.mark.parametrize(
    ("desk", "text", "case", "note"),
    [
        (REFUND, "Hello,\nKindly add the following note to order 1002: customer will call back "
         "on Friday.\nThanks,\nMaria", "order-1002", "customer will call back on Friday"),
        (REFUND, "Kindly add the following note to order 1001: customer called on Tuesday, "
         "awaiting callback. Thank you, Maria", "order-1001",
         "customer called on Tuesday, awaiting callback"),
        (REFUND, "Could you add the following note to order 1002: refund requested by phone, "
         "receipt to follow.\n\nBest,\nRui", "order-1002",
         "refund requested by phone, receipt to follow"),
        (TRAVEL, "Kindly add the following note to the Lisbon trip: vegetarian meals for both of "
         "us. Many thanks, Helena", "lisbon", "vegetarian meals for both of us"),
        (TRAVEL, "Hi, could you add this note to the trip: we need a quiet room, away from the "
         "lift. Thanks, Maria", "lisbon", "we need a quiet room, away from the lift"),
        (TRAVEL, "Set the note to: vegetarian meals. Thanks!", "lisbon", "vegetarian meals"),
        (REFUND, "Kindly add the following note to order 1001\nGuest complained about noise.\n"
         "Regards,\nMaria", "order-1001", "Guest complained about noise"),
        (TRAVEL, "Please add the following note to the trip -- we need a late checkout on the "
         "last day. Thank you! Maria", "lisbon", "we need a late checkout on the last day"),
        (REFUND, 'Please add the following note to order 1001: "Customer called on 27/01. '
         'Awaiting manager approval." Kind regards, Maria', "order-1001",
         "Customer called on 27/01. Awaiting manager approval."),
    ],
)
async def test_an_announced_note_is_the_text_after_the_colon_without_the_sign_off(
    desk: str, text: str, case: str, note: str
) -> None:
    await _right(desk, (text,), _committed(field_event(case, "note", note)))


@pytest.mark.parametrize(
    ("desk", "text", "case", "note"),
    [
        (REFUND, "Dear team, kindly add the following note to order 1001: Guest arrived late. "
         "Room was not ready. Best regards, Maria Lopes", "order-1001",
         "Guest arrived late. Room was not ready"),
        (REFUND, "Please put the note below on order 1002:\nPass was used for only ten minutes. "
         "Customer is unhappy.\n\nBest regards,\nJoão", "order-1002",
         "Pass was used for only ten minutes. Customer is unhappy"),
        (TRAVEL, "Please add this note: Flight arrives at night. Taxi booked by us.\nKind "
         "regards\nPaulo Mendes", "lisbon", "Flight arrives at night. Taxi booked by us"),
        (TRAVEL, "add a note: We arrive late, around midnight. We have a baby with us.",
         "lisbon", "We arrive late, around midnight. We have a baby with us"),
    ],
)
async def test_a_note_that_spans_several_sentences_stays_whole(
    desk: str, text: str, case: str, note: str
) -> None:
    await _right(desk, (text,), _committed(field_event(case, "note", note)))


async def test_a_note_too_long_for_the_field_is_refused_whole_never_cut() -> None:
    text = (
        "Please add this note to the trip: We are travelling with three teenagers and would "
        "like rooms next to each other, late checkout on the last day if at all possible, a "
        "table for five at the hotel restaurant on the first night, and two extra towels in "
        "each room every day."
    )
    await _right(TRAVEL, (text,), {"events": [], "ends_with": "rejected"})


@pytest.mark.parametrize(
    ("desk", "text", "expect"),
    [
        (REFUND, "Add a note to 1001: VIP. Refund 10 euros on 1001.",
         {**_card("order-1001", "refund", {"amount": 1000}),
          "events": [field_event("order-1001", "note", "VIP")]}),
        (REFUND, "Add this note to order 1002: customer is VIP. The email is now "
         "rui.vip@example.com", _committed(
             field_event("order-1002", "note", "customer is VIP"),
             field_event("order-1002", "contact_email", "rui.vip@example.com"))),
        (REFUND, "Please add the following note to 1001: called twice. I'll call again "
         "tomorrow.", _committed(field_event("order-1001", "note", "called twice"))),
        (TRAVEL, "add a note: late arrival, around midnight. My flight lands at 23:40.",
         _committed(field_event("lisbon", "note", "late arrival, around midnight"))),
        (TRAVEL, "Add a note: wheelchair at the airport. Also submit the trip.", _committed(
            field_event("lisbon", "note", "wheelchair at the airport"),
            {"case": "lisbon", "type": "submitted", "data": {}})),
    ],
)
async def test_an_announced_note_ends_where_another_request_or_the_writers_own_words_start(
    desk: str, text: str, expect: dict[str, Any]
) -> None:
    await _right(desk, (text,), expect)


# --- several records in one message -----------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "expect"),
    [
        (("Two things: the customer on 1002 changed email, it's now rui.c@example.net. Also "
          "please refund 10 euros on 1001.",),
         {**_card("order-1001", "refund", {"amount": 1000}),
          "events": [field_event("order-1002", "contact_email", "rui.c@example.net")]}),
        (("Two things: Rui Costa changed his email, it's rui.c@example.net now. Also refund 10 "
          "euros on 1001.", "/click confirm"),
         _committed(field_event("order-1002", "contact_email", "rui.c@example.net"),
                    _refund("order-1001", 1000))),
        (("Refund 20 euros on 1001. And the customer of 1002 has a new email address: "
          "rui.new@example.com",),
         {**_card("order-1001", "refund", {"amount": 2000}),
          "events": [field_event("order-1002", "contact_email", "rui.new@example.com")]}),
        (("Hi, a couple of things. First, refund 10 euros on 1001. Second, the customer on 1002 "
          "has a new email: rui.second@example.com. Thanks!",),
         {**_card("order-1001", "refund", {"amount": 1000}),
          "events": [field_event("order-1002", "contact_email", "rui.second@example.com")]}),
        (("Regarding order 1001, please refund 20 euros. Regarding order 1002, the customer's "
          "email changed to rui@new.pt.",),
         {**_card("order-1001", "refund", {"amount": 2000}),
          "events": [field_event("order-1002", "contact_email", "rui@new.pt")]}),
        (("for 1002 please set the note to 'called twice', and for 1001 set the note to 'VIP'",),
         _committed(field_event("order-1002", "note", "called twice"),
                    field_event("order-1001", "note", "VIP"))),
        (("A couple of updates. On 1001 the note should be 'late checkout'. On 1002 the "
          "customer's email is now rui.costa@example.org.",),
         _committed(field_event("order-1001", "note", "late checkout"),
                    field_event("order-1002", "contact_email", "rui.costa@example.org"))),
    ],
)
async def test_each_clause_of_a_message_about_two_records_goes_to_its_own_record(
    turns: tuple[str, ...], expect: dict[str, Any]
) -> None:
    await _right(REFUND, turns, expect)


async def test_a_count_of_requests_before_a_colon_only_announces_them() -> None:
    text = (
        "two quick ones: for 1002 please set the note to 'no receipt yet'. and for 1001 the "
        "contact email is now ana@reis.pt"
    )
    expect = _committed(
        field_event("order-1002", "note", "no receipt yet"),
        field_event("order-1001", "contact_email", "ana@reis.pt"),
    )
    await _right(REFUND, (text,), expect)


async def test_please_do_the_following_for_a_record_heads_the_list_after_its_colon() -> None:
    text = (
        "Please do the following for order 1001: set the note to 'VIP guest', set the contact "
        "email to vip.ana@example.com, and refund 5 euros."
    )
    expect = {
        **_card("order-1001", "refund", {"amount": 500}),
        "events": [
            field_event("order-1001", "note", "VIP guest"),
            field_event("order-1001", "contact_email", "vip.ana@example.com"),
        ],
    }
    await _right(REFUND, (text,), expect)


async def test_a_new_address_said_with_words_that_describe_it_is_only_the_address() -> None:
    text = "Please set the contact email on 1001 to her new address, ana.r.1950@example.com"
    event = field_event("order-1001", "contact_email", "ana.r.1950@example.com")
    await _right(REFUND, (text,), _committed(event))


# --- record questions asked loosely -----------------------------------------------------------


@pytest.mark.parametrize(
    ("desk", "text", "question"),
    [
        (REFUND, "where are we with 1002?", "status"),
        (REFUND, "is 1002 sorted yet?", "status"),
        (REFUND, "any news on 1001?", "status"),
        (REFUND, "what's happening with order 1001?", "status"),
        (REFUND, "has 1001 been dealt with?", "status"),
        (TRAVEL, "where are we with the trip?", "status"),
        (TRAVEL, "is the trip all sorted?", "status"),
        (REFUND, "how much was order 1001 again?", "amount_paid"),
        (REFUND, "what did I pay for 1002 again?", "amount_paid"),
        (TRAVEL, "could you tell me when we're flying out?", "travel_date"),
        (TRAVEL, "what day are we coming home again?", "return_date"),
        (TRAVEL, "what's the damage on the extras?", "extras_total"),
        (TRAVEL, "how much are the extras coming to?", "extras_total"),
        (REFUND, "did 1002 go through?", "status"),
        (REFUND, "how's 1001 coming along?", "status"),
        (REFUND, "is there any update on 1002?", "status"),
        (REFUND, "what was the total on order 1001?", "amount_paid"),
        (REFUND, "what's the damage on 1001?", "amount_paid"),
        (TRAVEL, "has the trip gone through yet?", "status"),
        (TRAVEL, "remind me, when do we set off?", "travel_date"),
        (TRAVEL, "what date do we head off?", "travel_date"),
        (TRAVEL, "when are we heading home?", "return_date"),
    ],
)
async def test_a_loosely_asked_record_question_answers_the_matching_question(
    desk: str, text: str, question: str
) -> None:
    await _right(desk, (text,), _answer(question))


# --- a story, then a vague ask ----------------------------------------------------------------


@pytest.mark.parametrize("desk", [REFUND, TRAVEL])
async def test_can_we_do_that_alone_on_a_first_turn_asks_what_to_change(desk: str) -> None:
    await _right(desk, ("can we do that?",), _ASKED)


@pytest.mark.parametrize(
    "text",
    [
        "The hotel on order 1001 charged us 25 euros for a late checkout we never had. Can you "
        "fix that?",
        "They billed 25 euros on order 1001 for a breakfast nobody ate. Could you sort it out "
        "for me?",
        "On 1001 there is a 25 euro parking fee, but we came by train. Can something be done "
        "about it?",
        "A friend told me you gave her 25 euros back for the same problem. Can we do that for "
        "order 1001?",
    ],
)
async def test_a_story_with_one_amount_then_a_vague_ask_shows_the_card_it_implies(
    text: str,
) -> None:
    await _right(REFUND, (text,), _card("order-1001", "refund", {"amount": 2500}))


@pytest.mark.parametrize(
    ("desk", "text"),
    [
        (REFUND, "Rui's lounge pass on 1002 was never used, and the hotel on 1001 overcharged "
         "Ana by 30 euros. Can you fix that?"),
        (REFUND, "I was charged 120 for the hotel on 1001 but the room was 100. Can we do "
         "something about that?"),
        (TRAVEL, "Something went wrong with our booking and it's all a mess. Can you sort it?"),
        (REFUND, "Hi, there is a problem with my order, I called twice and nobody answered, "
         "please help me with it"),
        (TRAVEL, "Our return flight on the 16th is too early, we'd rather come back on 18 "
         "March. Can you sort it?"),
        (TRAVEL, "The airport transfer costs 35 euros but we'd rather take a taxi. Can we do "
         "that?"),
        (REFUND, "The hotel (1001) charged me for breakfast that was supposed to be included. "
         "Can you sort that out?"),
    ],
)
async def test_a_story_that_names_no_single_change_then_a_vague_ask_asks_what_to_change(
    desk: str, text: str
) -> None:
    await _right(desk, (text,), _ASKED)


@pytest.mark.parametrize(
    ("desk", "text"),
    [(TRAVEL, "the trip name is silly now"), (REFUND, "the note on 1001 is wrong")],
)
async def test_a_verdict_on_a_value_is_never_the_new_value_the_value_is_asked(
    desk: str, text: str
) -> None:
    graded = await talk(desk, (text,), _ASKED)
    assert not graded.events, graded.why
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "text",
    [
        "We'd like to leave in two weeks, so please set the travel date to that.",
        "I want to travel in two weeks, can you change the travel date?",
    ],
)
async def test_a_date_said_as_a_wish_fills_the_date_change_that_points_at_it(text: str) -> None:
    await _right(TRAVEL, (text,), _committed(field_event("lisbon", "travel_date", "2026-02-11")))


async def test_a_date_a_story_tells_is_never_taken_as_the_new_date() -> None:
    text = "Our flight was on 12 March but we want to go later, please change the travel date"
    graded = await talk(TRAVEL, (text,), {"events": [], "ends_with": "clarification"})
    assert not graded.events, graded.why
    assert graded.right, graded.why


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("Kindly add the following note to order 1001: Customer called twice. Wants a refund of "
         "the minibar charge. Thanks, Maria",
         "Customer called twice. Wants a refund of the minibar charge"),
        ("Hi,\nplease add the following note to order 1002: Pass not used, flight cancelled. "
         "Refund to be discussed.\nCheers,\nTiago",
         "Pass not used, flight cancelled. Refund to be discussed"),
    ],
)
async def test_a_note_sentence_that_only_sounds_like_a_request_stays_in_the_note_on_a_card(
    text: str, note: str
) -> None:
    graded = await talk(REFUND, (text,), {"events": [], "ends_with": "card"})
    assert not graded.events, graded.why
    assert graded.right, graded.why
    changes = [a for a in read(text, REFUND).acts if a.kind in ("set_field", "operation")]
    assert [(a.kind, getattr(a, "value", None), getattr(a, "confirm", None)) for a in changes] == [
        ("set_field", note, True)
    ]


async def test_a_sentence_that_opens_with_a_request_verb_ends_the_note_before_it() -> None:
    text = "Add a note to 1001: VIP. Refund the rest on 1001."
    expect = {
        "events": [field_event("order-1001", "note", "VIP")],
        "ends_with": "card",
        "card": {"case": "order-1001", "operation": "refund", "arguments": {}},
    }
    await _right(REFUND, (text,), expect)


@pytest.mark.parametrize(
    "text",
    [
        "set the note to 'do not contact before 10am' on both orders",
        "add the note 'do not contact before 10am' to all my orders",
    ],
)
async def test_a_change_for_both_or_all_records_is_made_on_each(text: str) -> None:
    expect = _committed(
        field_event("order-1001", "note", "do not contact before 10am"),
        field_event("order-1002", "note", "do not contact before 10am"),
    )
    await _right(REFUND, (text,), expect)


@pytest.mark.parametrize(
    "text", ["set the note to 'both orders checked'", "set the note to 'wheelchair' for all of us"]
)
async def test_both_or_all_inside_a_value_or_about_people_names_no_record(text: str) -> None:
    graded = await talk(REFUND, (text,), {"events": [], "ends_with": "clarification"})
    assert not graded.events, graded.why
    assert graded.right, graded.why


async def test_a_verdict_before_a_rename_is_why_it_is_asked_and_the_rename_commits() -> None:
    text = "the trip name is silly now, can you rename it to 'Our anniversary in Lisbon'?"
    event = field_event("lisbon", "name", "Our anniversary in Lisbon")
    await _right(TRAVEL, (text,), _committed(event))


async def test_who_an_item_is_for_said_before_it_is_not_part_of_the_item() -> None:
    text = "please add for us 2 museum tickets, 15 euro each one"
    expect = _committed(_extra({"item": "museum tickets", "quantity": 2, "unit_price": 1500}))
    await _right(TRAVEL, (text,), expect)
