"""Reading the clauses of a whole turn: corrections in a row, follow-ups that lean on the act
before them, lists of requests, and the story around a request. Every phrasing here is written
for these tests (not taken from the phrasing corpus); each names one rule of the class."""

from __future__ import annotations

from interpreter_kit import REFUND, TRAVEL, read

from turnframe.plan import LabelTarget, OperationAct, SetFieldAct
from turnframe.results import ActStatus

ORDER_1001 = "Order 1001"
ORDER_1002 = "Order 1002"


def _live_operations(reading: object) -> list[dict[str, object]]:
    """The arguments of every operation the reduction still plans (not superseded)."""
    out = []
    for index, act in enumerate(reading.acts):  # type: ignore[attr-defined]
        result = reading.results[index]  # type: ignore[attr-defined]
        if isinstance(act, OperationAct) and result.status in (
            ActStatus.READY_TO_EXECUTE,
            ActStatus.AWAITING_CONFIRMATION,
        ):
            out.append(reading.args(index))  # type: ignore[attr-defined]
    return out


def _fields_set(reading: object) -> list[tuple[str, object]]:
    """(field, value) of every field change the reduction plans to commit."""
    out = []
    batches = reading.reduction.batches  # type: ignore[attr-defined]
    for batch in batches:
        for command in batch.commands:
            if "field" in command.args:
                out.append((command.args["field"], command.args["value"]))
    return out


# -- corrections -------------------------------------------------------------------------------


def test_corrections_said_one_after_another_leave_only_the_last_amount() -> None:
    reading = read("refund 25 on order 1001 no 35 no sorry 30", REFUND.name)
    assert _live_operations(reading) == [{"amount": 3000}]
    assert reading.unread == []


def test_a_stammered_no_still_marks_the_value_after_it_as_a_correction() -> None:
    reading = read("set the budget to 1500 euros, no 1800, no no no 1650", TRAVEL.name)
    assert reading.unread == []
    assert reading.kinds == ["set_field", "correct", "correct"]
    assert reading.acts[2].value == "1650"  # type: ignore[union-attr]


def test_a_correction_that_says_the_first_value_was_right_brings_it_back() -> None:
    reading = read("refund 15 on order 1001 - no, 150 - no no, 15 was right", REFUND.name)
    assert _live_operations(reading) == [{"amount": 1500}]


def test_a_denied_value_followed_by_the_value_meant_corrects_it() -> None:
    reading = read("refund 25 on order 1001 - not 25, 22", REFUND.name)
    assert _live_operations(reading) == [{"amount": 2200}]


def test_not_followed_by_a_value_the_act_never_had_is_not_read_as_a_correction() -> None:
    reading = read("refund 25 on order 1001 - not 40, 22", REFUND.name)
    assert {"amount": 2200} not in _live_operations(reading)


def test_a_correction_read_whole_as_arguments_replaces_only_the_arguments_it_names() -> None:
    reading = read("add a bike tour paid by Pedro, I mean paid by Sofia", TRAVEL.name)
    (args,) = _live_operations(reading)
    assert args["item"] == "bike tour"
    assert args["paid_by"] == "Sofia"


def test_an_admitted_typo_marks_the_value_after_it_as_a_correction() -> None:
    reading = read("set the budget to 900 euros, sorry typo: 9000", TRAVEL.name)
    assert reading.unread == []
    assert reading.kinds == ["set_field", "correct"]
    assert _fields_set(reading) == [("budget", 900000)]


# -- follow-ups --------------------------------------------------------------------------------


def test_same_for_a_person_puts_the_name_where_the_act_had_a_name() -> None:
    reading = read("add a kayak paid by Pedro, same for Sofia", TRAVEL.name)
    payers = sorted(str(args["paid_by"]) for args in _live_operations(reading))
    assert payers == ["Pedro", "Sofia"]
    assert {args["item"] for args in _live_operations(reading)} == {"kayak"}


def test_same_for_a_name_when_the_act_had_no_name_is_not_guessed() -> None:
    reading = read("add a kayak, same for Sofia", TRAVEL.name)
    assert all(args.get("item") != "Sofia" for args in _live_operations(reading))
    assert "same for Sofia" in reading.unread


def test_a_follow_up_naming_another_record_with_its_own_value_sets_it_there() -> None:
    reading = read(
        "set the email on order 1001 to pat@mail.example and on order 1002 to lee@mail.example",
        REFUND.name,
    )
    changes = [a for a in reading.acts if isinstance(a, SetFieldAct)]
    assert [(a.target, a.value) for a in changes] == [
        (LabelTarget(label=ORDER_1001), "pat@mail.example"),
        (LabelTarget(label=ORDER_1002), "lee@mail.example"),
    ]
    assert reading.unread == []


