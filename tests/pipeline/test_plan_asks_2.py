"""A plan that can ask, second round (issue 12, ADR 0024): a change with nothing named, a value
disowned while its card is open, two equal requests in one turn, and questions about the
return leg, through the runtime with the sample desks. The phrasings are written for these
tests from what users type, never taken from a corpus."""

from __future__ import annotations

from typing import Any

import pytest
from desk_kit import ACCOUNT, CLOCK, cards, click, committed, desk_runtime, say, seed

from turnframe.lifecycle import TurnPhase
from turnframe.messages import UserTurn
from turnframe.plan import (
    LabelTarget,
    OperationAct,
    PlanRejected,
    SetFieldAct,
    UnnamedChangeAct,
    UserTurnPlan,
    parse_plan,
)
from turnframe.response import BlockKind
from turnframe.results import (
    ACT_CHANGE_UNNAMED,
    ACT_VALUE_DISOWNED,
    ActStatus,
)
from turnframe.stores import SqliteStore
from turnframe.testing import plan_json, span
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.scripted import Answer, ScriptedProvider

pytestmark = pytest.mark.anyio

LISBON = LabelTarget(label="Lisbon")





def _answer_texts(response: Any) -> str:
    return " ".join(b.text for b in response.blocks if b.kind is BlockKind.ANSWER)


# -- a change with nothing named ----------------------------------------------------------------


@pytest.mark.parametrize(
    "said",
    [
        "I want to change something on my booking",
        "can you update my booking?",
        "I need to fix a detail",
        "hi, could you please modify a few things on the trip",
    ],
)
async def test_a_change_with_nothing_named_asks_what_to_change_with_the_records_fields_as_options(
    said: str,
) -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        response = await say(rt, said)
        (result,) = response.results
        assert (result.status, result.reason) == (
            ActStatus.NEEDS_CLARIFICATION,
            ACT_CHANGE_UNNAMED,
        )
        (card,) = cards(response, "choose_change")
        labels = [o["label"] for o in card["options"]]
        assert {"travel date", "return date", "note", "budget", "add extra", "rebook"} <= set(
            labels
        )
        assert "submit" not in labels and "withdraw" not in labels  # not changes of the record
        card_block = next(b for b in response.blocks if b.kind is BlockKind.CARD)
        assert card_block.text.startswith("What would you like to change on")
        assert await committed(store) == []


async def test_the_next_turns_answer_naming_a_field_and_a_value_completes_the_change() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "I want to change something on my booking")
        (card,) = cards(asked, "choose_change")
        answered = await say(rt, "the return date, 18 March")
        assert await committed(store) == [
            ("field_set", {"field": "return_date", "value": "2026-03-18"})
        ]
        # The question is answered: a click on it now changes nothing.
        late = await click(rt, card, "note")
        assert [b.code for b in late.blocks] == ["turnframe.notice.card_stale"]
        assert answered.events


async def test_a_change_on_a_record_named_by_its_number_asks_there_and_a_field_answer_commits() -> (
    None
):
    async with desk_runtime("refund-desk") as (rt, store):
        asked = await say(rt, "I want to change something on order 1001")
        (card,) = cards(asked, "choose_change")
        assert {"note", "contact email", "refund"} <= {o["label"] for o in card["options"]}
        await say(rt, "the contact email: ana@example.com")
        events = await committed(store)
        assert events == [("field_set", {"field": "contact_email", "value": "ana@example.com"})]


async def test_a_click_on_a_field_asks_its_value_and_the_next_turn_gives_it() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "can you update my booking?")
        (card,) = cards(asked, "choose_change")
        chosen = await click(rt, card, "return date")
        (value_card,) = cards(chosen, "provide_argument")
        assert value_card["argument"] == "return_date"
        assert await committed(store) == []
        await say(rt, "18 March")
        assert await committed(store) == [
            ("field_set", {"field": "return_date", "value": "2026-03-18"})
        ]


async def test_a_click_on_an_operation_asks_for_its_arguments_and_never_runs_it_yet() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "I need to fix a detail")
        (card,) = cards(asked, "choose_change")
        chosen = await click(rt, card, "rebook")
        (leg_card,) = cards(chosen, "provide_argument")
        assert [o["label"] for o in leg_card["options"]] == ["outbound", "return"]
        assert await committed(store) == []


