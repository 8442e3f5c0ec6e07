"""Reading safety, through the real runtime with the rules interpreter: a request the reading
turns around, a record the session never named, a vague value and a correction the reading
could not place never commit. The phrasings are written for these tests (never taken from the
corpus); each test names the class it proves."""

from __future__ import annotations

import pytest
from interpreter_kit import events, play, shown

from turnframe.testing.phrasings import Graded

pytestmark = pytest.mark.anyio


def no_card(graded: Graded) -> bool:
    return not any(b.startswith("card:confirm") for b in shown(graded))


# -- reversed requests ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "please unsubmit my trip",
        "could you un-submit it, I sent it too early",
        "desubmit the Lisbon trip",
        "undo the submission of the trip",
        "roll back my submission",
    ],
)
async def test_a_request_that_reverses_an_operation_never_runs_that_operation(said: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [] and no_card(graded)
    assert "notice:rejected" in shown(graded) or "notice:not_understood" in shown(graded)


@pytest.mark.parametrize(
    "said", ["undo my refund on order 1001", "take back the refund for 1001 please"]
)
async def test_a_reversed_request_shows_no_card_for_the_operation_it_reverses(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded)


async def test_an_operation_word_inside_a_longer_word_is_not_that_operation() -> None:
    graded = await play("travel-desk", "remove the kayak tour from my trip")
    assert events(graded) == [] and no_card(graded)
    assert not any(b.startswith("card:") for b in shown(graded))


async def test_a_typo_of_the_operation_word_still_runs_the_operation() -> None:
    graded = await play("travel-desk", "sbumit my trip please")
    assert [t for t, _ in events(graded)] == ["submitted"]


# -- vague values ---------------------------------------------------------------------------


def clarifies(graded: Graded) -> bool:
    return any(
        b in ("notice:needs_argument", "notice:needs_clarification", "card:provide_argument")
        for b in shown(graded)
    )


@pytest.mark.parametrize(
    "said",
    ["add a few things for the beach", "put some stuff on the trip for my parents please"],
)
async def test_a_placeholder_in_place_of_an_item_asks_for_the_item(said: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [] and no_card(graded) and clarifies(graded)


@pytest.mark.parametrize(
    "said",
    [
        "pay back order 1001 a reasonable sum",
        "I'd like a refund on 1001, something fair please",
        "refund whatever you think is right on order 1001",
    ],
)
async def test_an_amount_said_by_a_judgement_asks_for_the_amount(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded) and clarifies(graded)


@pytest.mark.parametrize(
    ("desk", "said"),
    [
        ("travel-desk", "set the budget to a sensible amount"),
        ("refund-desk", "update the note on 1002 to something"),
    ],
)
async def test_a_field_value_that_only_holds_a_place_is_asked_for(desk: str, said: str) -> None:
    graded = await play(desk, said)
    assert events(graded) == [] and clarifies(graded)


async def test_an_item_for_someone_unnamed_waits_for_a_card() -> None:
    graded = await play("travel-desk", "add a bike rental for somebody in the group")
    assert events(graded) == []


async def test_a_vague_word_inside_a_real_value_is_still_the_value() -> None:
    graded = await play("travel-desk", "add a surfing lesson")
    assert [d["item"] for t, d in events(graded) if t == "extra_added"] == ["surfing lesson"]


# -- a record the session has not named -----------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "change my contact email to rui.costa@example.org",
        "my new address is costa.rui@mail.example, please update the email",
        "the email should be ana@reis.example",
    ],
)
async def test_a_name_inside_an_email_address_does_not_pick_the_record(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == []
    assert "notice:needs_clarification" in shown(graded) or "card:select_target" in shown(graded)


async def test_a_record_named_beside_an_address_is_still_the_record() -> None:
    graded = await play("refund-desk", "set the email on order 1002 to ana@reis.example")
    wanted = {"field": "contact_email", "value": "ana@reis.example"}
    assert events(graded) == [("field_set", wanted)]
    assert graded.events[0]["case"] == "order-1002"


# -- a correction the reading could not place -------------------------------------------------


@pytest.mark.parametrize(
    "turns",
    [
        ("pay back everything on 1001, no actually just half", "/click confirm"),
        ("refund the whole amount on order 1001 - wait, only a quarter", "/click confirm"),
        ("refund 1001 in full, hmm sorry, a third of it", "/click confirm"),
    ],
)
async def test_a_share_after_a_correction_marker_never_lets_the_first_value_commit(
    turns: tuple[str, ...],
) -> None:
    graded = await play("refund-desk", *turns)
    assert all(d.get("amount") != 12000 for _, d in events(graded))


async def test_a_share_with_no_correction_marker_is_still_read_as_a_share() -> None:
    graded = await play("refund-desk", "order no 1001, refund the full amount", "/click confirm")
    assert [d["amount"] for _, d in events(graded)] == [12000]


# -- an inherited act whose name may be who or what ------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "add a city card paid by Pedro, same for Ines",
        "add one surf lesson for Tomas to pay, and the same for Rita",
    ],
)
async def test_a_name_an_inherited_act_takes_as_its_object_waits_for_a_card(said: str) -> None:
    graded = await play("travel-desk", said)
    assert all(d.get("item", "").casefold() not in ("ines", "rita") for _, d in events(graded))