def test_a_follow_up_value_for_a_free_text_field_is_read_only_when_quoted() -> None:
    quoted = read(
        "set the note on order 1001 to 'called', and order 1002's to 'left a message'", REFUND.name
    )
    assert [a.value for a in quoted.acts if isinstance(a, SetFieldAct)] == [
        "called",
        "left a message",
    ]
    bare = read(
        "set the note on order 1001 to 'called', and order 1002's to left a message", REFUND.name
    )
    assert [a.value for a in bare.acts if isinstance(a, SetFieldAct)] == ["called"]


# -- several requests in one message -----------------------------------------------------------


def test_a_comma_list_of_counted_objects_is_one_operation_per_object() -> None:
    reading = read("add 2 maps, 4 sunhats and 2 umbrellas", TRAVEL.name)
    items = [(args["item"], args["quantity"]) for args in _live_operations(reading)]
    assert items == [("maps", 2), ("sunhats", 4), ("umbrellas", 2)]


def test_a_comma_before_an_amount_does_not_start_another_object() -> None:
    reading = read("add a cooking class, 40 euros", TRAVEL.name)
    assert len(_live_operations(reading)) == 1


def test_a_line_that_only_announces_a_list_is_neither_a_request_nor_unread() -> None:
    reading = read("two quick things:\n- set the budget to 1200\n- add a city map", TRAVEL.name)
    assert reading.kinds == ["set_field", "operation"]
    assert reading.unread == []


# -- the story around a request ----------------------------------------------------------------


def test_a_reason_after_a_request_is_set_apart_and_the_request_reads_alone() -> None:
    reading = read("please set the budget to 1300 because our manager said so", TRAVEL.name)
    assert _fields_set(reading) == [("budget", 130000)]
    assert reading.unread == ["because our manager said so"]


def test_a_reason_that_holds_a_number_never_lets_the_change_commit_unseen() -> None:
    reading = read("set the budget to 1300 because we already spent 200", TRAVEL.name)
    assert _fields_set(reading) == []


def test_a_request_reported_from_someone_else_reads_from_its_own_words() -> None:
    reading = read("my sister asked me to add a city map", TRAVEL.name)
    (args,) = _live_operations(reading)
    assert args["item"] == "city map"


def test_a_correction_that_says_none_after_all_takes_the_change_back() -> None:
    reading = read("set the note to 'gate B', on second thought, no note", TRAVEL.name)
    assert reading.kinds == ["set_field", "cancel"]
    assert _fields_set(reading) == []


def test_a_value_restated_as_the_new_one_after_the_old_one_is_the_correction() -> None:
    reading = read(
        "set the email on order 1001 to old@mail.example, no wait that's the old one, "
        "the new one is new@mail.example",
        REFUND.name,
    )
    assert reading.kinds == ["set_field", "correct"]
    assert reading.acts[1].value == "new@mail.example"  # type: ignore[union-attr]


def test_no_and_a_comma_before_a_date_marks_the_date_as_a_correction() -> None:
    reading = read("change the return date to 17 March - no, 18 March", TRAVEL.name)
    assert reading.kinds == ["set_field", "correct"]
    assert _fields_set(reading) == [("return_date", "2026-03-18")]


def test_an_operation_on_a_list_of_records_is_one_act_per_record() -> None:
    reading = read("refund 12 euros on order 1001 and order 1002", REFUND.name)
    targets = [a.target for a in reading.acts if isinstance(a, OperationAct)]
    assert targets == [LabelTarget(label=ORDER_1001), LabelTarget(label=ORDER_1002)]
    assert all(reading.acts[i].args == {"amount": "12 euros"} for i in (0, 1))  # type: ignore[union-attr]


def test_a_record_id_in_a_list_of_records_is_never_read_as_an_amount() -> None:
    reading = read("refund order 1001 and order 1002 right now for sure", REFUND.name)
    for act in reading.acts:
        assert "1002" not in str(getattr(act, "args", {}).get("amount", ""))


def test_a_clause_that_tells_what_happened_is_a_story_and_never_an_act() -> None:
    reading = read("we added a kayak last week, please set the budget to 1400", TRAVEL.name)
    assert reading.kinds == ["set_field"]
    assert reading.unread == ["we added a kayak last week"]


