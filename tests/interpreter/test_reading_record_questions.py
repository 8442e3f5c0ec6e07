"""Questions the desk answers from the record: question words typed short ("hw", "whn"), a
value of the record named instead of the question (a status, the discount's code), and a
record that is none of the user's, which is asked about, never answered about another one;
and a record named first ("on #1002 add …"), then what to do with it.
The phrasings are written for these tests (never taken from the corpus)."""

from __future__ import annotations

import pytest
from interpreter_kit import REFUND, read, talk
from test_reading_safety import events, play, shown

from turnframe.plan import QuestionAct


def _question(text: str, desk: str = "travel-desk") -> QuestionAct:
    reading = read(text, desk)
    (act,) = reading.acts
    assert isinstance(act, QuestionAct)
    return act


@pytest.mark.parametrize(
    ("said", "question"),
    [
        ("wht is the status of my trip", "status"),
        ("whn do we fly out", "travel_date"),
    ],
)
def test_a_question_word_typed_short_still_asks_the_records_question(
    said: str, question: str
) -> None:
    assert _question(said).question == question


def test_how_typed_as_hw_asks_what_was_paid_on_the_order_named() -> None:
    act = _question("hw much was paid on order 1002", REFUND.name)
    assert act.question == "amount_paid"


@pytest.mark.parametrize(
    ("said", "question"),
    [
        ("has it been withdrawn?", "status"),
        ("is the trip still in draft", "status"),
        ("does the promo code still work?", "discount_valid"),
    ],
)
def test_a_value_of_the_record_named_in_a_question_asks_the_question_about_it(
    said: str, question: str
) -> None:
    assert _question(said).question == question


def test_a_question_about_a_trip_that_is_none_of_the_users_asks_which_trip() -> None:
    reading = read("is the Berlin trip submitted yet?")
    assert reading.statuses == ["needs_clarification"]
    assert reading.reasons == ["turnframe.act.unknown_target"]


@pytest.mark.anyio
async def test_a_question_about_an_unknown_trip_is_never_answered_about_the_users_trip() -> None:
    graded = await play("travel-desk", "when does the Madrid trip leave?")
    assert "answer:case_question" not in shown(graded) and events(graded) == []


@pytest.mark.anyio
async def test_a_case_named_first_after_for_then_a_request_is_that_cases_request() -> None:
    graded = await play("refund-desk", "on #1002 add a note: ring before noon")
    assert events(graded) == [("field_set", {"field": "note", "value": "ring before noon"})]


def test_a_case_named_after_its_record_noun_then_a_request_targets_that_case() -> None:
    reading = read("for order 1002 set the note to keep the receipt?", REFUND.name)
    (act,) = reading.acts
    assert act.target is not None and getattr(act.target, "label", "") == "Order 1002"


@pytest.mark.anyio
async def test_a_case_number_then_a_question_asks_it_about_that_case() -> None:
    graded = await play("refund-desk", "#1001 what was paid")
    assert shown(graded) == ["answer:case_question"] and events(graded) == []


@pytest.mark.anyio
async def test_a_case_number_then_words_that_ask_nothing_are_not_read_as_a_heading() -> None:
    graded = await play("refund-desk", "#1001 the customer called twice")
    assert events(graded) == []


def test_how_much_can_still_be_got_back_asks_what_is_left_to_refund() -> None:
    act = _question("how much can we still get back on order 1002?", REFUND.name)
    assert act.question == "refundable"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "said",
    [
        "Why do you need a receipt for a refund?",
        "What happens if I ask for more than was paid?",
        "why is a receipt needed at all?",
    ],
)
async def test_how_things_work_asked_of_no_record_is_answered_never_which_record(
    said: str,
) -> None:
    graded = await talk("refund-desk", (said,), {"events": [], "ends_with": "answer"})
    assert graded.right, graded.why
