"""Values as people write them: prices and counts in any order, quoted field values, request
frames shaped like questions, abbreviated record ids, typos of a clause's first verb."""

from __future__ import annotations

from interpreter_kit import PROVIDER, REFUND, read

from turnframe.plan import LabelTarget, OperationAct, QuestionAct, SetFieldAct, parse_plan
from turnframe.testing import TURN_CLOCK, make_turn


def _only_operation(text: str, desk: str = "travel-desk") -> OperationAct:
    reading = read(text, desk)
    ops = [a for a in reading.acts if isinstance(a, OperationAct)]
    assert len(ops) == 1, reading.acts
    return ops[0]


def _only_field(text: str, desk: str = "travel-desk") -> SetFieldAct:
    reading = read(text, desk)
    fields = [a for a in reading.acts if isinstance(a, SetFieldAct)]
    assert len(fields) == 1, reading.acts
    return fields[0]


def test_a_price_each_after_at_is_the_unit_price_and_never_part_of_the_item() -> None:
    reading = read("add 3 snorkel sets at 12 each")
    assert reading.acts[0].args == {"item": "snorkel sets", "quantity": "3", "unit_price": "12"}
    assert reading.args(0)["unit_price"] == 1200


def test_a_price_per_day_written_with_a_slash_leaves_the_item_clean() -> None:
    act = _only_operation("add a scooter at 20 eur/day for 5 days")
    assert act.args == {"item": "scooter", "quantity": "5", "unit_price": "20 eur"}


def test_how_many_days_a_per_day_thing_is_wanted_for_is_its_quantity() -> None:
    reading = read("add a stroller for 6 days at 9 euros a day")
    assert reading.acts[0].args == {"item": "stroller", "quantity": "6", "unit_price": "9 euros"}
    assert reading.args(0)["quantity"] == 6


def test_a_duration_next_to_a_count_is_left_unread_and_the_operation_waits_for_a_card() -> None:
    reading = read("add 2 kayaks for 3 days")
    act = reading.acts[0]
    quantity = act.args.get("quantity", "") if isinstance(act, OperationAct) else ""
    assert "2" in quantity and "3 days" in quantity  # both counts left as said: unread
    assert "unit_price" not in act.args
    assert reading.statuses[0] != "ready_to_execute"


def test_a_price_in_another_currency_is_asked_about_as_the_price_not_taken_as_a_count() -> None:
    reading = read("add a ferry ticket for £25")
    act = reading.acts[0]
    assert isinstance(act, OperationAct)
    assert act.args.get("unit_price") == "£25" and "quantity" not in act.args
    assert reading.statuses == ["needs_clarification"]


def test_a_month_then_an_ordinal_in_words_is_a_date() -> None:
    reading = read("rebook the return to April fourth")
    assert reading.acts[0].args == {"leg": "return", "date": "April fourth"}
    assert str(reading.args(0)["date"]) == "2026-04-04"


def test_a_quoted_value_inside_an_operation_gap_phrase_is_a_field_value() -> None:
    act = _only_field("put the note 'window seat please' on the trip")
    assert (act.field, act.value) == ("note", "window seat please")


def test_a_field_change_asked_as_a_question_is_a_request() -> None:
    act = _only_field("Could we please set the budget to 1200 euros?")
    assert (act.field, act.value) == ("budget", "1200 euros")


def test_a_question_frame_before_a_field_without_a_verb_stays_a_question() -> None:
    reading = read("could you tell me the budget?")
    assert [type(a) for a in reading.acts] == [QuestionAct]


def test_a_record_noun_abbreviated_before_a_hash_names_the_record() -> None:
    act = _only_field("ord#1002 note: 'sent by post'", REFUND.name)
    assert (act.field, act.value) == ("note", "sent by post")
    assert act.target is not None and "1002" in str(act.target)


def test_a_two_letter_typo_of_a_verb_after_politeness_is_still_the_verb() -> None:
    act = _only_operation("plz ad a beach umbrella")
    assert act.operation == "add_extra" and act.args == {"item": "beach umbrella"}


def test_a_field_named_then_its_value_after_it_should_say_is_that_value() -> None:
    reading = read('Please fix the remark, it should say "vegetarian meals", thanks.')
    fields = [a for a in reading.acts if isinstance(a, SetFieldAct)]
    assert [(a.field, a.value) for a in fields] == [("note", "vegetarian meals")]