def test_a_story_that_names_an_operation_and_an_amount_takes_no_value_from_them() -> None:
    reading = read("I read your refund rules and paid 35 euros at the counter", REFUND.name)
    assert [a for a in reading.acts if isinstance(a, OperationAct)] == []


def test_another_field_too_with_its_own_value_sets_that_field_on_the_same_record() -> None:
    reading = read(
        "set the return date to 19 March, and the travel date too: 13 March", TRAVEL.name
    )
    assert _fields_set(reading) == [
        ("return_date", "2026-03-19"),
        ("travel_date", "2026-03-13"),
    ]


# -- negations and conditions ------------------------------------------------------------------


def test_dont_change_anything_else_after_a_request_forbids_nothing_the_turn_asked_for() -> None:
    reading = read("set the budget to 950 and please don't touch anything else", TRAVEL.name)
    assert _fields_set(reading) == [("budget", 95000)]
    assert reading.unread == []


def test_a_condition_without_a_comma_ends_where_the_request_starts() -> None:
    reading = read("if there is a receipt on order 1001 set the note to 'seen'", REFUND.name)
    (act,) = reading.acts
    assert isinstance(act, SetFieldAct) and act.condition is not None
    assert act.condition.name == "has_receipt"
    assert _fields_set(reading) == [("note", "seen")]


def test_if_there_is_without_a_question_before_it_is_read_as_a_condition() -> None:
    reading = read("if there is a receipt on order 1001, set the note to 'seen'", REFUND.name)
    assert _fields_set(reading) == [("note", "seen")]


def test_if_so_with_no_question_before_it_never_runs_its_request_unconditionally() -> None:
    reading = read("if so, set the note to 'seen' on order 1001", REFUND.name)
    assert _fields_set(reading) == []


def test_a_field_named_with_a_quoted_value_after_an_operation_is_a_change_of_that_field() -> None:
    reading = read("add 2 maps at 4 euros each and a note 'bring cash'", TRAVEL.name)
    assert reading.kinds == ["operation", "set_field"]
    assert _fields_set(reading) == [("note", "bring cash")]


def test_a_polite_word_before_a_colon_leaves_the_request_after_it_whole() -> None:
    reading = read("please: note = 'late arrival', budget = 1100 €", TRAVEL.name)
    assert _fields_set(reading) == [("note", "late arrival"), ("budget", 110000)]


def test_a_pause_alone_is_never_read_as_a_request() -> None:
    reading = read("set the budget to 700. wait. is the discount still valid?", TRAVEL.name)
    assert reading.kinds == ["set_field", "question"]


def test_whatever_do_after_a_question_corrects_the_change_before_the_question() -> None:
    reading = read(
        "set the budget to 700... hmm, is the discount still valid? whatever, do 750",
        TRAVEL.name,
    )
    assert reading.kinds == ["set_field", "question", "correct"]
    assert _fields_set(reading) == [("budget", 75000)]


# -- round 2: stories and field phrasings (#12) ------------------------------------------------
def test_a_case_named_before_the_verb_is_the_case_of_every_change_after_it() -> None:
    reading = read(
        "for order 1002, change the email to desk@quinta.pt and add a note: refund by card",
        REFUND.name,
    )
    assert _fields_set(reading) == [("contact_email", "desk@quinta.pt"), ("note", "refund by card")]
    assert all(
        a.target == LabelTarget(label=ORDER_1002)  # type: ignore[union-attr]
        for a in reading.acts
    )


def test_a_date_before_the_verb_is_never_taken_for_a_case() -> None:
    reading = read("on 12/03 set the budget to 800 euros", TRAVEL.name)
    assert _fields_set(reading) == []  # the date is not read past: nothing commits on a guess


def test_a_question_mark_after_a_colon_value_stays_in_the_value() -> None:
    reading = read("on order 1001 add a note: was the deposit returned?", REFUND.name)
    assert _fields_set(reading) == [("note", "was the deposit returned?")]


def test_a_question_mark_of_a_can_you_request_is_not_the_values() -> None:
    reading = read("can you add a note to order 1001: wants a call?", REFUND.name)
    assert _fields_set(reading) == [("note", "wants a call")]


def test_would_it_be_possible_to_before_a_field_change_is_a_request() -> None:
    reading = read("Hello, would it be possible to set the budget to 2,300 euros?", TRAVEL.name)
    assert _fields_set(reading) == [("budget", 230000)]


