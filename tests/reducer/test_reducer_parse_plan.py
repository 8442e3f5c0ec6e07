"""Strict, all-or-nothing parsing of an interpreter's plan."""

from __future__ import annotations

import json
from typing import Any

import pytest
from reducer_kit import BOB, Turn

from turnframe.plan import (
    CorrectAct,
    NewCaseTarget,
    PlanProblem,
    PlanRejected,
    QuestionAct,
    SetFieldAct,
    StartCaseAct,
    UserTurnPlan,
    parse_plan,
)
from turnframe.reduce import reduce
from turnframe.testing import build_context_now, make_turn, plan_json, seeded_directory, span

TEXT = "Set Bob's note to hi. Is it done?"
TURN = make_turn(TEXT)


def _set_note(**overrides: Any) -> dict[str, Any]:
    act: dict[str, Any] = {
        "kind": "set_field",
        "target": {"by": "label", "label": "Bob"},
        "field": "note",
        "value": "hi",
        "evidence": [{"start": 0, "end": 20, "text": "Set Bob's note to hi"}],
    }
    act.update(overrides)
    return act


def _question(**overrides: Any) -> dict[str, Any]:
    act: dict[str, Any] = {
        "kind": "question",
        "evidence": [{"start": 22, "end": 33, "text": "Is it done?"}],
    }
    act.update(overrides)
    return act


def _problems(data: Any) -> list[PlanProblem]:
    raw = data if isinstance(data, str | bytes) else json.dumps(data)
    with pytest.raises(PlanRejected) as caught:
        parse_plan(raw, TURN)
    assert caught.value.code == "turnframe.plan.rejected"
    return list(caught.value.problems)


def _where(problems: list[PlanProblem]) -> list[tuple[int | None, str]]:
    return [(p.act_index, p.field) for p in problems]


def test_a_well_formed_plan_parses_to_the_same_plan_it_was_written_from() -> None:
    plan = UserTurnPlan(
        acts=(
            SetFieldAct(
                target=BOB, field="note", value="hi", evidence=span(TEXT, "Set Bob's note to hi")
            ),
            QuestionAct(evidence=span(TEXT, "Is it done?")),
        )
    )
    assert parse_plan(plan_json(plan), TURN) == plan
    assert parse_plan(plan_json(plan).encode(), TURN) == plan


def test_a_malformed_second_act_rejects_the_whole_plan() -> None:
    problems = _problems({"acts": [_set_note(), _question(hypothetical="yes")]})
    assert _where(problems) == [(1, "hypothetical")]


def test_two_problems_in_two_acts_are_both_reported() -> None:
    problems = _problems({"acts": [_set_note(value=5), _question(colour="red")]})
    assert _where(problems) == [(0, "value"), (1, "colour")]
    assert [p.message for p in problems] == ["expected a string, got number", "unknown field"]


def test_an_unknown_kind_is_rejected_with_the_kinds_it_could_have_been() -> None:
    (problem,) = _problems({"acts": [_set_note(kind="delete_everything")]})
    assert (problem.act_index, problem.field) == (0, "kind")
    assert "set_field" in problem.message


def test_a_missing_field_is_rejected() -> None:
    act = _set_note()
    del act["field"]
    assert _where(_problems({"acts": [act]})) == [(0, "field")]


def test_scalars_are_never_coerced() -> None:
    problems = _problems(
        {
            "acts": [
                _question(hypothetical="false"),
                _question(hypothetical=0),
                {"kind": "cancel", "cancels": True, "evidence": _question()["evidence"]},
                {"kind": "cancel", "cancels": "0", "evidence": _question()["evidence"]},
            ]
        }
    )
    assert _where(problems) == [
        (0, "hypothetical"),
        (1, "hypothetical"),
        (2, "cancels"),
        (3, "cancels"),
    ]


def test_an_unknown_target_kind_is_rejected() -> None:
    assert _where(_problems({"acts": [_set_note(target={"by": "recency"})]})) == [(0, "target.by")]


def test_a_link_to_a_non_existent_act_is_rejected() -> None:
    correct = {"kind": "correct", "corrects": 7, "value": "x", "evidence": _question()["evidence"]}
    assert _where(_problems({"acts": [_set_note(), correct]})) == [(1, "corrects")]


def test_a_correction_must_name_an_earlier_act() -> None:
    correct = {"kind": "correct", "corrects": 1, "value": "x", "evidence": _set_note()["evidence"]}
    assert _where(_problems({"acts": [correct, _set_note()]})) == [(0, "corrects")]
    itself = {"kind": "correct", "corrects": 0, "value": "x", "evidence": _set_note()["evidence"]}
    assert _where(_problems({"acts": [itself]})) == [(0, "corrects")]


def test_a_cancellation_of_a_question_is_rejected() -> None:
    cancel = {"kind": "cancel", "cancels": 0, "evidence": _set_note()["evidence"]}
    (problem,) = _problems({"acts": [_question(), cancel]})
    assert (problem.act_index, problem.field) == (1, "cancels")
    assert "'question'" in problem.message


