"""A plan that can ask (issue 12): missing and unreadable arguments, proposals, conditional
acts and atomic units, through the runtime with the sample desks."""

from __future__ import annotations

from typing import Any

import pytest
from desk_kit import cards, click, committed, desk_runtime, say

from turnframe.plan import (
    ActCondition,
    AtomicUnit,
    LabelTarget,
    OperationAct,
    SetFieldAct,
    UserTurnPlan,
)
from turnframe.response import BlockKind
from turnframe.results import (
    ACT_CONDITION_NOT_MET,
    ACT_MISSING_ARGUMENT,
    ACT_REJECTED_WITH_UNIT,
    ACT_UNREADABLE_ARGUMENT,
    ActStatus,
)
from turnframe.runtime import Runtime
from turnframe.testing import plan_json, span
from turnframe.testing.scripted import Answer, ScriptedProvider

pytestmark = pytest.mark.anyio

LISBON = LabelTarget(label="Lisbon")



async def _click(rt: Runtime, response: Any, label: str, *, session_id: str = "s-1") -> Any:
    """Click ``label`` on the first card the response shows."""
    card = next(b.data for b in response.blocks if b.kind is BlockKind.CARD)
    return await click(rt, card, label, session_id=session_id)



async def test_a_missing_argument_is_asked_for_and_the_next_turns_answer_completes_the_act() -> (
    None
):
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "rebook the return flight")
        (result,) = asked.results
        assert (result.status, result.reason) == (
            ActStatus.NEEDS_CLARIFICATION,
            ACT_MISSING_ARGUMENT,
        )
        notice = next(b for b in asked.blocks if b.code == "turnframe.notice.needs_argument")
        assert notice.data["argument"] == "date"
        assert cards(asked, "provide_argument")[0]["argument"] == "date"
        answered = await say(rt, "March 22")
        (card,) = cards(answered, "confirm_command")
        (command,) = card["commands"]
        assert command["arguments"] == {"leg": "return", "date": "2026-03-22"}
        assert command["shown"]["date"] == "Sun 2026-03-22"
        await _click(rt, answered, "confirm")
        assert await committed(store) == [
            ("rebooked", {"leg": "return", "date": "2026-03-22", "flight": None})
        ]


async def test_an_argument_with_finite_values_is_asked_with_them_as_options_a_click_answers() -> (
    None
):
    async with desk_runtime("travel-desk") as (rt, store):
        asked = await say(rt, "rebook the flight to March 20")
        (card,) = cards(asked, "provide_argument")
        assert [o["label"] for o in card["options"]] == ["outbound", "return"]
        chosen = await _click(rt, asked, "return")
        (confirm,) = cards(chosen, "confirm_command")
        assert confirm["commands"][0]["arguments"] == {"leg": "return", "date": "2026-03-20"}
        assert await committed(store) == []


async def test_a_workflows_proposal_fills_a_missing_amount_and_the_card_shows_it() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        response = await say(rt, "refund order 1001")
        (card,) = cards(response, "confirm_command")
        (command,) = card["commands"]
        assert command["arguments"] == {"amount": 12000}
        assert (command["shown"], command["proposed"]) == ({"amount": "120.00 EUR"}, ["amount"])
        card_block = next(b for b in response.blocks if b.kind is BlockKind.CARD)
        assert "amount 120.00 EUR (proposed)" in card_block.text
        await _click(rt, response, "confirm")
        assert await committed(store) == [("refund_requested", {"amount": 12000, "reason": ""})]


async def test_an_amount_in_another_currency_is_asked_about_never_converted() -> None:
    async with desk_runtime("refund-desk") as (rt, store):
        response = await say(rt, "refund 20 dollars on order 1001")
        (result,) = response.results
        assert result.reason == ACT_UNREADABLE_ARGUMENT
        assert cards(response, "confirm_command") == []
        assert cards(response, "provide_argument")[0]["argument"] == "amount"
        assert await committed(store) == []


def _scripted(text: str, plan: UserTurnPlan) -> ScriptedProvider:
    return ScriptedProvider(name="scripted", script=[Answer(plan_json(plan))])


async def test_a_conditional_act_runs_when_its_condition_holds_at_reduction_time() -> None:
    text = "If the discount is still valid, submit the trip"
    submit = OperationAct(
        target=LISBON,
        operation="submit",
        evidence=span(text, "submit the trip"),
        condition=ActCondition(name="discount_valid"),
    )
    provider = _scripted(text, UserTurnPlan(acts=(submit,)))
    async with desk_runtime("travel-desk", provider=provider) as (rt, store):
        response = await say(rt, text)
        assert [r.status for r in response.results] == [ActStatus.READY_TO_EXECUTE]
        assert await committed(store) == [("submitted", {})]


