"""Values read in general, fourth set, written for these tests (never taken from a corpus):
relative moves said with a verb and a direction word ("push … back by two days", "bring …
forward a day"), a day of the month alone that has already passed (the month is asked), a name
of a choice said where another argument stands ("rebook flight TP1350 …") or stated before
the request ("my flight number is …, please move it …"), an angry question before a terse
command, lists of several different requests, typos on operation words, and an amount referred
to ("the same amount")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from interpreter_kit import field_event, read, talk

from turnframe.providers.rules.args import _MOVE_BY, _move_words
from turnframe.providers.rules.refer import amount_pointed_at
from turnframe.providers.rules.spelling import correct
from turnframe.reading.dates import past_day_alone

LATE_IN_JANUARY = datetime(2026, 1, 28, 9, 30, tzinfo=UTC)


def _card(operation: str, **arguments: Any) -> dict[str, Any]:
    return {
        "events": [],
        "ends_with": "card",
        "card": {"operation": operation, "arguments": arguments},
    }


def _submitted() -> dict[str, Any]:
    event = {"case": "lisbon", "type": "submitted", "data": {}}
    return {"events": [event], "ends_with": "committed"}


# 1. Relative moves of a dated thing, counted from its current date (return 2026-03-16,
#    outbound 2026-03-12 on the sample trip).


@pytest.mark.parametrize(
    ("said", "leg", "when"),
    [
        ("please push the way back back by four days", "return", "2026-03-20"),
        ("could you bring the outbound forward by a day?", "outbound", "2026-03-11"),
        ("pull our flight out forward two days", "outbound", "2026-03-10"),
        ("postpone the return flight by one week", "return", "2026-03-23"),
        ("push the return flight 2 days back please", "return", "2026-03-18"),
    ],
)
def test_a_leg_pushed_back_or_brought_forward_is_rebooked_from_its_date_on_a_card(
    said: str, leg: str, when: str
) -> None:
    reading = read(said)
    assert reading.statuses == ["awaiting_confirmation"]
    assert reading.args(0) == {"leg": leg, "date": when}


@pytest.mark.parametrize(
    "said",
    [
        "move the return flight back two days",  # later or earlier? English says both
        "move the outbound forward by 3 days",
        "push the outbound forward a day",
        "postpone the trip by a week",  # both legs? the rebooking takes one
    ],
)
def test_a_move_whose_direction_or_leg_is_open_is_asked_never_guessed(said: str) -> None:
    reading = read(said)
    assert reading.statuses == ["needs_clarification"]


@pytest.mark.parametrize(
    ("words", "around", "shift"),
    [
        ("back by three days", "push the return", "3 days later"),
        ("forward a day", "bring the outbound", "1 day earlier"),
        ("by a week", "postpone the return", "1 week later"),
        ("back two days", "move the return", "back two days"),
    ],
)
def test_a_move_said_with_a_verb_is_written_as_days_later_or_earlier_or_left_as_said(
    words: str, around: str, shift: str
) -> None:
    m = _MOVE_BY.search(words)
    assert m is not None
    assert _move_words(m, around) == shift


@pytest.mark.anyio
async def test_a_return_pushed_back_and_confirmed_commits_the_date_the_card_showed() -> None:
    expect = {
        "events": [
            {"case": "lisbon", "type": "rebooked", "data": {"leg": "return", "date": "2026-03-18"}}
        ],
        "ends_with": "committed",
    }
    graded = await talk(
        "travel-desk", ("can you push back our way home by 2 days", "/click confirm"), expect
    )
    assert graded.right and not graded.wrong_commits, graded.why


# 2. A day of the month alone that has passed asks the month; a name of a leg said as another
#    argument or stated before the request names the leg.


@pytest.mark.parametrize(
    ("words", "passed"),
    [("the 15th", True), ("on the fifteenth", True), ("the 30th", False), ("15 March", False)],
)
def test_a_day_alone_before_today_in_this_month_is_a_past_day_alone(
    words: str, passed: bool
) -> None:
    assert past_day_alone(words, LATE_IN_JANUARY) is passed


@pytest.mark.parametrize(
    "said",
    ["set the return date to the 15th", "please change my departure date to the 2nd"],
)
def test_a_field_date_said_as_a_day_already_past_this_month_asks_the_month(said: str) -> None:
    reading = read(said, clock=LATE_IN_JANUARY)
    assert reading.statuses == ["needs_clarification"]


def test_a_rebooking_to_a_day_already_past_this_month_asks_the_month() -> None:
    reading = read("rebook the outbound to the 4th", clock=LATE_IN_JANUARY)
    assert reading.statuses == ["needs_clarification"]


def test_a_day_alone_still_ahead_this_month_is_that_day() -> None:
    reading = read("set the return date to the 30th", clock=LATE_IN_JANUARY)
    assert reading.statuses == ["ready_to_execute"]
    assert reading.args(0) == {"field": "return_date", "value": "2026-01-30"}


@pytest.mark.parametrize(
    ("said", "leg"),
    [
        ("could you rebook flight TP1351 to 14 March", "outbound"),
        ("please move flight TP1350 to March 19", "return"),
    ],
)
def test_a_flight_number_of_the_trip_names_the_leg_it_flies_on_a_card(said: str, leg: str) -> None:
    reading = read(said)
    assert reading.statuses == ["awaiting_confirmation"]
    assert reading.args(0)["leg"] == leg


@pytest.mark.parametrize(
    ("said", "leg"),
    [
        ("Our flight number is TP1350, can you move it to 19 March?", "return"),
        ("my flight is TP1351 and I need to rebook it to 13 March", "outbound"),
    ],
)
def test_a_flight_number_stated_before_a_request_that_says_it_names_the_leg(
    said: str, leg: str
) -> None:
    reading = read(said)
    assert reading.statuses == ["awaiting_confirmation"]
    assert reading.args(0)["leg"] == leg
    assert reading.unread == []


def test_a_stated_flight_number_the_trip_does_not_have_asks_which_leg() -> None:
    reading = read("my flight number is XY4242, please move it to 19 March")
    assert reading.statuses == ["needs_clarification"]


# 3. An angry question, then a terse command: the command is read.


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("desk", "said", "expect"),
    [
        (
            "travel-desk",
            "Why has nobody done this yet?? Submit the trip right now.",
            _submitted(),
        ),
        (
            "travel-desk",
            "How long does this take?! Submit it immediately!",
            _submitted(),
        ),
        (
            "refund-desk",
            "Why is my money still not back?? Refund 25 euros on 1001 at once.",
            _card("refund", amount=2500),
        ),
    ],
)
async def test_an_angry_question_then_a_terse_command_reads_the_command(
    desk: str, said: str, expect: dict[str, Any]
) -> None:
    graded = await talk(desk, (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


# 4. Several different requests listed in one sentence: each is read, in order.


@pytest.mark.anyio
async def test_a_frame_before_a_colon_then_three_different_requests_reads_each() -> None:
    said = (
        "Kindly do the following for order 1001: set the note to 'prefers phone', set the "
        "contact email to ana.new@example.org, and refund 4 euros."
    )
    expect = {
        "events": [
            field_event("order-1001", "note", "prefers phone"),
            field_event("order-1001", "contact_email", "ana.new@example.org"),
        ],
        "ends_with": "card",
        "card": {"operation": "refund", "arguments": {"amount": 400}},
    }
    graded = await talk("refund-desk", (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


@pytest.mark.anyio
async def test_an_extra_a_quoted_note_and_a_submission_in_one_sentence_are_all_done() -> None:
    said = "Add a fado night, set a note 'window seats', then submit"
    expect = {
        "events": [
            {"case": "lisbon", "type": "extra_added", "data": {"item": "fado night"}},
            field_event("lisbon", "note", "window seats"),
            {"case": "lisbon", "type": "submitted", "data": {}},
        ],
        "ends_with": "committed",
    }
    graded = await talk("travel-desk", (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


# 5. A typo of an operation's verb where a clause opens is that verb.


@pytest.mark.parametrize(
    ("said", "operation"),
    [
        ("withdrawl the trip", "withdraw"),
        ("please withdraww it", "withdraw"),
        ("sumbit the trip", "submit"),
        ("rebok the return to 19 March", "rebook"),
    ],
)
def test_a_typo_of_an_operation_verb_opening_a_clause_is_that_operation(
    said: str, operation: str
) -> None:
    reading = read(said)
    assert [getattr(a, "operation", None) for a in reading.acts] == [operation]


def test_a_typo_is_never_corrected_inside_a_number_or_a_name() -> None:
    reading = read("rebook TP1305 to 19 March")
    assert reading.statuses == ["needs_clarification"]


# 6. An amount referred to ("that payment", "the same amount"): one reader (refer.py).


@pytest.mark.anyio
async def test_a_refund_of_the_same_amount_as_the_one_said_before_shows_it_on_a_card() -> None:
    said = "Your agent promised me 35 euros on 1001. Please refund the same amount."
    graded = await talk("refund-desk", (said,), _card("refund", amount=3500))
    assert graded.right and not graded.wrong_commits, graded.why


@pytest.mark.parametrize(
    ("said", "amount"),
    [
        ("he offered 30 euros for 1001. can we do that", "30 euros"),
        ("he offered 30 euros, then 40 euros. can we do that", None),
        ("he offered 30 euros. can we do it", None),
    ],
)
def test_an_amount_pointed_at_is_the_one_amount_said_elsewhere(
    said: str, amount: str | None
) -> None:
    start = said.index("can we")
    found = amount_pointed_at(said, start, len(said))
    assert (None if found is None else found.group("money")) == amount


# 7. More real phrasings: a payer said with the verb of ``paid_by``, "rename it 'X'", a
#    purpose after a request, a list of three objects ending "and the X", a date said as
#    context before a request that takes none.


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("said", "data"),
    [
        ("add a kayak tour, Joana pays for it", {"item": "kayak tour", "paid_by": "Joana"}),
        (
            "add a wine tasting for Marta, she'll pay it herself, 45 euros",
            {"item": "wine tasting", "paid_by": "Marta", "unit_price": 4500},
        ),
    ],
)
async def test_a_named_payer_said_with_the_verb_of_paid_by_is_who_pays(
    said: str, data: dict[str, Any]
) -> None:
    expect = {
        "events": [{"case": "lisbon", "type": "extra_added", "data": data}],
        "ends_with": "committed",
    }
    graded = await talk("travel-desk", (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


def test_rename_it_then_a_quoted_name_sets_the_name() -> None:
    reading = read("please rename it \u201cPorto long weekend\u201d")
    assert reading.args(0) == {"field": "name", "value": "Porto long weekend"}


def test_rename_from_one_quoted_name_to_another_takes_the_second() -> None:
    reading = read("rename the trip from 'Lisbon city break' to 'Lisbon with kids'")
    assert reading.args(0) == {"field": "name", "value": "Lisbon with kids"}


def test_a_purpose_after_a_request_holds_nothing_back() -> None:
    reading = read("please submit the trip now so we don't miss the deadline")
    assert reading.statuses == ["ready_to_execute"]


@pytest.mark.anyio
async def test_three_objects_ending_with_and_the_x_are_three_extras() -> None:
    said = (
        "we arrive on the 12th, so can you add a river cruise and also a food tour and the zoo pass"
    )
    items = ("river cruise", "food tour", "zoo pass")
    expect = {
        "events": [
            {"case": "lisbon", "type": "extra_added", "data": {"item": item}} for item in items
        ],
        "ends_with": "committed",
    }
    graded = await talk("travel-desk", (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


def test_a_second_object_said_with_the_alone_waits_for_a_card() -> None:
    reading = read("add a tour of the old town and the castle")
    assert reading.statuses == ["awaiting_confirmation"]


def test_set_it_after_words_nothing_read_that_name_one_field_sets_that_field() -> None:
    reading = read("I never wanted a budget of 300!! set it to 3000 euros")
    assert reading.args(0) == {"field": "budget", "value": 300000}


def test_set_it_after_words_that_name_two_fields_sets_nothing() -> None:
    reading = read("not the budget, not the note. set it to 300")
    assert reading.statuses == []


def test_a_question_about_what_a_thing_is_then_add_one_adds_that_thing() -> None:
    reading = read("what's a harbour cruise? can you add one")
    assert reading.args(len(reading.acts) - 1)["item"] == "harbour cruise"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "said",
    [
        "refund the difference on order 1001",
        "please refund 1001 the sum you promised me",
        "refund order 1001 the agreed amount",
    ],
)
async def test_an_amount_pointed_at_but_never_said_is_asked_never_proposed(said: str) -> None:
    expect = {"events": [], "ends_with": "clarification", "clarification": {"argument": "amount"}}
    graded = await talk("refund-desk", (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


@pytest.mark.anyio
async def test_half_said_to_an_amount_asked_for_is_half_of_what_is_proposed() -> None:
    expect = {
        "events": [{"case": "order-1001", "type": "refund_requested", "data": {"amount": 6000}}],
        "ends_with": "committed",
    }
    turns = ("refund part of order 1001", "half", "/click confirm")
    graded = await talk("refund-desk", turns, expect)
    assert graded.right and not graded.wrong_commits, graded.why


@pytest.mark.anyio
async def test_move_it_after_a_move_of_one_leg_moves_that_leg_on_a_card() -> None:
    expect = _card("rebook", leg="return", date="2026-03-19")
    turns = ("move the way back to 18 March", "no, move it to 19 March")
    graded = await talk("travel-desk", turns, expect)
    assert graded.right and not graded.wrong_commits, graded.why


@pytest.mark.anyio
async def test_a_story_saying_what_a_date_must_become_then_rebook_the_leg_shows_that_date() -> None:
    said = (
        "I'm writing for my boss. Her way back has to be on Wednesday 18 March because of a "
        "meeting on the 17th. Please rebook the return."
    )
    graded = await talk("travel-desk", (said,), _card("rebook", leg="return", date="2026-03-18"))
    assert graded.right and not graded.wrong_commits, graded.why


def test_a_story_date_of_when_something_happens_never_becomes_the_new_date() -> None:
    reading = read("we land on 12 March. Please rebook the return leg.")
    assert reading.statuses == ["needs_clarification"]


@pytest.mark.anyio
async def test_told_you_the_leg_must_be_on_a_date_then_change_it_shows_a_card() -> None:
    said = "unbelievable, I said twice that the outbound flight must be on 11 March. Change it!"
    graded = await talk("travel-desk", (said,), _card("rebook", leg="outbound", date="2026-03-11"))
    assert graded.right and not graded.wrong_commits, graded.why


@pytest.mark.parametrize(
    ("said", "leg", "when"),
    [
        ("we want to take the way back two days later", "return", "2026-03-18"),
        ("I'd like to have the outbound on 10 March", "outbound", "2026-03-10"),
        (
            "my boss gave me Friday off, so we want to take the outbound flight a day earlier",
            "outbound",
            "2026-03-11",
        ),
    ],
)
def test_a_wish_whose_words_are_one_operations_choice_and_value_is_that_on_a_card(
    said: str, leg: str, when: str
) -> None:
    reading = read(said)
    assert reading.statuses == ["awaiting_confirmation"]
    assert reading.args(0) == {"leg": leg, "date": when}


def test_a_request_then_and_stop_wasting_my_time_is_one_request() -> None:
    reading = read("Rebook the return to March 19 and stop wasting my time.")
    assert reading.statuses == ["awaiting_confirmation"]


@pytest.mark.parametrize(
    "said",
    [
        "We want to leave in two weeks, please set the travel date to that",
        "I'd like to go in two weeks, please change the travel date.",
    ],
)
def test_a_field_set_to_that_after_a_wished_value_is_set_to_that_value(said: str) -> None:
    reading = read(said)
    assert reading.statuses == ["ready_to_execute"]
    assert reading.args(0) == {"field": "travel_date", "value": "2026-01-21"}


def test_a_field_set_to_that_with_no_wish_before_it_is_asked_for() -> None:
    reading = read("we land in two weeks, please change the travel date")
    assert reading.statuses == ["needs_clarification"]


@pytest.mark.anyio
async def test_the_number_of_people_said_again_as_the_count_holds_nothing_back() -> None:
    said = "We are 3 people, please add for us 3 city cards, 20 euros each one. Thanks"
    data = {"item": "city cards", "quantity": 3, "unit_price": 2000}
    expect = {
        "events": [{"case": "lisbon", "type": "extra_added", "data": data}],
        "ends_with": "committed",
    }
    graded = await talk("travel-desk", (said,), expect)
    assert graded.right and not graded.wrong_commits, graded.why


def test_a_number_of_people_other_than_the_count_waits_for_a_card() -> None:
    reading = read("We are 3 people, please add 2 city cards, 20 euros each one")
    assert reading.statuses == ["awaiting_confirmation"]


@pytest.mark.parametrize(
    ("said", "fixed"),
    [("ho wmuch is left", "how much is left"), ("wha tis the status", "what is the status")],
)
def test_a_space_typed_one_letter_off_between_two_words_is_moved_back(
    said: str, fixed: str
) -> None:
    corrected = correct(said, frozenset(), frozenset())
    assert corrected is not None and corrected.text == fixed


def test_two_english_words_are_never_rejoined() -> None:
    assert correct("I want to go home", frozenset(), frozenset()) is None


def test_a_compound_noun_that_starts_with_a_fields_name_is_an_object() -> None:
    reading = read("add a return transfer at 35 euros")
    assert reading.args(0)["item"] == "return transfer"


def test_a_slipped_space_is_never_moved_to_make_a_short_word() -> None:
    corrected = correct("add a nte: late", frozenset({"an", "add", "note"}), frozenset())
    assert corrected is not None and corrected.text.startswith("add a note")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "said",
    [
        "good day, is possible to make refund of half for order 1001? many thanks",
        "please make a refund of half on order 1001",
    ],
)
async def test_a_request_said_with_a_light_verb_and_no_it_is_read(said: str) -> None:
    graded = await talk("refund-desk", (said,), _card("refund", amount=6000))
    assert graded.right and not graded.wrong_commits, graded.why
