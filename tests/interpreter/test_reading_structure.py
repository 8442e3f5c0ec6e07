"""How a message is built, through the real runtime with the rules interpreter: the record named
before a colon or early in a polite message, lists after an intro, typos in question words,
requests implied by a value with a verdict, and the greeting, closing and signature around a
request. The phrasings are written for these tests, several per class (never taken from the
corpus); a test names the behaviour it proves."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.examples import sample
from turnframe.providers.rules.frame import polite_condition, signature
from turnframe.providers.rules.split import split_clauses
from turnframe.providers.rules.vocabulary import vocabulary_of
from turnframe.testing.phrasings import Graded, play_turns

pytestmark = pytest.mark.anyio
REFUND, TRAVEL = "refund-desk", "travel-desk"


def field_set(case: str, field: str, value: Any) -> dict[str, Any]:
    return {"case": case, "type": "field_set", "data": {"field": field, "value": value}}


async def reaches(desk: str, turns: list[str], expect: dict[str, Any]) -> Graded:
    graded = await play_turns(desk, turns, expect)
    assert graded.wrong_commits == (), graded.why
    assert graded.right, graded.why
    return graded


def refund_card(case: str, amount: int) -> dict[str, Any]:
    card = {"case": case, "operation": "refund", "arguments": {"amount": amount}}
    return {"ends_with": "card", "card": card}


# -- the record named first -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "case", "field", "value"),
    [
        ("If it's no trouble, please add a note to order 1002: customer called twice",
         "order-1002", "note", "customer called twice"),
        ("Order #1002: please add a note saying the customer will call back",
         "order-1002", "note", "the customer will call back"),
        ("Re: order 1002 - could you change the contact email to rui@costa.pt please",
         "order-1002", "contact_email", "rui@costa.pt"),
        ("Hello, this is about my order 1001 at the Almirante. I'd be very grateful if you could "
         "possibly add a note that I arrive late on the day",
         "order-1001", "note", "I arrive late on the day"),
        ("order 1002. my new email is rui@c.pt", "order-1002", "contact_email", "rui@c.pt"),
    ],
)
async def test_a_record_named_before_the_request_is_the_record_the_request_changes(
    said: str, case: str, field: str, value: str
) -> None:
    await reaches(REFUND, [said], {"events": [field_set(case, field, value)],
                                   "ends_with": "committed"})


@pytest.mark.parametrize(
    ("said", "case", "field", "value"),
    [
        ("About Rui Costa's lounge pass: please add a note that he lost his boarding pass",
         "order-1002", "note", "he lost his boarding pass"),
        ("My name is Rui Costa. Please use rui.costa@gmail.com for all future emails.",
         "order-1002", "contact_email", "rui.costa@gmail.com"),
        ("order 1001 \u2014 email is now ana.r@mail.com", "order-1001", "contact_email",
         "ana.r@mail.com"),
        ("please use ana@new.pt instead of ana@old.pt on order 1001", "order-1001",
         "contact_email", "ana@new.pt"),
        ("Subject: order 1001\n\nHello, could you add a note saying the guest will arrive "
         "after midnight? Thank you", "order-1001", "note", "the guest will arrive after midnight"),
    ],
)
async def test_a_heading_a_self_introduction_or_a_replaced_value_finds_the_record_and_value(
    said: str, case: str, field: str, value: str
) -> None:
    await reaches(REFUND, [said], {"events": [field_set(case, field, value)],
                                   "ends_with": "committed"})


async def test_a_change_wrapped_in_excuse_me_and_i_would_appreciate_it_if_is_read() -> None:
    said = "Excuse me, I'd appreciate it if the note on order 1002 could say 'call after 6pm'."
    await reaches(REFUND, [said], {"events": [field_set("order-1002", "note", "call after 6pm")],
                                   "ends_with": "committed"})


async def test_what_i_need_is_a_request_not_a_question() -> None:
    said = "Hello again. What I really need is a note on the trip: 'quiet room'. Thanks and bye!"
    await reaches(TRAVEL, [said], {"events": [field_set("lisbon", "note", "quiet room")],
                                   "ends_with": "committed"})


async def test_a_change_asked_with_would_you_mind_and_a_gerund_is_read() -> None:
    said = "Re: the Lisbon city break \u2014 would you mind adding a note: vegetarian meals"
    await reaches(TRAVEL, [said], {"events": [field_set("lisbon", "note", "vegetarian meals")],
                                   "ends_with": "committed"})


async def test_a_polite_condition_before_a_change_is_politeness_not_a_condition() -> None:
    said = "If it isn't too much trouble, could you set the budget to 1200 euros"
    await reaches(TRAVEL, [said], {"events": [field_set("lisbon", "budget", 120000)],
                                   "ends_with": "committed"})


@pytest.mark.parametrize(
    "said",
    [
        "Hi, I'm Ana Reis. Could you please use ana@new.pt from now on?",
        "For order 1001, please use ana@new.pt from now on",
        "Please email me at ana@new.pt from now on, order 1001",
    ],
)
async def test_a_value_whose_shape_only_one_field_takes_sets_that_field_on_the_named_record(
    said: str,
) -> None:
    await reaches(REFUND, [said], {"events": [field_set("order-1001", "contact_email",
                                                        "ana@new.pt")],
                                   "ends_with": "committed"})


async def test_a_shaped_value_with_no_record_named_asks_which_record() -> None:
    await reaches(REFUND, ["Could you please use ana@new.pt from now on?"],
                  {"ends_with": "clarification", "clarification": {"target": True}})


async def test_a_record_said_alone_in_the_next_turn_still_answers_what_was_asked() -> None:
    await reaches(REFUND, ["Refund 20 euros", "order 1001"], refund_card("order-1001", 2000))


# -- lists ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Can you please\n* set the budget to 1500\n* add a note 'aisle seat'",
        "I need two changes:\n(a) the budget should be 1500\n(b) add a note saying 'aisle seat'",
        "To do:\n\u2022 budget 1500\n\u2022 note 'aisle seat'",
        "Could you:\n- add a note 'aisle seat'\n- set the budget to 1500",
    ],
)
async def test_each_item_after_a_bullet_or_a_label_is_a_request_of_its_own(said: str) -> None:
    expect = {"events": [field_set("lisbon", "budget", 150000),
                         field_set("lisbon", "note", "aisle seat")],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


@pytest.mark.parametrize(
    "said",
    [
        "Please add the following:\n- a guide\n- 2 city maps",
        "Could you add these for me:\n1. a guide\n2. 2 city maps",
        "Please add:\n* a guide\n* 2 city maps",
    ],
)
async def test_items_after_an_operation_that_announces_a_list_are_its_objects(said: str) -> None:
    expect = {"events": [{"case": "lisbon", "type": "extra_added", "data": {"item": "guide"}},
                         {"case": "lisbon", "type": "extra_added",
                          "data": {"item": "city maps", "quantity": 2}}],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


async def test_items_that_name_a_field_and_its_value_after_an_intro_set_that_field() -> None:
    said = ("Hello, for order 1001 I need:\n\u2022 a note saying 'VIP guest'\n"
            "\u2022 the contact email changed to vip@ana.pt")
    expect = {"events": [field_set("order-1001", "note", "VIP guest"),
                         field_set("order-1001", "contact_email", "vip@ana.pt")],
              "ends_with": "committed"}
    await reaches(REFUND, [said], expect)


async def test_a_second_record_with_the_same_field_and_its_value_after_and_sets_it_there() -> None:
    said = ("For order 1001 please add a note saying 'call before noon' and for order 1002 a "
            "note saying 'no calls'")
    expect = {"events": [field_set("order-1001", "note", "call before noon"),
                         field_set("order-1002", "note", "no calls")],
              "ends_with": "committed"}
    await reaches(REFUND, [said], expect)


async def test_the_following_with_a_noun_is_never_an_object() -> None:
    said = "Could you add the following things:\n- a guide\n- a city card"
    expect = {"events": [{"case": "lisbon", "type": "extra_added", "data": {"item": "guide"}},
                         {"case": "lisbon", "type": "extra_added", "data": {"item": "city card"}}],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


async def test_a_second_list_after_a_new_intro_is_not_the_first_lists_objects() -> None:
    said = "Please add the following:\n- a guide\nAlso could you:\n- budget 900\n- note 'x'"
    expect = {"events": [{"case": "lisbon", "type": "extra_added", "data": {"item": "guide"}},
                         field_set("lisbon", "budget", 90000), field_set("lisbon", "note", "x")],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


async def test_an_operation_pointing_at_a_list_that_never_comes_asks_for_its_object() -> None:
    graded = await play_turns(TRAVEL, ["please add the following"])
    assert graded.events == ()
    assert "card:provide_argument" in graded.shown or "needs" in graded.shown


@pytest.mark.parametrize(
    "said",
    ["add a guide. love your service", "add a guide\n\nP.S. great job, really",
     "add a guide! you are the best"],
)
async def test_a_sentence_of_its_own_after_a_request_is_never_another_object(said: str) -> None:
    expect = {"events": [{"case": "lisbon", "type": "extra_added", "data": {"item": "guide"}}],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


async def test_inline_numbers_in_brackets_after_an_intro_are_items() -> None:
    said = "I'd like the following changes: (1) budget 700, (2) add a guide"
    expect = {"events": [field_set("lisbon", "budget", 70000),
                         {"case": "lisbon", "type": "extra_added", "data": {"item": "guide"}}],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


async def test_an_intro_that_names_the_record_puts_the_items_after_it_on_that_record() -> None:
    said = "Please do the following for order 1001 - add a note 'VIP' - refund 10 euros"
    expect = {**refund_card("order-1001", 1000),
              "events": [field_set("order-1001", "note", "VIP")]}
    await reaches(REFUND, [said], expect)


# -- typos in question words ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("desk", "said", "question"),
    [
        (TRAVEL, "wats the extras totl", "extras_total"),
        (TRAVEL, "whens the flihgt", "travel_date"),
        (TRAVEL, "wen do we leave", "travel_date"),
        (REFUND, "hw much did i pay for 1001", "amount_paid"),
        (REFUND, "is order 1001 refundabel?", "refundable"),
        (REFUND, "wats the staus of 1002", "status"),
    ],
)
async def test_a_question_with_typos_in_its_words_is_answered(
    desk: str, said: str, question: str
) -> None:
    await reaches(desk, [said], {"ends_with": "answer", "answers": [question]})


@pytest.mark.parametrize(
    ("desk", "said", "questions"),
    [
        (TRAVEL, "Morning. Is the discount still valid? I'd also like to know how much the "
                 "extras add up to.", ["discount_valid", "extras_total"]),
        (REFUND, "Two orders here, 1001 and 1002. Before I ask for anything I want to know how "
                 "much was actually paid on 1002", ["amount_paid"]),
    ],
)
async def test_a_question_framed_inside_a_long_message_is_answered(
    desk: str, said: str, questions: list[str]
) -> None:
    await reaches(desk, [said], {"ends_with": "answer", "answers": questions})


# -- requests implied by a value --------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "amount"),
    [
        ("50 euros would be fair for order 1001", 5000),
        ("I'd be happy with 30 back on 1001", 3000),
        ("honestly 60 euros back would be fair, order 1001", 6000),
        ("On order 1001, 30 euros would do", 3000),
        ("I'm not asking for everything back on 1001 but I think 40 euros would be fair", 4000),
        ("The manager of the hotel on order 1001 mentioned 30 euros. Can we do that?", 3000),
    ],
)
async def test_a_value_with_a_verdict_and_no_request_waits_for_a_card_that_shows_it(
    said: str, amount: int
) -> None:
    await reaches(REFUND, [said], refund_card("order-1001", amount))


async def test_a_field_and_value_said_as_what_would_do_wait_for_a_card() -> None:
    graded = await play_turns(TRAVEL, ["I'd be happy with a budget of 1500"],
                              {"ends_with": "card"})
    assert graded.right and graded.events == (), graded.why


async def test_a_value_with_a_verdict_and_no_record_named_asks_which_record() -> None:
    await reaches(REFUND, ["I'd be happy with 30 back"],
                  {"ends_with": "clarification", "clarification": {"target": True}})


async def test_a_field_named_in_a_verdict_waits_for_a_card_never_commits() -> None:
    card = {"case": "lisbon", "arguments": {"value": 90000}}
    graded = await play_turns(TRAVEL, ["900 would be a good budget"], {"ends_with": "card"})
    assert graded.events == ()
    assert "card:confirm_command" in graded.shown, card


@pytest.mark.parametrize(
    ("reply", "amount"),
    [("50 euros would be fair", 5000), ("I'd be happy with 30 back", 3000),
     ("can we do 40 euros", 4000)],
)
async def test_a_value_with_a_verdict_in_reply_to_a_card_shows_a_card_with_that_value(
    reply: str, amount: int
) -> None:
    await reaches(REFUND, ["Refund order 1001", reply], refund_card("order-1001", amount))


async def test_the_full_amount_said_in_the_next_turn_replaces_the_amount_on_the_card() -> None:
    graded = await play_turns(
        REFUND, ["Refund 60 euros on 1001", "wait, make it the full amount instead",
                 "/click confirm"],
        {"events": [{"case": "order-1001", "type": "refund_requested",
                     "data": {"amount": 12000}}], "ends_with": "committed"},
    )
    assert graded.right and graded.wrong_commits == (), graded.why


async def test_a_date_with_a_verdict_answers_the_date_the_desk_asked_for() -> None:
    card = {"case": "lisbon", "operation": "rebook",
            "arguments": {"leg": "return", "date": "2026-03-20"}}
    await reaches(TRAVEL, ["Rebook the return flight", "the 20th of March would be great"],
                  {"ends_with": "card", "card": card})


@pytest.mark.parametrize("reply", ["that works for me", "go ahead", "can we do that"])
async def test_agreeing_in_words_shows_the_card_again_and_only_a_click_confirms(
    reply: str,
) -> None:
    await reaches(REFUND, ["Refund order 1001", reply], refund_card("order-1001", 12000))


async def test_agreeing_with_nothing_proposed_does_nothing() -> None:
    await reaches(REFUND, ["that works for me"], {"ends_with": "nothing"})


# -- greetings, closings and signatures -------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Dear support,\nI would like to add 2 city cards to the trip.\nYours sincerely,\nMaria",
        "Hi team,\n\nplease add 2 city cards\n\nWarm wishes\nJo\u00e3o Silva\n+351 912 345 678",
        "hello!\nadd 2 city cards pls\nthx\nmaria\n\nSent from my iPhone",
        "Could you please add 2 city cards?\n\nThanks,\nJoana\nOffice manager",
    ],
)
async def test_a_closing_and_a_signature_never_become_objects_or_values(said: str) -> None:
    expect = {"events": [{"case": "lisbon", "type": "extra_added",
                          "data": {"item": "city cards", "quantity": 2}}],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


async def test_a_closing_after_a_smiley_is_small_talk() -> None:
    expect = {"events": [{"case": "lisbon", "type": "extra_added",
                          "data": {"item": "kayak tour"}}], "ends_with": "committed"}
    await reaches(TRAVEL, ["hey guys! add a kayak tour pls :) cheers, Mike"], expect)


async def test_a_signature_with_another_customers_name_never_moves_a_named_request() -> None:
    said = "Hi team,\n\nplease refund 20 euros on order 1001.\n\nBest regards,\nRui Costa"
    await reaches(REFUND, [said], refund_card("order-1001", 2000))


async def test_a_customer_signing_with_their_name_identifies_their_order() -> None:
    said = "Hello,\n\nCould you change my email to ana@new.pt?\n\nKind regards,\nAna Reis"
    await reaches(REFUND, [said], {"events": [field_set("order-1001", "contact_email",
                                                        "ana@new.pt")],
                                   "ends_with": "committed"})


async def test_a_signature_with_no_customer_name_leaves_the_record_to_be_asked() -> None:
    said = "Hello,\n\nCould you change my email to x@y.pt?\n\nKind regards,\nMaria Silva"
    await reaches(REFUND, [said], {"ends_with": "clarification",
                                   "clarification": {"target": True}})


async def test_a_name_in_the_greeting_addresses_someone_and_never_names_the_record() -> None:
    graded = await play_turns(REFUND, ["Dear Ana,\nplease add a note 'call me' to my order"],
                              {"ends_with": "clarification", "clarification": {"target": True}})
    assert graded.right and graded.events == (), graded.why


async def test_a_heading_naming_a_record_that_is_not_the_users_asks_which_record() -> None:
    graded = await play_turns(TRAVEL, ["Re: the Porto trip - set the budget to 900"],
                              {"ends_with": "clarification", "clarification": {"target": True}})
    assert graded.right and graded.events == (), graded.why


@pytest.mark.parametrize(
    "said",
    ["is ana@new.pt the email on 1001?", "send it to ana@new.pt, order 1001",
     "don't use ana@new.pt for order 1001", "I used to use ana@old.pt for order 1001"],
)
async def test_a_shaped_value_asked_about_sent_to_or_refused_never_sets_the_field(
    said: str,
) -> None:
    graded = await play_turns(REFUND, [said])
    assert graded.events == ()


@pytest.mark.parametrize(
    "said",
    [
        "set the budget to 900\n\nBest,\nJohn\n\n-- \nJohn Smith\nBudget Manager\nACME",
        "set the budget to 900. Also thanks for the help",
        "set the budget to 900\n\nthat's all, thank you!\nJoana",
    ],
)
async def test_everything_after_a_signature_delimiter_or_a_closing_is_left_unread(
    said: str,
) -> None:
    graded = await reaches(TRAVEL, [said], {"events": [field_set("lisbon", "budget", 90000)],
                                            "ends_with": "committed"})
    assert "notice:not_understood" not in graded.shown


async def test_a_postscript_reads_the_request_after_its_mark() -> None:
    said = "add a guide\nThanks\nMaria\nPS the museum pass too"
    expect = {"events": [{"case": "lisbon", "type": "extra_added", "data": {"item": "guide"}},
                         {"case": "lisbon", "type": "extra_added",
                          "data": {"item": "museum pass"}}],
              "ends_with": "committed"}
    await reaches(TRAVEL, [said], expect)


# -- the pure parts ---------------------------------------------------------------------------

_VOCAB = vocabulary_of(sample(TRAVEL).workflow)


def test_names_alone_at_the_end_with_no_closing_are_not_a_signature() -> None:
    text = "add a guide\nPedro Santos"
    assert signature(text, _VOCAB.words)[0] == len(text)


def test_a_mail_programs_line_is_a_signature_even_without_a_closing() -> None:
    text = "add a guide\nSent from my Galaxy"
    assert signature(text, _VOCAB.words)[0] == text.index("Sent")


def test_a_polite_condition_is_taken_off_but_a_real_condition_is_kept() -> None:
    polite = "if you don't mind, add a guide"
    assert polite[slice(*polite_condition(polite, 0, len(polite)))] == "add a guide"
    real = "if the discount is still valid, submit it"
    assert polite_condition(real, 0, len(real)) == (0, len(real))


_LINE = st.text(alphabet=st.sampled_from("abcXYZ 12,.-:'\u2022*"), max_size=30)


@given(st.lists(_LINE, max_size=8))
def test_a_signature_starts_at_a_line_and_no_clause_is_read_inside_it(lines: list[str]) -> None:
    text = "\n".join(lines)
    start, _ = signature(text, _VOCAB.words)
    assert start == len(text) or start == 0 or text[start - 1] in "\n \t\r"
    for clause in split_clauses(text, _VOCAB):
        assert 0 <= clause.start < clause.end <= len(text)
        assert clause.start < start or start == len(text)