def test_a_typed_value_in_the_next_clause_completes_a_field_named_without_one() -> None:
    act = _only_field("update the budget please. the new one is 2200 euros")
    assert (act.field, act.value) == ("budget", "2200 euros")


def test_a_remark_about_a_free_text_field_is_never_taken_for_its_value() -> None:
    reading = read("change the note, it is far too long")
    assert not [a for a in reading.acts if isinstance(a, SetFieldAct) and a.value]


def test_a_field_said_to_be_wrong_takes_the_value_said_after_it() -> None:
    said = "the contact email on #1002 is outdated, it should be rc@example.org"
    act = _only_field(said, REFUND.name)
    assert (act.field, act.value) == ("contact_email", "rc@example.org")


def test_a_wish_for_a_field_with_a_quoted_value_sets_the_field() -> None:
    act = _only_field("We'd love a comment on the trip saying 'anniversary dinner'")
    assert (act.field, act.value) == ("note", "anniversary dinner")


def test_a_field_that_changed_to_a_value_is_set_to_it() -> None:
    act = _only_field("my email has changed to rc@example.net", REFUND.name)
    assert (act.field, act.value) == ("contact_email", "rc@example.net")


def test_a_list_announcement_before_the_first_request_is_not_read_as_words_left_over() -> None:
    reading = read("A couple of things: the budget is 900 euros, and add a picnic basket")
    assert reading.unread == []
    assert [a.kind for a in reading.acts] == ["set_field", "operation"]


