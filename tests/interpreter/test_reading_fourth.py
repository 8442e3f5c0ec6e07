"""Messages as the fourth corpus's voices write them: politeness wrapped around a request,
emphasis inside a value, dictated punctuation and record numbers, and later turns that complete
the first. Played through the real runtime with the rules interpreter; the phrasings are written
for these tests."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interpreter_kit import field_event, talk

from turnframe.providers.rules.rewrites import prepared

pytestmark = pytest.mark.anyio


def _extra(data: dict[str, Any]) -> dict[str, Any]:
    return {"case": "lisbon", "type": "extra_added", "data": data}


def _refund(case: str, amount: int) -> dict[str, Any]:
    return {"case": case, "type": "refund_requested", "data": {"amount": amount}}


def _plain(text: str) -> str:
    words = frozenset({"add", "change", "set", "move", "note"})
    said = prepared(text, words, "order|trip", frozenset())
    return text if said is None else said.text


# --- politeness around a request ------------------------------------------------------------


async def test_an_apology_before_a_routine_change_still_commits_it() -> None:
    graded = await talk(
        "travel-desk",
        ("So sorry to bother you again, but could you set the note to 'bring umbrellas'?",),
        {"events": [field_event("lisbon", "note", "bring umbrellas")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_would_you_mind_with_a_gerund_is_the_request_it_wraps() -> None:
    graded = await talk(
        "refund-desk",
        ("Would you mind setting the contact email on order 1001 to ana.r@example.org?",),
        {
            "events": [field_event("order-1001", "contact_email", "ana.r@example.org")],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_grateful_if_you_could_reads_as_the_request() -> None:
    graded = await talk(
        "travel-desk",
        ("We would be most grateful if you could add 2 cooking classes at 45 euros each.",),
        {
            "events": [_extra({"item": "cooking classes", "quantity": 2, "unit_price": 4500})],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_could_i_trouble_you_is_a_request_not_a_question() -> None:
    graded = await talk(
        "travel-desk",
        ("Could I bother you to add a river cruise? Thank you for your patience.",),
        {"events": [_extra({"item": "river cruise"})], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "If you could add a sunset cruise, that would be lovely.",
        "It would be really helpful if you could add a sunset cruise",
        "Any chance you could add a sunset cruise?",
        "I was hoping you could add a sunset cruise",
        "Would it be too much to ask to add a sunset cruise?",
        "Kindly do the needful and add a sunset cruise",
        "Please be so kind as to add a sunset cruise",
        "Can you please help me to add a sunset cruise",
        "Please to add a sunset cruise",
        "I want that you add a sunset cruise",
        "Is possible to add a sunset cruise?",
    ],
)
async def test_a_wrapped_request_adds_what_it_asks(said: str) -> None:
    graded = await talk(
        "travel-desk",
        (said,),
        {"events": [_extra({"item": "sunset cruise", "quantity": 1})], "ends_with": "committed"},
    )
    assert graded.right, graded.why


def test_a_wrapper_before_words_the_reader_does_not_know_is_left_as_said() -> None:
    said = "Any chance you could explain the fees?"
    assert _plain(said) == said


async def test_wondering_whether_it_is_possible_asks_for_the_carded_operation() -> None:
    graded = await talk(
        "refund-desk",
        (
            "I was wondering if it would be possible to get 30 euros back on 1001? "
            "No problem if not.",
        ),
        {
            "events": [],
            "ends_with": "card",
            "card": {"case": "order-1001", "operation": "refund", "arguments": {"amount": 3000}},
        },
    )
    assert graded.right, graded.why


async def test_a_closing_courtesy_does_not_hold_a_change_back() -> None:
    graded = await talk(
        "travel-desk",
        ("Please set the budget to 2000 euros. Thanks ever so much for sorting this out.",),
        {"events": [field_event("lisbon", "budget", 200000)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "closing",
    [
        "Looking forward to hearing from you.",
        "Let me know if you need anything else.",
        "Appreciate it!",
        "Thanks heaps, you're a star",
    ],
)
async def test_an_email_closing_is_never_read_as_a_second_request(closing: str) -> None:
    graded = await talk(
        "travel-desk",
        (f"Hope you had a lovely weekend! Please add a wine tasting. {closing}",),
        {"events": [_extra({"item": "wine tasting", "quantity": 1})], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_thanks_after_a_comma_is_not_part_of_the_value() -> None:
    graded = await talk(
        "travel-desk",
        ("add a wine tasting, thanks so much",),
        {"events": [_extra({"item": "wine tasting", "quantity": 1})], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_a_question_wrapped_in_an_apology_is_still_answered() -> None:
    graded = await talk(
        "travel-desk",
        ("Sorry to be a nuisance, but is the discount code still valid?",),
        {"events": [], "ends_with": "answer"},
    )
    assert graded.right, graded.why


async def test_a_salutation_and_a_softener_do_not_hold_a_request_back() -> None:
    graded = await talk(
        "travel-desk",
        ("Dear support team,\nplease submit it when you get a chance.\nWith many thanks",),
        {"events": [{"case": "lisbon", "type": "submitted", "data": {}}], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_a_value_after_a_note_saying_colon_is_the_value() -> None:
    graded = await talk(
        "travel-desk",
        ("Could you put a note that says: window seats please",),
        {"events": [field_event("lisbon", "note", "window seats")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


def test_a_softener_is_dropped_only_where_it_ends_a_request() -> None:
    assert _plain("set the note to 'vegan' if possible.") == "set the note to 'vegan'."
    assert _plain("Sorry. When you have a moment, add a bike") == "Sorry. add a bike"
    # A condition with an "otherwise" is a condition, not a softener.
    said = "move it to Friday if possible, otherwise Saturday"
    assert _plain(said) == said


def test_a_greeting_on_the_request_line_is_never_taken_for_a_salutation() -> None:
    said = "hi add a bike\nand set the note to 'x'"
    assert _plain(said) == said
    assert _plain("Dear team,\nadd a bike") == "add a bike"


async def test_a_message_of_thanks_alone_does_nothing() -> None:
    graded = await talk("refund-desk", ("Much appreciated!",), {"ends_with": "nothing"})
    assert graded.right, graded.why


def test_politeness_inside_a_quoted_value_is_kept() -> None:
    text = "set the note to 'sorry to be a pain, but call first'"
    assert _plain(text) == text


def test_a_wrapper_says_the_gerund_as_the_plain_request_word() -> None:
    assert _plain("would you mind changing the note?") == "could you change the note?"
    assert _plain("would you mind adding a bike?") == "could you add a bike?"
    # A word the reader would not know is left as it was: never a guess.
    assert _plain("would you mind explaining the fee?") == "would you mind explaining the fee?"


# --- emphasis is never part of a value ------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "Just add the bloody airport lounge.",
        "add the freaking airport lounge please",
        "Ugh. Add the stupid airport lounge",
        "add just the airport lounge",
        "Add please the airport lounge",
        "What the hell, add the airport lounge already!!",
        "add the airport lounge, for crying out loud",
        "add the airport lounge ffs",
        "fine. add the airport lounge I guess",
    ],
)
async def test_emphasis_is_never_part_of_an_added_item(said: str) -> None:
    graded = await talk(
        "travel-desk",
        (said,),
        {"events": [_extra({"item": "airport lounge", "quantity": 1})], "ends_with": "committed"},
    )
    assert graded.right, graded.why


def test_emphasis_inside_a_quoted_or_colon_value_is_kept_as_written() -> None:
    assert _plain("set the note to 'the damn door sticks'") == (
        "set the note to 'the damn door sticks'"
    )
    assert _plain("note: the bloody taxi was late") == "note: the bloody taxi was late"
    assert _plain("damn it, add a bike") == "damn it, add a bike"
    assert _plain("add a bloody mary") == "add a bloody mary"  # a name, not emphasis


async def test_an_outburst_and_insistence_leave_the_request_as_asked() -> None:
    graded = await talk(
        "refund-desk",
        ("Unbelievable. I want 35 euros back on order 1001, and not a penny less!",),
        {
            "events": [],
            "ends_with": "card",
            "card": {"case": "order-1001", "operation": "refund", "arguments": {"amount": 3500}},
        },
    )
    assert graded.right, graded.why


async def test_a_sentence_announcing_the_changes_is_not_itself_a_change() -> None:
    graded = await talk(
        "refund-desk",
        (
            "Order 1002. I just want to update my details: please set the contact email to "
            "rui@costa.example and add this note: mornings only.",
        ),
        {
            "events": [
                field_event("order-1002", "contact_email", "rui@costa.example"),
                field_event("order-1002", "note", "mornings only"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


def test_words_between_could_you_and_the_verb_and_go_ahead_are_dropped() -> None:
    assert _plain("could you at least add a bike?") == "could you add a bike?"
    assert _plain("please go ahead and add a bike") == "please add a bike"
    assert _plain("Are you kidding me? Add a bike.").strip() == "Add a bike."


# --- dictation ------------------------------------------------------------------------------


async def test_spoken_commas_and_full_stops_are_punctuation() -> None:
    graded = await talk(
        "travel-desk",
        ("add two kayak tours at forty euros each comma paid by Pedro full stop",),
        {
            "events": [
                _extra(
                    {"item": "kayak tours", "quantity": 2, "unit_price": 4000, "paid_by": "Pedro"}
                )
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_dictated_colon_introduces_the_value() -> None:
    graded = await talk(
        "travel-desk",
        ("add a note colon vegan meals comma no nuts full stop",),
        {
            "events": [field_event("lisbon", "note", "vegan meals, no nuts")],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_a_value_dictated_between_quote_and_unquote_is_the_quoted_value() -> None:
    graded = await talk(
        "travel-desk",
        ("set the note to quote gate four comma row two unquote full stop",),
        {"events": [field_event("lisbon", "note", "gate four, row two")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_an_address_said_aloud_is_written_as_an_address() -> None:
    graded = await talk(
        "refund-desk",
        ("set the contact email on order 1002 to rui dot costa at mail dot example period",),
        {
            "events": [field_event("order-1002", "contact_email", "rui.costa@mail.example")],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "refund fifteen euros on order one thousand and one",
        "refund fifteen euros on order ten oh one period",
        "refund fifteen euros on one oh oh one",
        "refund fifteen euros on order number one zero zero one",
    ],
)
async def test_a_record_number_said_in_words_is_the_number(said: str) -> None:
    graded = await talk(
        "refund-desk",
        (said,),
        {
            "events": [],
            "ends_with": "card",
            "card": {"case": "order-1001", "operation": "refund", "arguments": {"amount": 1500}},
        },
    )
    assert graded.right, graded.why


def test_number_words_that_are_not_a_whole_record_number_stay_words() -> None:
    numbers = frozenset({"1001", "1002"})

    def plain(text: str) -> str:
        said = prepared(text, frozenset(), "order", numbers)
        return text if said is None else said.text

    assert plain("refund one thousand and one euros") == "refund one thousand and one euros"
    assert plain("add one two three tickets") == "add one two three tickets"
    assert plain("order one") == "order one"
    assert plain("the note is about the trial period") == "the note is about the trial period"
    assert plain("what happens in the period before it") == "what happens in the period before it"
    assert plain("order ten oh one") == "order 1001"


# --- agent shorthand ---------------------------------------------------------------------------


async def test_a_request_word_written_without_vowels_is_read_as_that_word() -> None:
    graded = await talk(
        "refund-desk",
        ("pls chng cntct email on 1002 to rc@costa.example, thx",),
        {
            "events": [field_event("order-1002", "contact_email", "rc@costa.example")],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


def test_shorthand_is_spelled_out_only_when_one_word_spells_it() -> None:
    from turnframe.providers.rules.shorthand import spelled_out

    words = frozenset({"change", "contact", "refund", "refunded", "note", "notes"})
    said = "chng rfnd hmm Rfnd nts pfft"
    assert {said[e.start : e.end]: e.words for e in spelled_out(said, [], words)} == {
        "chng": "change",
        "rfnd": "refund",
        "nts": "notes",
    }


# --- later turns that complete or repeat the first ------------------------------------------


async def test_naming_the_record_in_the_next_turn_completes_a_routine_change() -> None:
    graded = await talk(
        "refund-desk",
        ("set the note to 'call back after lunch'", "it's order 1002"),
        {
            "events": [field_event("order-1002", "note", "call back after lunch")],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_naming_the_record_in_the_next_turn_completes_a_carded_request() -> None:
    graded = await talk(
        "refund-desk",
        ("I'd like 18 euros back", "for number 1001 please", "/click confirm"),
        {"events": [_refund("order-1001", 1800)], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_what_about_another_record_asks_the_same_question_about_it() -> None:
    graded = await talk(
        "refund-desk",
        ("How much was paid for order 1001?", "and what about order 1002"),
        {"events": [], "ends_with": "answer", "answers": ["amount_paid"]},
    )
    assert graded.right, graded.why


async def test_what_about_another_record_after_a_change_does_not_repeat_the_change() -> None:
    graded = await talk(
        "refund-desk",
        ("set the note on order 1001 to 'done'", "what about 1002"),
        {"events": [field_event("order-1001", "note", "done")], "ends_with": "nothing"},
    )
    assert not any(e["case"] == "order-1002" for e in graded.events), graded.events


async def test_one_more_for_someone_repeats_the_previous_addition() -> None:
    graded = await talk(
        "travel-desk",
        ("add a museum pass at 12 euros", "and another one for my son"),
        {
            "events": [
                _extra({"item": "museum pass", "quantity": 1, "unit_price": 1200}),
                _extra({"item": "museum pass", "quantity": 1, "unit_price": 1200}),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


async def test_the_same_field_named_again_for_another_record_sets_it_there_too() -> None:
    graded = await talk(
        "refund-desk",
        ("set the contact email on 1002 to desk@costa.example and the same email for 1001",),
        {
            "events": [
                field_event("order-1002", "contact_email", "desk@costa.example"),
                field_event("order-1001", "contact_email", "desk@costa.example"),
            ],
            "ends_with": "committed",
        },
    )
    assert graded.right, graded.why


def test_the_same_with_a_word_that_is_not_the_workflows_is_left_as_said() -> None:
    assert _plain("and the same note to 1002") == "and the same for 1002"
    assert _plain("at the same hotel for 2 nights") == "at the same hotel for 2 nights"


@pytest.mark.parametrize(
    "said", ["same for order 1002", "can you do the same thing for order 1002?", "I'm Rui Costa"]
)
async def test_a_later_turn_naming_another_record_repeats_or_completes_a_change(said: str) -> None:
    first = "set the note on 1001 to 'called'" if "same" in said else "set the note to 'called'"
    events = [field_event("order-1002", "note", "called")]
    if "same" in said:
        events.insert(0, field_event("order-1001", "note", "called"))
    graded = await talk("refund-desk", (first, said), {"events": events, "ends_with": "committed"})
    assert graded.right, graded.why


async def test_same_for_another_record_after_a_corrected_change_never_repeats_the_first_value() -> (
    None
):
    graded = await talk(
        "refund-desk",
        ("set the note on 1001 to 'called', no wait, 'emailed'", "same for order 1002"),
        {"events": [field_event("order-1001", "note", "emailed")], "ends_with": "nothing"},
    )
    assert not any(e["data"].get("value") == "called" for e in graded.events), graded.events


async def test_more_on_the_same_one_after_a_confirmed_request_shows_a_card_for_the_more() -> None:
    graded = await talk(
        "refund-desk",
        ("refund 30 euros on order 1001", "/click confirm", "and 15 more for the same one"),
        {
            "events": [_refund("order-1001", 3000)],
            "ends_with": "card",
            "card": {"case": "order-1001", "operation": "refund", "arguments": {"amount": 1500}},
        },
    )
    assert graded.right, graded.why


# --- one question, several records ----------------------------------------------------------


async def test_one_question_naming_two_records_is_answered_for_each() -> None:
    graded = await talk(
        "refund-desk",
        ("how much was paid on 1001 and on 1002?",),
        {"events": [], "ends_with": "answer", "answers": ["amount_paid"]},
    )
    assert graded.right, graded.why
    assert graded.shown.count("answer:case_question") == 2, graded.shown


async def test_a_question_said_without_a_verb_or_question_mark_is_answered() -> None:
    graded = await talk(
        "refund-desk",
        ("receipt for order 1001 and order 1002 pls",),
        {"events": [], "ends_with": "answer", "answers": ["receipt"]},
    )
    assert graded.right, graded.why
    assert graded.shown.count("answer:case_question") == 2, graded.shown


async def test_a_statement_about_a_record_is_not_taken_for_a_bare_question() -> None:
    graded = await talk(
        "refund-desk",
        ("the receipt for 1001 is in the post",),
        {"events": [], "ends_with": "nothing"},
    )
    assert "answer:case_question" not in graded.shown, graded.shown


# --- the rewrites themselves (pure) -----------------------------------------------------------

_PIECES = [
    "sorry to be a pain,", "but", "could I trouble you to", "add", "the", "damn", "bloody",
    "note", "'sorry to be a pain'", "comma", "period", "full stop", "one", "zero", "oh", "ten",
    "thousand", "and", "order", "1001", "No worries if not.", "Much appreciated!", ":", "just",
    "please", "would you mind", "changing", "the same note to", "if possible", "\n", "?", ".",
]
_PROPERTY = settings(max_examples=300, deadline=None, derandomize=True)


@_PROPERTY
@given(st.lists(st.sampled_from(_PIECES), max_size=16))
def test_every_position_of_a_rewritten_text_maps_back_into_the_users_text_in_order(
    pieces: list[str],
) -> None:
    text = " ".join(pieces)
    said = prepared(text, frozenset({"add", "change", "note"}), "order", frozenset({"1001"}))
    if said is None:
        return
    starts = [said.position(i, end=False) for i in range(len(said.text) + 1)]
    ends = [said.position(i, end=True) for i in range(len(said.text) + 1)]
    assert all(0 <= p <= len(text) for p in starts + ends)
    assert starts == sorted(starts) and ends == sorted(ends)


@_PROPERTY
@given(st.lists(st.sampled_from(_PIECES), max_size=12), st.sampled_from(_PIECES))
def test_a_quoted_value_comes_through_the_rewrites_as_typed(pieces: list[str], inner: str) -> None:
    value = f'"{inner} damn comma, sorry to be a pain"'
    text = " ".join([*pieces, "set the note to", value])
    said = prepared(text, frozenset({"add", "change", "note"}), "order", frozenset({"1001"}))
    assert value in (text if said is None else said.text)