async def test_a_field_named_without_a_value_is_asked_on_a_card_the_next_turn_answers() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "change the budget")
        (card,) = cards(asked, "provide_argument")
        assert card["argument"] == "budget"
        await say(rt, "1500 euros")
        assert await committed(store) == [("field_set", {"field": "budget", "value": 150000})]


async def test_a_free_text_value_given_in_words_waits_for_a_card_that_shows_it() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        await say(rt, "change the note")
        answered = await say(rt, "window seat, 2 bags")
        (card,) = cards(answered, "confirm_command")
        shown = card["commands"][0]["arguments"]
        assert shown == {"field": "note", "value": "window seat, 2 bags"}
        await click(rt, card, "confirm")
        assert await committed(store) == [("field_set", {"field": "note", "value": shown["value"]})]


async def test_a_few_plain_words_answering_what_the_note_should_say_commit_it() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        await say(rt, "change the note")
        await say(rt, "window seat")
        assert await committed(store) == [("field_set", {"field": "note", "value": "window seat"})]


async def test_thanks_after_a_question_for_a_free_text_value_is_never_taken_for_the_value() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        await say(rt, "change the note")
        await say(rt, "thanks!")
        assert await committed(store) == []


async def test_a_models_plan_that_asks_what_to_change_is_answered_by_its_next_plan() -> None:
    first = "I'd like to change something"
    second = "the note: aisle seat"
    ask = UnnamedChangeAct(target=LISBON, evidence=span(first, "change something"))
    note = SetFieldAct(
        target=LISBON, field="note", value="aisle seat", evidence=span(second, "aisle seat")
    )
    provider = ScriptedProvider(
        name="scripted",
        script=[
            Answer(plan_json(UserTurnPlan(acts=(ask,)))),
            Answer(plan_json(UserTurnPlan(acts=(note,)))),
        ],
    )
    async with desk_runtime("travel-desk", provider=provider) as (rt, store):
        asked = await say(rt, first)
        assert cards(asked, "choose_change")
        await say(rt, second)
        assert await committed(store) == [("field_set", {"field": "note", "value": "aisle seat"})]


def test_the_strict_parser_refuses_an_unnamed_change_with_an_empty_name_or_a_bad_link() -> None:
    turn = UserTurn(
        session_id="s", account_id="a", turn_id="t", text="fix it twice", clock=CLOCK, locale="en"
    )
    evidence = [{"start": 0, "end": 6, "text": "fix it"}]
    empty = {"acts": [{"kind": "unnamed_change", "about": "", "evidence": evidence}]}
    with pytest.raises(PlanRejected) as refused:
        parse_plan(plan_text(empty), turn)
    assert [(p.act_index, p.field) for p in refused.value.problems] == [(0, "about")]
    op = {"kind": "operation", "target": {"by": "label", "label": "X"}, "operation": "fix"}
    forward = {"acts": [{**op, "repeats": 1, "evidence": evidence}, {**op, "evidence": evidence}]}
    with pytest.raises(PlanRejected) as refused:
        parse_plan(plan_text(forward), turn)
    assert [(p.act_index, p.field) for p in refused.value.problems] == [(0, "repeats")]
    unknown = {"acts": [{"kind": "unnamed_change", "subject": "x", "evidence": evidence}]}
    with pytest.raises(PlanRejected):
        parse_plan(plan_text(unknown), turn)


def plan_text(data: dict[str, Any]) -> str:
    import json

    return json.dumps(data)