def test_evidence_that_is_not_a_span_of_the_turns_text_is_rejected() -> None:
    wrong_text = [{"start": 0, "end": 20, "text": "Set Anna's note to h"}]
    outside = [{"start": 30, "end": 90, "text": "done?"}]
    problems = _problems({"acts": [_set_note(evidence=wrong_text), _question(evidence=outside)]})
    assert _where(problems) == [(0, "evidence[0]"), (1, "evidence[0]")]


def test_an_act_without_evidence_is_rejected() -> None:
    assert _where(_problems({"acts": [_question(evidence=[])]})) == [(0, "evidence")]


def test_a_new_case_target_must_name_a_start_case_act() -> None:
    act = _set_note(target={"by": "new_case", "start_act": 1})
    assert _where(_problems({"acts": [act, _question()]})) == [(0, "target.start_act")]


def test_a_not_understood_span_is_checked_like_evidence() -> None:
    plan = {"acts": [], "not_understood": [{"start": 0, "end": 3, "text": "Bob"}]}
    assert _where(_problems(plan)) == [(None, "not_understood[0]")]


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "not json",
        "[1, 2]",
        '{"acts": [], "acts": []}',
        '{"acts": [], "not_understood": NaN}',
        b"\xff\xfe",
        '{"actz": []}',
    ],
)
def test_an_answer_that_is_not_a_plan_object_is_rejected(raw: str | bytes) -> None:
    assert _problems(raw)


def test_the_rejection_message_names_the_act_and_the_field() -> None:
    with pytest.raises(PlanRejected) as caught:
        parse_plan(json.dumps({"acts": [_set_note(), _question(hypothetical=1)]}), TURN)
    assert "act 1, hypothetical" in str(caught.value)


def test_a_plan_built_in_code_with_a_forward_link_is_refused_by_reduce() -> None:
    t = Turn("Bob to Rome.")
    plan = UserTurnPlan(
        acts=(CorrectAct(corrects=0, value="x", evidence=span(t.text, "Bob to Rome")),)
    )
    context = build_context_now(plan, make_turn(t.text), seeded_directory())
    with pytest.raises(PlanRejected):
        reduce(plan, context)


def test_a_start_case_and_its_new_case_target_parse() -> None:
    text = "Open a trip to Oslo."
    plan = UserTurnPlan(
        acts=(
            StartCaseAct(workflow="trip", evidence=span(text, "Open a trip")),
            SetFieldAct(
                target=NewCaseTarget(start_act=0),
                field="destination",
                value="Oslo",
                evidence=span(text, "to Oslo"),
            ),
        )
    )
    assert parse_plan(plan_json(plan), make_turn(text)) == plan


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_an_answer_nested_a_thousand_levels_deep_is_a_rejected_plan_not_a_recursion_error(
    depth: int,
) -> None:
    deep_value = '{"acts": [' + "[" * depth + "]" * depth + "]}"
    for raw in ("[" * depth + "]" * depth, deep_value):
        [problem] = _problems(raw)
        assert problem.act_index is None


def test_a_lone_surrogate_in_a_plan_value_is_rejected_naming_the_field() -> None:
    raw = json.dumps({"acts": [_set_note(value="\ud800")]})  # written as the escape \ud800
    assert "\\ud800" in raw
    [problem] = _problems(raw)
    assert (problem.act_index, problem.field) == (0, "value")
    assert "surrogate" in problem.message
    problem.message.encode("utf-8")  # the rejection itself can be stored


def test_a_lone_surrogate_in_a_key_or_a_raw_answer_is_rejected_and_the_message_is_storable() -> (
    None
):
    for raw in ('{"acts": [], "\\udfff": 1}', '{"acts": [], "not_understood": "\ud800"}'):
        with pytest.raises(PlanRejected) as caught:
            parse_plan(raw, TURN)
        str(caught.value).encode("utf-8")


def test_an_unforeseen_failure_while_reading_an_answer_is_a_rejected_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import turnframe.plan as plan_module

    def broken(*_: object) -> list[object]:
        raise KeyError("a bug tripped by odd data")

    monkeypatch.setattr(plan_module, "check_shape", broken)
    [problem] = _problems({"acts": [_set_note()]})
    assert "KeyError" in problem.message


def test_a_plan_with_more_acts_than_any_turn_holds_is_rejected_before_reading_them() -> None:
    from turnframe.plan import MAX_ACTS

    [problem] = _problems({"acts": [_set_note()] * (MAX_ACTS + 1)})
    assert (problem.act_index, problem.field) == (None, "acts")
    assert str(MAX_ACTS) in problem.message


@pytest.mark.parametrize(
    ("units", "field"),
    [
        ([{"acts": [0, 1]}] * 257, "units"),
        ([{"acts": [0, 1] * 200}], "units[0].acts"),
    ],
)
def test_more_units_or_unit_members_than_any_turn_holds_are_rejected_before_reading_them(
    units: list[dict[str, list[int]]], field: str
) -> None:
    from turnframe.plan import MAX_ACTS

    assert len(units) > MAX_ACTS or len(units[0]["acts"]) > MAX_ACTS
    [problem] = _problems({"acts": [_set_note(), _set_note()], "units": units})
    assert (problem.act_index, problem.field) == (None, field)
    assert str(MAX_ACTS) in problem.message
