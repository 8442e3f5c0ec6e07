"""Reading confidence (ADR 0019), through the real runtime with the rules interpreter: a change
whose words the reading cannot account for ends in a card that shows its exact arguments or in
a question, never in a commit. The phrasings here are written for these tests, not taken from
the corpus."""

from __future__ import annotations

import pytest
from interpreter_kit import events, play, shown

from turnframe.examples import sample
from turnframe.providers.rules.confidence import free_text_doubt, unexplained_doubt
from turnframe.providers.rules.vocabulary import vocabulary_of

pytestmark = pytest.mark.anyio


async def test_an_item_that_swallowed_a_second_request_waits_for_a_card() -> None:
    graded = await play("travel-desk", "add a kayak and book a dinner for the group")
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)


async def test_an_item_then_one_named_payer_in_the_words_of_paid_by_is_who_pays() -> None:
    graded = await play("travel-desk", "add a yoga class, Marta pays for it")
    assert events(graded) == [
        (
            "extra_added",
            {"item": "yoga class", "quantity": 1, "unit_price": None, "paid_by": "Marta"},
        )
    ]


@pytest.mark.parametrize(
    "said", ["add a yoga class, Marta and Rui pay for it", "add a yoga class, Marta pays half"]
)
async def test_an_item_whose_payer_is_said_in_words_no_argument_takes_waits_for_a_card(
    said: str,
) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)


async def test_an_item_that_only_points_back_waits_for_a_card() -> None:
    graded = await play("travel-desk", "add more of these")
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)


async def test_an_amount_after_a_dash_after_a_condition_is_the_requests_on_its_card() -> None:
    graded = await play("refund-desk", "refund 1001 if a receipt is on file - 35 euros")
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)
    confirmed = await play(
        "refund-desk", "refund 1001 if a receipt is on file - 35 euros", "/click confirm"
    )
    assert events(confirmed) == [("refund_requested", {"amount": 3500, "reason": ""})]


async def test_words_after_a_dash_after_a_condition_that_are_no_argument_are_unread() -> None:
    graded = await play("refund-desk", "refund 1001 if a receipt is on file - many thanks team")
    assert events(graded) == []
    assert "card:confirm_command" not in shown(graded) or "notice:not_understood" in shown(graded)


async def test_a_correction_inside_a_clause_replaces_the_amount_on_the_card() -> None:
    graded = await play("refund-desk", "refund 30 euros on 1001 I mean 33", "/click confirm")
    assert events(graded) == [("refund_requested", {"amount": 3300, "reason": ""})]


async def test_a_vague_date_for_a_routine_field_is_asked_for_instead_of_committing() -> None:
    graded = await play("travel-desk", "change the travel date to next month")
    assert events(graded) == []
    # asked in words or on a card that asks for the value (ADR 0024): never a confirm card
    assert {"notice:needs_clarification", "card:provide_argument"} & set(shown(graded))
    assert "card:confirm_command" not in shown(graded)


async def test_a_quoted_note_is_taken_as_written_and_commits() -> None:
    graded = await play("travel-desk", "set the note to \"not before noon, no calls\"")
    note = {"field": "note", "value": "not before noon, no calls"}
    assert events(graded) == [("field_set", note)]


async def test_a_reason_told_in_another_sentence_holds_nothing_back() -> None:
    graded = await play("travel-desk", "Set the budget to 900 euros. The hotel was closed anyway.")
    assert events(graded) == [("field_set", {"field": "budget", "value": 90000})]


async def test_a_numbered_list_reads_each_item_without_taking_its_number() -> None:
    graded = await play("travel-desk", "1. add a beach towel 2. add a picnic basket")
    items = [data["item"] for kind, data in events(graded) if kind == "extra_added"]
    assert items == ["beach towel", "picnic basket"]
    assert all(data["quantity"] == 1 for _, data in events(graded))


def test_unexplained_words_matter_only_when_they_could_change_the_meaning() -> None:
    vocab = vocabulary_of(sample("refund-desk").workflow)
    assert unexplained_doubt("the hotel was closed", vocab) is None
    assert unexplained_doubt("I don't care about your rules", vocab) is None
    bare = unexplained_doubt("40 euros", vocab)
    corrected = unexplained_doubt("scratch that, thirty", vocab)
    negated = unexplained_doubt("but don't do it yet", vocab)
    assert bare is not None and bare.kind == "value"
    assert corrected is not None and corrected.kind == "value"
    assert negated is not None and negated.kind == "card"


def test_a_free_text_value_is_doubted_for_what_it_may_hide_but_never_when_quoted() -> None:
    vocab = vocabulary_of(sample("travel-desk").workflow)
    assert free_text_doubt("museum pass", vocab) is None
    assert free_text_doubt("'museum pass, two of them'", vocab) is None
    assert free_text_doubt("museum pass, Pedro pays", vocab) == ","
    assert free_text_doubt("more of those", vocab) is not None
    assert free_text_doubt("don't submit until I say so", vocab) is not None


async def test_a_hedge_after_a_routine_request_makes_it_wait_for_a_card() -> None:
    graded = await play("travel-desk", "submit the trip? not sure")
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)


async def test_a_hedged_second_value_for_a_field_is_asked_about_not_set() -> None:
    graded = await play("travel-desk", "set the budget to 900 euros, or maybe 950")
    assert events(graded) == []
    # Asked on a card (ADR 0024), so the next turn's value completes the change.
    assert "notice:needs_argument" in shown(graded) and "card:provide_argument" in shown(graded)


async def test_a_field_named_without_a_value_is_asked_about() -> None:
    graded = await play("refund-desk", "update the contact email on 1002")
    assert events(graded) == []
    # Asked on a card (ADR 0024), so the next turn's value completes the change.
    assert "notice:needs_argument" in shown(graded) and "card:provide_argument" in shown(graded)


async def test_a_qualifier_beside_the_amount_asks_for_the_amount_again() -> None:
    graded = await play("refund-desk", "refund everything except 15 euros on 1001")
    assert events(graded) == []
    assert "card:provide_argument" in shown(graded)
    assert "card:confirm_command" not in shown(graded)


async def test_a_value_for_another_record_leaves_this_records_change_as_read() -> None:
    graded = await play("refund-desk", "set the note on 1001 to 'checked', and 1002 to be seen")
    assert events(graded) == [("field_set", {"field": "note", "value": "checked"})]


async def test_a_clause_read_as_a_routine_field_or_a_carded_operation_shows_a_card() -> None:
    graded = await play("travel-desk", "move the return to 19 March")
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)


async def test_a_day_alone_correcting_a_date_keeps_its_month() -> None:
    graded = await play("travel-desk", "set the travel date to the 14th of March, no, the 15th")
    assert events(graded) == [("field_set", {"field": "travel_date", "value": "2026-03-15"})]