# -- a value disowned while its card is open ------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "argument"),
    [
        ("no wait, wrong amount", "amount"),
        ("hmm that's not right", "amount"),
        ("actually no, the amount is wrong", "amount"),
        ("wait, make it something else", "amount"),
    ],
)
async def test_a_disowned_value_expires_the_open_card_and_asks_for_the_right_one(
    said: str, argument: str
) -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        shown = await say(rt, "refund 40 euros on order 1001")
        (old,) = cards(shown, "confirm_command")
        asked = await say(rt, said)
        (result,) = asked.results
        assert (result.status, result.reason) == (
            ActStatus.NEEDS_CLARIFICATION,
            ACT_VALUE_DISOWNED,
        )
        assert cards(asked, "provide_argument")[0]["argument"] == argument
        stale = await click(rt, old, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        assert await committed(store) == []
        corrected = await say(rt, "30 euros")
        (card,) = cards(corrected, "confirm_command")
        assert card["commands"][0]["arguments"]["amount"] == 3000


@pytest.mark.parametrize(
    ("said", "amount"),
    [("wait, make it the full amount instead", 12000), ("no, make it half instead", 6000)],
)
async def test_a_share_said_as_a_correction_amends_the_open_card_never_confirms_the_old_one(
    said: str, amount: int
) -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        shown = await say(rt, "Refund 60 euros on 1001")
        (old,) = cards(shown, "confirm_command")
        amended = await say(rt, said)
        (card,) = cards(amended, "confirm_command")
        assert card["commands"][0]["arguments"]["amount"] == amount
        stale = await click(rt, old, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        await click(rt, card, "confirm")
        assert await committed(store) == [("refund_requested", {"amount": amount, "reason": ""})]


async def test_the_other_one_after_a_card_asks_which_part_was_wrong_and_the_old_card_is_stale() -> (
    None
):
    async with desk_runtime("travel-desk") as (rt, store):
        shown = await say(rt, "rebook the return flight to March 20")
        (old,) = cards(shown, "confirm_command")
        asked = await say(rt, "actually no, the other one")
        (choose,) = cards(asked, "choose_change")
        assert {o["label"] for o in choose["options"]} == {"leg", "date"}
        chosen = await click(rt, choose, "leg")
        (leg,) = cards(chosen, "provide_argument")
        picked = await click(rt, leg, "outbound")
        (card,) = cards(picked, "confirm_command")
        assert card["commands"][0]["arguments"] == {"leg": "outbound", "date": "2026-03-20"}
        stale = await click(rt, old, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        assert await committed(store) == []


async def test_a_card_with_several_requests_expires_whole_when_its_values_are_disowned() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        shown = await say(rt, "rebook the return flight to March 20 and withdraw the trip")
        (old,) = cards(shown, "confirm_command")
        assert len(old["commands"]) == 2
        asked = await say(rt, "hmm that's not right")
        (result,) = asked.results
        assert (result.status, result.reason) == (
            ActStatus.NEEDS_CLARIFICATION,
            ACT_VALUE_DISOWNED,
        )
        stale = await click(rt, old, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        assert await committed(store) == []


async def test_a_models_plan_that_disowns_the_open_cards_value_expires_it() -> None:
    first, second = "refund 40 euros on order 1001", "that amount is not right"
    refund = OperationAct(
        target=LabelTarget(label="Order 1001"),
        operation="refund",
        args={"amount": "40 euros"},
        evidence=span(first, first),
    )
    disown = UnnamedChangeAct(pending=True, about="amount", evidence=span(second, second))
    provider = ScriptedProvider(
        name="scripted",
        script=[
            Answer(plan_json(UserTurnPlan(acts=(refund,)))),
            Answer(plan_json(UserTurnPlan(acts=(disown,)))),
        ],
    )
    async with desk_runtime("refund-desk", provider=provider) as (rt, store):
        shown = await say(rt, first)
        (old,) = cards(shown, "confirm_command")
        asked = await say(rt, second)
        assert cards(asked, "provide_argument")[0]["argument"] == "amount"
        stale = await click(rt, old, "confirm")
        assert [b.code for b in stale.blocks] == ["turnframe.notice.card_stale"]
        assert await committed(store) == []


async def test_a_disowning_turn_with_no_card_open_asks_and_commits_nothing() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        response = await say(rt, "hmm that's not right")
        assert [r.status for r in response.results] == [ActStatus.NEEDS_CLARIFICATION]
        assert await committed(store) == []


# -- two equal requests in one turn ----------------------------------------------------------


async def test_an_extra_added_twice_is_two_commands_each_with_its_own_key() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        response = await say(rt, "add breakfast twice")
        assert [r.status for r in response.results] == [ActStatus.READY_TO_EXECUTE] * 2
        assert [e for e in await committed(store)] == [
            (
                "extra_added",
                {"item": "breakfast", "quantity": 1, "unit_price": None, "paid_by": "traveller"},
            )
        ] * 2
        ids = [c for r in response.results for c in r.command_ids]
        assert len(set(ids)) == 2


@pytest.mark.parametrize(
    "said", ["add a kayak for me and one for Pedro", "add a sim card for me, and one for Joana"]
)
async def test_one_for_me_and_one_for_someone_else_adds_two(said: str) -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        response = await say(rt, said)
        assert [r.status for r in response.results] == [ActStatus.READY_TO_EXECUTE] * 2
        items = [e[1]["item"] for e in await committed(store)]
        assert len(items) == 2 and items[0] == items[1] and items[0] in ("kayak", "sim card")


async def test_one_at_a_price_for_me_and_one_for_someone_else_adds_both_at_that_price() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        await say(rt, "add a kayak at 40 euros for me and one for Pedro")
        added = [(e[1]["item"], e[1]["unit_price"]) for e in await committed(store)]
        assert added == [("kayak", 4000), ("kayak", 4000)]


async def test_an_estimated_price_for_two_is_asked_about_and_nothing_is_added() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "add a kayak at about 40 euros for me and one for Pedro")
        assert cards(asked, "provide_argument")
        assert await committed(store) == []


async def test_two_equal_requests_from_a_models_plan_stay_two_only_when_it_says_so() -> None:
    text = "add a transfer. add a transfer."
    first = span(text, "add a transfer.")
    second_start = text.index("add", 3)
    from turnframe.plan import Evidence

    second = (Evidence(start=second_start, end=len(text), text=text[second_start:]),)
    transfer = OperationAct(
        target=LISBON, operation="add_extra", args={"item": "transfer"}, evidence=first
    )
    restated = OperationAct(
        target=LISBON, operation="add_extra", args={"item": "transfer"}, evidence=second
    )
    for repeats, added in ((None, 1), (0, 2)):
        plan = UserTurnPlan(acts=(transfer, attrsevolve(restated, repeats=repeats)))
        provider = ScriptedProvider(name="scripted", script=[Answer(plan_json(plan))])
        async with desk_runtime("travel-desk", provider=provider) as (rt, store):
            await say(rt, text)
            assert len(await committed(store)) == added


def attrsevolve(act: OperationAct, **changes: Any) -> OperationAct:
    import attrs

    return attrs.evolve(act, **changes)


# -- the return leg's date ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "said", ["when do we fly back", "what day is the return", "when's the way back"]
)
async def test_a_question_about_the_way_back_answers_the_return_date_not_the_departure(
    said: str,
) -> None:
    async with desk_runtime("travel-desk") as (rt, _):
        response = await say(rt, said)
        answer = _answer_texts(response)
        assert "returns on" in answer and "leaves on" not in answer


async def test_when_do_we_fly_still_answers_the_departure() -> None:
    async with desk_runtime("travel-desk") as (rt, _):
        response = await say(rt, "when do we fly?")
        assert "leaves on" in _answer_texts(response)


# -- relative moves count from the record as it is (ADR 0023) ---------------------------------


async def test_a_relative_move_counts_from_the_record_as_it_is_when_the_turn_is_reduced() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        first = await say(rt, "rebook the return flight to March 20")
        (card,) = cards(first, "confirm_command")
        await click(rt, card, "confirm")
        moved = await say(rt, "move the return flight two days later")
        (later,) = cards(moved, "confirm_command")
        assert later["commands"][0]["arguments"] == {"leg": "return", "date": "2026-03-22"}
        assert [e[1]["date"] for e in await committed(store)] == ["2026-03-20"]


async def test_a_relative_move_with_no_leg_to_count_from_is_asked_for_never_guessed() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        response = await say(rt, "rebook it two days later")
        assert cards(response, "confirm_command") == []
        assert [r.status for r in response.results] == [ActStatus.NEEDS_CLARIFICATION]
        assert await committed(store) == []


@pytest.mark.parametrize(
    "point",
    [
        FaultPoint.BEFORE_JOURNAL_INSERT,
        FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT,
        FaultPoint.INSIDE_COMMIT_BUNDLE,
    ],
)
async def test_two_equal_requests_commit_exactly_twice_across_a_crash_and_recovery(
    point: FaultPoint,
) -> None:
    async with SqliteStore.open(":memory:") as inner:
        await seed(inner, "travel-desk")
        store = FaultyStore(inner, FaultPlan.crash(point))
        async with desk_runtime("travel-desk", store=store) as (rt, _):
            response = await say(rt, "add breakfast twice")
        assert [h.point for h in store.fired] == [point]
        assert response.phase is TurnPhase.DELIVERED
        assert [e.type for e in await inner.list_events(ACCOUNT)] == ["extra_added"] * 2
        journal = {c for r in response.results for c in r.command_ids}
        assert len(journal) == 2
