"""Classes found on the eighth blind corpus's development set (and the spent seventh held-out
set), through the real runtime with the rules interpreter. The phrasings are written for these
tests (never taken from a corpus); each test names the class it proves."""

from __future__ import annotations

import pytest
from interpreter_kit import events, play, shown

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "said",
    [
        "client on 1001 wants 25 euros back",
        "cx on #1001 asking for 25 EUR back",
        "the customer on order 1001 is asking for 25 euros back",
    ],
)
async def test_an_agents_request_for_a_customer_shows_the_same_card_as_the_customers_own(
    said: str,
) -> None:
    graded = await play("refund-desk", said, "/click confirm")
    assert [e[1]["amount"] for e in events(graded)] == [2500]


@pytest.mark.parametrize(
    "said",
    [
        "guest asks us to set the budget to 1800 euros",
        "the client would like the budget set to 1800",
    ],
)
async def test_a_request_relayed_for_someone_is_made_as_asked(said: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [("field_set", {"field": "budget", "value": 180000})]


@pytest.mark.parametrize(
    "said", ["I'd like 3 sun loungers added", "passenger wants 3 sun loungers added"]
)
async def test_a_wish_with_its_verb_after_the_object_is_that_request(said: str) -> None:
    graded = await play("travel-desk", said)
    [(kind, data)] = events(graded)
    assert kind == "extra_added" and data["item"] == "sun loungers" and data["quantity"] == 3


async def test_a_weekday_that_is_not_the_dates_weekday_is_asked_about_never_set() -> None:
    graded = await play("travel-desk", "set the travel date to Tuesday 19 March")
    assert events(graded) == []


async def test_a_weekday_that_is_the_dates_weekday_sets_that_date() -> None:
    graded = await play("travel-desk", "set the travel date to Thursday 19 March")
    assert events(graded) == [("field_set", {"field": "travel_date", "value": "2026-03-19"})]


@pytest.mark.parametrize(
    "said",
    ["add a harbour cruise in the amount of 24 euros 50", "add a harbour cruise costing EUR 24.50"],
)
async def test_price_words_before_an_amount_are_never_part_of_the_things_name(said: str) -> None:
    graded = await play("travel-desk", said)
    [(_, data)] = events(graded)
    assert data["item"] == "harbour cruise" and data["unit_price"] == 2450


async def test_a_misspelt_placeholder_is_asked_about_never_added() -> None:
    graded = await play("travel-desk", "pls add somthing nice")
    assert events(graded) == []


async def test_the_object_said_again_after_a_corrected_count_is_added_once() -> None:
    graded = await play("travel-desk", "add 4 sun hats, sorry, 3 sun hats")
    assert [(e[1]["item"], e[1]["quantity"]) for e in events(graded)] == [("sun hats", 3)]


@pytest.mark.parametrize(
    "said", ["\U0001f3d6\ufe0f add 3 sun hats thx", "add 3 sun hats \U0001f64f\U0001f64f"]
)
async def test_emoji_around_a_request_change_nothing_about_it(said: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [
        (
            "extra_added",
            {"item": "sun hats", "quantity": 3, "unit_price": None, "paid_by": "traveller"},
        )
    ]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("set the travel date to Saturday at 7pm", "2026-01-31"),
        ("set the travel date to 19 March, 06:45", "2026-03-19"),
        ("change the travel date to the day after tomorrow in the morning", "2026-01-30"),
    ],
)
async def test_a_time_of_day_after_a_date_leaves_the_date(said: str, day: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [("field_set", {"field": "travel_date", "value": day})]


@pytest.mark.parametrize(
    "said", ["set the budget to the sum of EUR 1,250.00", "budget: twelve hundred fifty euros flat"]
)
async def test_words_around_an_amount_that_only_stress_it_leave_the_amount(said: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [("field_set", {"field": "budget", "value": 125000})]


async def test_again_but_with_a_new_value_repeats_the_request_with_that_value() -> None:
    graded = await play(
        "travel-desk",
        "move the return to 17 March",
        "/click cancel",
        "do that again but 18 March",
        "/click confirm",
    )
    assert [e[1]["date"] for e in events(graded)] == ["2026-03-18"]


async def test_the_same_again_for_another_record_is_the_request_on_that_record() -> None:
    graded = await play(
        "refund-desk", "refund 10 on 1002", "please do the same again for 1001", "/click confirm"
    )
    assert [e[1]["amount"] for e in events(graded)] == [1000]


async def test_another_amount_like_last_time_is_a_new_request_not_a_duplicate() -> None:
    graded = await play(
        "refund-desk",
        "refund 15 on 1001",
        "/click confirm",
        "another 15 like last time",
        "/click confirm",
    )
    assert [e[1]["amount"] for e in events(graded)] == [1500, 1500]


async def test_like_last_time_is_never_part_of_an_items_name() -> None:
    graded = await play("travel-desk", "add 2 parasols like last time")
    assert [e[1]["item"] for e in events(graded)] == ["parasols"]


async def test_the_same_thing_again_for_a_second_one_keeps_its_price() -> None:
    graded = await play(
        "travel-desk",
        "add 1 paddle board at 20 euros",
        "do the same again for a second paddle board",
    )
    assert [(e[1]["item"], e[1]["unit_price"]) for e in events(graded)] == [
        ("paddle board", 2000),
        ("paddle board", 2000),
    ]


async def test_a_request_said_twice_around_i_repeat_is_made_once() -> None:
    graded = await play("travel-desk", "submit the trip, I repeat, submit the trip")
    assert events(graded) == [("submitted", {})]


async def test_check_the_status_is_a_question_about_the_record() -> None:
    graded = await play("refund-desk", "please check the status of order 1002 for me")
    assert "answer:case_question" in shown(graded)


async def test_a_request_made_on_behalf_of_a_named_customer_goes_to_their_record() -> None:
    graded = await play(
        "refund-desk",
        "I'm writing on behalf of Rui Costa: change his contact email to rc@example.org",
    )
    assert events(graded) == [("field_set", {"field": "contact_email", "value": "rc@example.org"})]


async def test_the_customers_relayed_correction_moves_the_request_to_the_record_meant() -> None:
    graded = await play(
        "refund-desk",
        "client on 1002 wants 12 back",
        "sorry, he meant order 1001",
        "/click confirm",
    )
    assert events(graded) == [("refund_requested", {"amount": 1200, "reason": ""})]


async def test_a_wish_for_a_leg_some_days_earlier_shows_the_moved_date_on_a_card() -> None:
    graded = await play(
        "travel-desk", "the passenger wants the return flight two days earlier", "/click confirm"
    )
    assert [e[1]["date"] for e in events(graded)] == ["2026-03-14"]


async def test_when_do_we_go_asks_the_travel_date() -> None:
    graded = await play("travel-desk", "when do we go?")
    assert "answer:case_question" in shown(graded)


async def test_a_short_plain_text_answering_the_question_for_a_note_sets_the_note() -> None:
    graded = await play("travel-desk", "could you add a note please?", "Gluten free meals only")
    assert events(graded) == [("field_set", {"field": "note", "value": "Gluten free meals only"})]


async def test_lower_case_words_with_digits_answering_a_fields_question_wait_for_a_card() -> None:
    graded = await play("travel-desk", "please add a note", "ring reception at 9")
    assert events(graded) == [] and "card:confirm_command" in shown(graded)


async def test_a_bare_new_value_then_after_a_card_closes_it_instead_of_leaving_it_to_confirm() -> (
    None
):
    graded = await play("refund-desk", "refund 40 on 1001", "35 then", "/click confirm")
    assert events(graded) == [] and "notice:card_stale" in shown(graded)


async def test_even_after_an_amount_only_says_it_is_exact() -> None:
    graded = await play(
        "refund-desk", "thirty euros even back on order 1001 please", "/click confirm"
    )
    assert [e[1]["amount"] for e in events(graded)] == [3000]


# -- found by an adversarial review of the readings above: each committed a wrong effect ---------


@pytest.mark.parametrize("how", ["do it again but cheaper", "do it again but 1 less"])
async def test_again_but_how_it_should_be_done_never_becomes_a_new_object(how: str) -> None:
    graded = await play("travel-desk", "add 3 sun hats at 9 euros each", how)
    assert [e[1]["item"] for e in events(graded)] == ["sun hats"]


@pytest.mark.parametrize(
    "answer", ["2 kayaks at 30 euros 2 paddles", "2 kayaks at 30 euros on Rui's card"]
)
async def test_an_answer_whose_words_do_not_say_one_object_waits_for_a_card(answer: str) -> None:
    graded = await play("travel-desk", "I want to add an extra", answer)
    assert events(graded) == [] and "card:confirm_command" in shown(graded)


@pytest.mark.parametrize("said", ["she meant the other one", "he meant it as a joke"])
async def test_a_relayed_meant_without_a_record_number_sets_no_value(said: str) -> None:
    graded = await play("refund-desk", "set the note on 1001 to VIP", said)
    assert events(graded) == [("field_set", {"field": "note", "value": "VIP"})]


async def test_a_starred_word_after_a_text_never_replaces_the_whole_text() -> None:
    graded = await play("travel-desk", "set the note to pick up at the hotel", "*airport")
    assert events(graded) == [("field_set", {"field": "note", "value": "pick up at the hotel"})]


@pytest.mark.parametrize("answer", ["For the lounge pass", "Let me check with Ana first"])
async def test_an_answer_naming_a_record_or_a_second_thought_is_not_the_note(answer: str) -> None:
    graded = await play("refund-desk", "set the note on 1001", answer)
    assert events(graded) == []


@pytest.mark.parametrize("answer", ["ana@new.pt\U0001f642", "ana@new.pt,rui@x.pt"])
async def test_an_address_with_more_than_address_characters_waits_for_a_card(answer: str) -> None:
    graded = await play("refund-desk", "change the email on 1001", answer)
    assert events(graded) == []