async def test_the_branch_not_taken_changes_nothing_and_says_why_with_a_stable_reason() -> None:
    text = "If the discount has expired, withdraw the trip; otherwise add a note: keep it"
    withdraw = OperationAct(
        target=LISBON,
        operation="withdraw",
        evidence=span(text, "withdraw the trip"),
        condition=ActCondition(name="discount_valid", holds=False),
    )
    note = SetFieldAct(
        target=LISBON,
        field="note",
        value="keep it",
        evidence=span(text, "add a note: keep it"),
        condition=ActCondition(name="discount_valid"),
    )
    provider = _scripted(text, UserTurnPlan(acts=(withdraw, note)))
    async with desk_runtime("travel-desk", provider=provider) as (rt, store):
        response = await say(rt, text)
        first, second = response.results
        assert (first.status, first.reason) == (ActStatus.NO_CHANGE, ACT_CONDITION_NOT_MET)
        assert first.detail == "discount valid holds"
        assert second.status is ActStatus.READY_TO_EXECUTE
        assert any(b.code == "turnframe.notice.condition_not_met" for b in response.blocks)
        assert await committed(store) == [("field_set", {"field": "note", "value": "keep it"})]


async def test_the_rules_interpreter_reads_a_conditional_and_its_otherwise() -> None:
    async with desk_runtime("travel-desk") as (rt, store):
        response = await say(
            rt, "If the discount has expired, withdraw the trip; otherwise add a note: on time"
        )
        assert [r.reason for r in response.results] == [
            ACT_CONDITION_NOT_MET,
            "turnframe.act.ready",
        ]
        assert await committed(store) == [("field_set", {"field": "note", "value": "on time"})]


async def test_acts_of_one_atomic_unit_commit_together_or_not_at_all() -> None:
    text = "Add 40 snorkel sets and set the note to snorkel; set the budget to 900 euros"
    extra = OperationAct(
        target=LISBON,
        operation="add_extra",
        args={"item": "snorkel sets", "quantity": "40"},
        evidence=span(text, "Add 40 snorkel sets"),
    )
    note = SetFieldAct(
        target=LISBON, field="note", value="snorkel", evidence=span(text, "set the note to snorkel")
    )
    budget = SetFieldAct(
        target=LISBON,
        field="budget",
        value="900 euros",
        evidence=span(text, "set the budget to 900 euros"),
    )
    plan = UserTurnPlan(acts=(extra, note, budget), units=(AtomicUnit(acts=(0, 1)),))
    async with desk_runtime("travel-desk", provider=_scripted(text, plan)) as (rt, store):
        response = await say(rt, text)
        refused, pulled, alone = response.results
        assert refused.rejection is not None and refused.rejection.code == "travel.extra_quantity"
        assert (pulled.status, pulled.reason) == (ActStatus.REJECTED, ACT_REJECTED_WITH_UNIT)
        assert alone.status is ActStatus.READY_TO_EXECUTE
        assert await committed(store) == [("field_set", {"field": "budget", "value": 90000})]


async def test_an_atomic_unit_with_an_act_to_confirm_waits_whole_behind_one_card() -> None:
    text = "Set the note to moved and rebook the return to March 20"
    note = SetFieldAct(
        target=LISBON, field="note", value="moved", evidence=span(text, "Set the note to moved")
    )
    rebook = OperationAct(
        target=LISBON,
        operation="rebook",
        args={"leg": "return", "date": "March 20"},
        evidence=span(text, "rebook the return to March 20"),
    )
    plan = UserTurnPlan(acts=(note, rebook), units=(AtomicUnit(acts=(0, 1)),))
    async with desk_runtime("travel-desk", provider=_scripted(text, plan)) as (rt, store):
        response = await say(rt, text)
        assert [r.status for r in response.results] == [ActStatus.AWAITING_CONFIRMATION] * 2
        (card,) = cards(response, "confirm_command")
        assert [c["operation"] for c in card["commands"]] == ["set_field", "rebook"]
        assert await committed(store) == []
        await _click(rt, response, "confirm")
        assert [t for t, _ in await committed(store)] == ["field_set", "rebooked"]


async def test_an_atomic_unit_whose_act_must_be_asked_about_holds_its_other_acts_back() -> None:
    text = "Set the note to moved and rebook the return"
    note = SetFieldAct(
        target=LISBON, field="note", value="moved", evidence=span(text, "Set the note to moved")
    )
    rebook = OperationAct(
        target=LISBON,
        operation="rebook",
        args={"leg": "return"},
        evidence=span(text, "rebook the return"),
    )
    plan = UserTurnPlan(acts=(note, rebook), units=(AtomicUnit(acts=(0, 1)),))
    async with desk_runtime("travel-desk", provider=_scripted(text, plan)) as (rt, store):
        response = await say(rt, text)
        pulled, asked = response.results
        assert (pulled.reason, asked.reason) == (ACT_REJECTED_WITH_UNIT, ACT_MISSING_ARGUMENT)
        assert await committed(store) == []