async def test_a_name_after_the_same_keeps_a_name_that_replaces_a_name() -> None:
    graded = await play(
        "travel-desk", "add a segway tour paid by Rita", "and a fado night paid by Tomas"
    )
    assert [d["paid_by"] for _, d in events(graded)] == ["Rita", "Tomas"]


# "a second X" / "one more X" is one more X (the corpus reads "Add a second airport transfer"
# as one airport transfer, committed); a further ordinal names the item with a count in it.
@pytest.mark.parametrize(
    "said",
    ["please add a third picnic basket", "add the fourth boat trip for 30 euros"],
)
async def test_an_item_that_opens_by_counting_itself_waits_for_a_card(said: str) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == []
    assert "card:confirm_command" in shown(graded)


# -- questions are answered, never acted on --------------------------------------------------


def answered(graded: Graded) -> bool:
    return any(b.startswith("answer:") for b in shown(graded))


@pytest.mark.parametrize(
    "said",
    [
        "how soon will the money show up after a refund?",
        "how many days does a refund usually take",
        "what happens after I ask for a refund?",
    ],
)
async def test_a_question_about_how_long_a_request_takes_is_answered_not_asked_back(
    said: str,
) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded) and answered(graded)
    assert "notice:needs_clarification" not in shown(graded)


@pytest.mark.parametrize(
    "said",
    [
        "could I still get my money back if I lost the receipt?",
        "is it possible to get a refund on 1001 without a receipt?",
        "can we get reimbursed even if the stay was used?",
    ],
)
async def test_whether_a_request_is_allowed_under_a_condition_is_a_question(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded) and answered(graded)


async def test_a_paid_amount_asked_with_a_common_misspelling_is_answered() -> None:
    graded = await play("refund-desk", "what was payed on order 1001?")
    assert "answer:case_question" in shown(graded)


@pytest.mark.parametrize(
    "said",
    [
        "do not refund anything on 1002, I only wanted to know how much was paid",
        "don't refund order 1001 - I'm just wondering how much is left to refund",
    ],
)
async def test_a_question_after_a_refusal_is_answered_and_nothing_runs(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded)
    assert "answer:case_question" in shown(graded)


# -- what the workflow cannot do ---------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "could you please fax the invoice to my office?",
        "can you upgrade my seat to business class?",
        "would you print a copy of the booking for me?",
    ],
)
async def test_a_request_said_as_a_question_that_nothing_reads_is_not_understood(
    said: str,
) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [] and no_card(graded)
    assert "notice:not_understood" in shown(graded)
    assert not answered(graded)


@pytest.mark.parametrize(
    "said",
    [
        "give me store credit on 1001 rather than a refund",
        "I'd prefer a gift card instead of a refund for order 1001",
    ],
)
async def test_an_operation_named_as_what_is_not_wanted_never_runs(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded)


@pytest.mark.parametrize(
    "said",
    [
        "could you send us the e-tickets please",
        "cancel just the hotel part and keep the rest",
        "submit my expense report for the taxi",
    ],
)
async def test_an_operation_asked_to_act_on_something_it_does_not_take_shows_no_card(
    said: str,
) -> None:
    graded = await play("travel-desk", said)
    assert events(graded) == [] and no_card(graded)
    assert "notice:rejected" in shown(graded)