def test_put_this_in_the_notes_takes_the_value_after_the_colon() -> None:
    reading = read("please put this in the notes: gate code 4411", TRAVEL.name)
    assert _fields_set(reading) == [("note", "gate code 4411")]


def test_a_complaint_before_a_colon_leaves_the_request_after_it() -> None:
    reading = read("we wrote you four times already: set the budget to 950 euros", TRAVEL.name)
    assert _fields_set(reading) == [("budget", 95000)]
    assert reading.unread == ["we wrote you four times already"]


def test_a_story_before_a_colon_with_nothing_asked_after_it_stays_a_story() -> None:
    reading = read("I booked it in April: the hotel was full", TRAVEL.name)
    assert reading.acts == ()


def test_add_a_note_with_nothing_after_it_asks_for_the_note() -> None:
    reading = read("please write a note", TRAVEL.name)
    assert [(a.field, a.value) for a in reading.acts] == [("note", "")]  # type: ignore[union-attr]
    assert reading.statuses == ["needs_clarification"]


def test_a_count_of_days_of_something_counts_the_thing_not_the_days() -> None:
    reading = read("add 4 days of bike rental at 15 euros per day", TRAVEL.name)
    assert _live_operations(reading) == [
        {"item": "bike rental", "quantity": 4, "unit_price": 1500}
    ]


def test_what_someone_is_doing_after_a_request_is_a_story_not_another_object() -> None:
    reading = read(
        "Could you add a city map for 5 euros? He's collecting maps from every trip.", TRAVEL.name
    )
    assert reading.kinds == ["operation"]
    assert reading.unread == ["He's collecting maps from every trip"]


def test_either_way_before_a_request_after_a_question_leaves_the_request_sure() -> None:
    reading = read("Is breakfast included? In any case, add a note: ask the hotel", TRAVEL.name)
    assert _fields_set(reading) == [("note", "ask the hotel")]
    assert reading.unread == []


def test_what_can_stay_as_it_is_is_never_another_change() -> None:
    reading = read(
        "Please move the outbound to March 14. The return can stay as it is.", TRAVEL.name
    )
    assert [a.args["leg"] for a in reading.acts if isinstance(a, OperationAct)] == ["outbound"]


def test_the_flight_out_is_the_outbound_leg() -> None:
    reading = read("could you move our flight out to March 14", TRAVEL.name)
    assert reading.args(0)["leg"] == "outbound"


def test_thanks_a_million_is_a_thank_you_not_an_object() -> None:
    reading = read("add a city map for 4 euros. Thanks a million", TRAVEL.name)
    assert reading.kinds == ["operation", "chitchat"]


def test_that_refund_takes_the_one_amount_the_story_names_and_waits_for_a_card() -> None:
    reading = read(
        "Yesterday your agent offered 25 euros back on order 1001. Please process that refund.",
        REFUND.name,
    )
    assert _live_operations(reading) == [{"amount": 2500}]
    assert reading.statuses == ["awaiting_confirmation"]


def test_that_refund_asks_for_the_amount_when_the_story_names_two() -> None:
    reading = read(
        "Your agent offered 25 euros, then 30 euros on order 1001. Please process that refund.",
        REFUND.name,
    )
    assert reading.statuses == ["needs_clarification"]  # never one of the two on a guess


def test_a_field_asked_for_then_spelled_out_in_the_next_sentence_takes_that_value() -> None:
    reading = read(
        "Could you put a note on order 1001 for the accountant? Write exactly: paid in cash.",
        REFUND.name,
    )
    assert _fields_set(reading) == [("note", "paid in cash")]


def test_a_field_change_asked_as_a_question_with_no_value_asks_for_the_value() -> None:
    reading = read("could you change the email on order 1002?", REFUND.name)
    assert [(a.field, a.value) for a in reading.acts] == [("contact_email", "")]  # type: ignore[union-attr]
    assert reading.statuses == ["needs_clarification"]


def test_a_complaint_before_a_stated_value_then_put_it_on_the_case_is_one_change() -> None:
    reading = read(
        "I have told you again and again my email is joana@mail.pt, put it on order 1002 now",
        REFUND.name,
    )
    assert _fields_set(reading) == [("contact_email", "joana@mail.pt")]
    assert reading.acts[0].target == LabelTarget(label=ORDER_1002)  # type: ignore[union-attr]


def test_put_it_on_another_case_than_the_change_is_never_absorbed() -> None:
    reading = read("my email on order 1001 is joana@mail.pt, put it on order 1002", REFUND.name)
    assert reading.unread != []