def _rebooked(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """The rebooking's words as read, and its arguments as the card would show them."""
    reading = read(text)
    ops = [(i, a) for i, a in enumerate(reading.acts) if isinstance(a, OperationAct)]
    assert len(ops) == 1 and ops[0][1].operation == "rebook", reading.acts
    index, act = ops[0]
    shown = {k: str(v) for k, v in reading.args(index).items()}
    return act.args, shown


def test_postponing_a_leg_to_a_weekday_and_date_is_a_rebooking() -> None:
    _, shown = _rebooked("could you postpone my return flight to Sunday 22 March?")
    assert shown == {"leg": "return", "date": "2026-03-22"}


def test_a_passive_request_names_the_leg_before_the_verb() -> None:
    _, shown = _rebooked("the outbound has to be rebooked for March 11")
    assert shown == {"leg": "outbound", "date": "2026-03-11"}


def test_the_leg_between_a_verb_and_its_noun_is_the_object() -> None:
    _, shown = _rebooked("change outbound flight to 11th March")
    assert shown == {"leg": "outbound", "date": "2026-03-11"}


def test_a_day_number_with_day_before_it_is_a_date_and_the_leg_is_found_among_other_words() -> None:
    _, shown = _rebooked("i want change my flight of outbound for day 11 of march")
    assert shown == {"leg": "outbound", "date": "2026-03-11"}


def test_two_legs_named_are_never_narrowed_to_one() -> None:
    reading = read("move the outbound or the return to 20 March")
    assert reading.statuses == ["needs_clarification"]


def test_one_more_of_a_thing_is_that_thing_without_the_counting_words() -> None:
    act = _only_operation("please add a second picnic basket")
    assert act.args == {"item": "picnic basket"}


def test_an_object_that_names_nothing_is_asked_about_never_added() -> None:
    reading = read("add a few things for the grandparents")
    assert reading.statuses == ["needs_clarification"]


def test_a_word_made_from_a_workflow_verb_with_a_prefix_is_not_corrected_to_the_verb() -> None:
    reading = read("desubmit the trip")
    assert not [a for a in reading.acts if isinstance(a, OperationAct)]


#: The refund desk's records with the other names the runtime passes (order numbers, customers).
_ORDERS = ("Order 1001", "Order 1002")
_ORDER_NAMES = {
    "1001": ("Order 1001",),
    "1002": ("Order 1002",),
    "Ana Reis": ("Order 1001",),
    "Rui Costa": ("Order 1002",),
}


def _fields_named(text: str) -> list[SetFieldAct]:
    """The field changes read on the refund desk, its records named as the runtime names them."""
    turn = make_turn(text, clock=TURN_CLOCK)
    raw = PROVIDER.interpret(turn, REFUND.name, case_labels=_ORDERS, case_names=_ORDER_NAMES)
    return [a for a in parse_plan(raw, turn).acts if isinstance(a, SetFieldAct)]


def test_a_customer_name_inside_an_email_address_names_no_record() -> None:
    (act,) = _fields_named("set the contact email to rui.c@example.com")
    assert act.target == LabelTarget(label="")  # no record named: the reducer asks which


def test_who_an_item_is_for_said_as_a_pronoun_is_not_part_of_the_item() -> None:
    act = _only_operation("add a cooking class for him, 55 euros")
    assert act.args == {"item": "cooking class", "unit_price": "55 euros"}


def test_a_heading_before_the_operation_names_its_object() -> None:
    _, shown = _rebooked("TP1351: rebook 21 March")
    assert shown == {"leg": "outbound", "date": "2026-03-21"}


def test_a_field_set_to_a_date_in_some_weeks_reads_the_date_without_to() -> None:
    reading = read("set the return date in two weeks")
    (act,) = reading.acts
    assert isinstance(act, SetFieldAct) and act.value == "in two weeks"


def test_politeness_with_a_colon_before_a_list_of_fields_is_not_a_value() -> None:
    reading = read("Kindly: note = 'late check-in', budget = 700 €")
    values = [(a.field, a.value) for a in reading.acts if isinstance(a, SetFieldAct)]
    assert values == [("note", "late check-in"), ("budget", "700 €")]


def test_a_free_text_field_then_its_record_then_plain_words_sets_the_field() -> None:
    (act,) = _fields_named("note 1002 prefers sms")
    assert (act.field, act.value, act.target) == (
        "note",
        "prefers sms",
        LabelTarget(label="Order 1002"),
    )


def test_plain_words_after_a_validated_field_and_its_record_are_never_its_value() -> None:
    assert _fields_named("email 1002 hello there") == []


def test_a_sentence_about_a_free_text_field_is_not_its_value() -> None:
    assert _fields_named("note 1002 is missing") == []


def test_a_reason_clause_after_a_typed_value_is_neither_value_nor_left_unread() -> None:
    reading = read(
        "set the contact email on #1002 to rc@example.org so we stop missing mails", REFUND.name
    )
    (act,) = reading.acts
    assert isinstance(act, SetFieldAct) and act.value == "rc@example.org"
    assert reading.unread == []


def test_a_reason_clause_that_names_an_operation_is_still_weighed() -> None:
    reading = read(
        "set the contact email on #1002 to rc@example.org so I can get a refund", REFUND.name
    )
    assert reading.unread == ["so I can get a refund"]


def test_a_new_value_said_after_new_and_the_field_name_is_read() -> None:
    (act,) = _fields_named("new email rc@example.org")
    assert (act.field, act.value) == ("contact_email", "rc@example.org")


def test_a_typo_with_two_letters_swapped_is_the_word_with_the_same_letters() -> None:
    act = _only_operation("add a city card for 20 uero")
    assert act.args == {"item": "city card", "unit_price": "20 euro"}


def test_a_record_number_then_its_field_is_now_a_value_sets_that_field() -> None:
    (act,) = _fields_named("1002 email is now rc@example.org")
    assert (act.field, act.value, act.target) == (
        "contact_email",
        "rc@example.org",
        LabelTarget(label="Order 1002"),
    )


def test_an_exasperated_opening_is_not_part_of_the_request() -> None:
    reading = read("For the third time: the budget is 800 euros, not whatever it says now")
    (act,) = reading.acts
    assert isinstance(act, SetFieldAct) and (act.field, act.value) == ("budget", "800 euros")
    assert reading.unread == []


def test_a_record_named_by_a_place_no_record_is_in_is_asked_about() -> None:
    reading = read("please withdraw our booking in Madrid")
    (act,) = reading.acts
    assert isinstance(act, OperationAct) and act.target == LabelTarget(label="Madrid")
    assert reading.reasons == ["turnframe.act.unknown_target"]


def test_a_list_of_counted_objects_ending_in_and_gives_one_operation_each() -> None:
    reading = read("add 2 beach towels, 4 sun hats and 1 cooler bag")
    items = [(a.args.get("item"), a.args.get("quantity")) for a in reading.acts]
    assert items == [("beach towels", "2"), ("sun hats", "4"), ("cooler bag", "1")]


def test_and_also_before_another_object_starts_the_next_object() -> None:
    reading = read("add a wine tasting and also a cooking class")
    assert [a.args.get("item") for a in reading.acts] == ["wine tasting", "cooking class"]


def test_a_duration_or_an_amount_after_and_is_never_another_object() -> None:
    reading = read("add a boat trip, 3 hours and 90 euros")
    assert len(reading.acts) == 1 and reading.statuses != ["ready_to_execute"]


def test_a_flight_number_without_its_letters_names_its_leg() -> None:
    _, shown = _rebooked("move the 1350 flight to 18 March")
    assert shown == {"leg": "return", "date": "2026-03-18"}


def test_a_number_that_is_no_flight_of_the_trip_is_asked_about() -> None:
    reading = read("rebook 1999 to 18 March")
    assert reading.reasons == ["turnframe.act.unreadable_argument"]


def test_a_field_with_its_value_at_the_end_of_a_list_of_objects_is_that_fields_change() -> None:
    reading = read("add 3 sun hats and a comment 'for the kids'")
    assert [a.kind for a in reading.acts] == ["operation", "set_field"]
    field = reading.acts[1]
    assert isinstance(field, SetFieldAct) and (field.field, field.value) == ("note", "for the kids")


def test_a_field_without_value_in_a_list_of_objects_is_asked_for() -> None:
    reading = read("add a wine tasting and a remark")
    assert reading.statuses == ["ready_to_execute", "needs_clarification"]
    assert not [a for a in reading.acts if isinstance(a, OperationAct) and "remark" in str(a.args)]


def test_words_beside_a_choice_go_to_an_argument_that_reads_them() -> None:
    reading = read("put me on TP1410 for the way back on 19 March")
    (act,) = reading.acts
    assert isinstance(act, OperationAct) and act.args["flight"] == "TP1410"
    assert reading.args(0)["leg"] == "return"


def test_a_note_that_reports_what_someone_says_takes_the_reported_words() -> None:
    act = _only_field("for now add a note that she arrives by train")
    assert (act.field, act.value) == ("note", "she arrives by train")


def test_a_field_value_in_another_currency_is_asked_for_never_refused_or_converted() -> None:
    for said in ("set the budget to $750", "change the budget to 1200 dollars"):
        reading = read(said)
        act = _only_field(said)
        assert act.field == "budget" and act.value == ""
        assert reading.statuses == ["needs_clarification"]


def test_a_field_value_in_the_workflows_currency_is_still_set_at_once() -> None:
    assert read("change the budget to €750").statuses == ["ready_to_execute"]


def test_a_request_to_put_through_an_operation_asked_as_a_question_waits_for_its_card() -> None:
    for said in (
        "could you process a refund of 12 euros on order 1001?",
        "Can you please put through a refund of 7 euros for order 1001?",
    ):
        reading = read(said, REFUND.name)
        act = _only_operation(said, REFUND.name)
        assert act.operation == "refund" and "euros" in act.args["amount"]
        assert reading.statuses == ["awaiting_confirmation"]


def test_asking_whether_a_refund_can_be_processed_faster_is_no_request() -> None:
    reading = read("can you process my refund any faster?", REFUND.name)
    assert not any(isinstance(a, OperationAct) for a in reading.acts)


def test_days_of_a_per_day_thing_are_its_quantity_and_never_part_of_the_item() -> None:
    act = _only_operation("please add 5 days of kayak hire at 25 euros a day")
    assert act.args == {"item": "kayak hire", "quantity": "5", "unit_price": "25 euros"}


def test_days_named_without_a_count_stay_part_of_the_item() -> None:
    assert _only_operation("add spa days of relaxation").args["item"] == "spa days of relaxation"


def test_words_before_an_arrow_that_name_more_than_a_field_are_the_carded_operation() -> None:
    for said in ("return flight -> 20/03", "the way back → 21 March", "outbound leg => 13/03"):
        reading = read(said)
        (act,) = reading.acts
        assert isinstance(act, OperationAct), said
        assert reading.statuses == ["awaiting_confirmation"], said  # a card, never a commit


def test_a_field_name_alone_before_an_arrow_stays_that_field() -> None:
    (act,) = read("return date -> 20/03").acts
    assert isinstance(act, SetFieldAct) and act.field == "return_date"