@pytest.mark.parametrize("said", ["submit the whole thing now", "please send in my trip"])
async def test_an_operation_on_the_record_itself_keeps_its_reading(said: str) -> None:
    graded = await play("travel-desk", said)
    assert "notice:rejected" not in shown(graded)
    assert [t for t, _ in events(graded)] == ["submitted"] or not no_card(graded)


async def test_a_customer_named_only_inside_a_note_does_not_pick_the_record() -> None:
    graded = await play("refund-desk", "put the note to 'ring Rui after lunch'")
    assert events(graded) == []
    assert "notice:needs_clarification" in shown(graded)


async def test_a_customer_named_outside_the_value_still_picks_the_record() -> None:
    graded = await play("refund-desk", "for Rui Costa: set the note to ring Rui after lunch")
    assert [e["case"] for e in graded.events] == ["order-1002"]


# -- a proposal never stands in for a part --------------------------------------------------


@pytest.mark.parametrize(
    "said",
    ["give back order 1001 partly please", "I only want some of my money back for 1001"],
)
async def test_a_part_said_without_an_amount_asks_for_the_amount(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded) and clarifies(graded)


@pytest.mark.parametrize(
    "said",
    [
        "forget about the refund for 1001",
        "never mind refunding order 1002",
        "skip the refund on 1001",
    ],
)
async def test_a_request_taken_back_in_words_shows_no_card(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded)


@pytest.mark.parametrize(
    "said",
    [
        "pay back 1001 in full. Actually, only the parking part",
        "refund order 1001, but not the whole amount",
        "refund 1001 everything except the minibar",
        "refund me something on 1001",
    ],
)
async def test_a_value_narrowed_or_negated_after_it_is_asked_for(said: str) -> None:
    graded = await play("refund-desk", said)
    assert events(graded) == [] and no_card(graded) and clarifies(graded)


async def test_a_change_of_mind_about_an_operation_shows_no_card() -> None:
    graded = await play("refund-desk", "we changed our minds about the refund for order 1002")
    assert events(graded) == [] and no_card(graded)


async def test_how_a_request_works_is_answered_as_knowledge() -> None:
    graded = await play("refund-desk", "how does a refund request work here?")
    assert answered(graded) and "notice:needs_clarification" not in shown(graded)


@pytest.mark.parametrize(
    "said", ["may I ask whether order 1002 has a receipt?", "I was wondering if 1001 has a receipt"]
)
async def test_a_question_framed_politely_is_answered_from_the_record(said: str) -> None:
    graded = await play("refund-desk", said)
    assert "answer:case_question" in shown(graded)


async def test_asking_permission_to_ask_is_not_a_question_about_the_rules() -> None:
    graded = await play("travel-desk", "may I ask when my trip leaves?")
    assert "answer:case_question" in shown(graded)


@pytest.mark.parametrize(
    "said",
    ["add a kayak tour and the same for my sister", "add a city card, same for the children"],
)
async def test_the_same_for_someone_never_makes_them_the_item(said: str) -> None:
    graded = await play("travel-desk", said)
    items = [d["item"].casefold() for _, d in events(graded)]
    assert "my sister" not in items and "children" not in items and "the children" not in items


@pytest.mark.parametrize(
    ("desk", "said"),
    [
        ("travel-desk", "add the usual for me"),
        ("travel-desk", "rename the trip to something catchier"),
    ],
)
async def test_a_value_said_as_the_usual_or_something_else_is_asked_for(
    desk: str, said: str
) -> None:
    graded = await play(desk, said)
    assert events(graded) == [] and clarifies(graded)


async def test_an_item_for_a_group_waits_for_a_card() -> None:
    graded = await play("travel-desk", "add a cooking class for everybody")
    assert events(graded) == [] and not no_card(graded)


# -- a request taken back -------------------------------------------------------------------


@pytest.mark.parametrize(
    "turns",
    [
        ("pay back 1001 please, well, not really, I was only asking", "/click confirm"),
        ("refund 15 on order 1001... just kidding", "/click confirm"),
        ("refund 1001 30 euros - scratch that, refund nothing", "/click confirm"),
    ],
)
async def test_a_request_taken_back_in_the_same_message_never_commits(
    turns: tuple[str, ...],
) -> None:
    graded = await play("refund-desk", *turns)
    assert events(graded) == []
