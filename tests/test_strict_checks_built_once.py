"""The shape checks built once per type, and a sound plan built once, decide what the checks
made value by value decide: the same problems, messages and order, the same plan."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe import plan as plans
from turnframe._strict import ShapeProblem, _check, check_shape
from turnframe.plan import Act, Evidence, PlanRejected, UserTurnPlan, parse_plan
from turnframe.testing import make_turn

TEXT = "Set Bob's note to aisle, no wait window. Cancel that. Open a trip for Ann, blorp"


def _span(fragment: str) -> dict[str, Any]:
    start = TEXT.index(fragment)
    return {"start": start, "end": start + len(fragment), "text": fragment}


SOUND: dict[str, Any] = {
    "acts": [
        {
            "kind": "set_field",
            "target": {"by": "label", "label": "Bob"},
            "field": "note",
            "value": "aisle",
            "evidence": [_span("Set Bob's note to aisle")],
        },
        {
            "kind": "correct",
            "corrects": 0,
            "value": "window",
            "evidence": [_span("no wait window")],
        },
        {"kind": "cancel", "cancels": 0, "evidence": [_span("Cancel that")]},
        {"kind": "start_case", "workflow": "trip", "label": "Ann", "evidence": [_span("Open")]},
        {
            "kind": "set_field",
            "target": {"by": "new_case", "start_act": 3},
            "field": "note",
            "value": "x",
            "evidence": [_span("Ann")],
        },
        {
            "kind": "operation",
            "target": {"by": "label", "label": "Bob"},
            "operation": "book",
            "args": {"seat": "aisle"},
            "evidence": [_span("Bob")],
        },
        {
            "kind": "operation",
            "target": {"by": "token", "token": "t1"},
            "operation": "book",
            "repeats": 5,
            "evidence": [_span("Bob")],
        },
        {
            "kind": "constraint",
            "forbids": "no_operation",
            "operation": "book",
            "evidence": [_span("wait")],
        },
    ],
    "not_understood": [_span("blorp")],
    "units": [{"acts": [0, 3]}],
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=9),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "aisle", "set_field", "label", "new_case", "no_operation", "x"]),
)


@st.composite
def near_plans(draw: st.DrawFn) -> Any:
    """The sound plan with a few of its values, keys or items replaced, dropped or added."""

    def vary(value: Any) -> Any:
        choice = draw(st.integers(min_value=0, max_value=19))
        if choice == 0:
            return draw(scalars)
        if isinstance(value, dict):
            out = {k: vary(v) for k, v in value.items()}
            if out and choice == 1:
                out.pop(draw(st.sampled_from(sorted(out))))
            if choice == 2:
                out[draw(st.sampled_from(["extra", "kind", "by", "start", "evidence"]))] = draw(
                    scalars
                )
            return out
        if isinstance(value, list):
            out_list = [vary(v) for v in value]
            if out_list and choice == 3:
                out_list.pop(draw(st.integers(min_value=0, max_value=len(out_list) - 1)))
            if choice == 4:
                out_list.append(draw(scalars))
            return out_list
        return value

    return vary(json.loads(json.dumps(SOUND)))


def _generic(data: Any, tp: Any) -> list[ShapeProblem]:
    out: list[ShapeProblem] = []
    _check(data, tp, (), out)
    return out


@settings(max_examples=400, deadline=None)
@given(data=near_plans())
def test_a_check_built_once_per_type_finds_what_the_check_by_value_finds(data: Any) -> None:
    assert check_shape(data, UserTurnPlan) == _generic(data, UserTurnPlan)
    acts = data.get("acts") if isinstance(data, dict) else None
    for act in acts if isinstance(acts, list) else []:
        assert check_shape(act, Act) == _generic(act, Act)
    assert check_shape(data, tuple[Evidence, ...]) == _generic(data, tuple[Evidence, ...])


def _outcome(raw: str) -> Any:
    try:
        return parse_plan(raw, make_turn(TEXT))
    except PlanRejected as rejected:
        return [(p.act_index, p.field, p.message) for p in rejected.problems]


@settings(max_examples=400, deadline=None)
@given(data=near_plans())
def test_a_sound_plan_built_once_is_accepted_or_refused_as_its_acts_one_by_one_are(
    data: Any,
) -> None:
    raw = json.dumps(data)
    built_once = _outcome(raw)
    sound_plan = plans._sound_plan
    plans._sound_plan = lambda data, text: None  # type: ignore[assignment]
    try:
        act_by_act = _outcome(raw)
    finally:
        plans._sound_plan = sound_plan
    assert built_once == act_by_act


@pytest.mark.parametrize(
    ("answer", "searched"),
    [
        ('{"acts": [], "not_understood": [{"start": 0, "end": 1, "text": "\\ud800"}]}', True),
        ('{"acts": [], "not_understood": [{"start": 0, "end": 1, "text": "\\\\ud800"}]}', True),
        ('{"acts": [], "not_understood": [{"start": 0, "end": 1, "text": "S"}]}', False),
    ],
)
def test_only_an_answer_with_a_unicode_escape_is_searched_for_lone_surrogates(
    answer: str, searched: bool
) -> None:
    assert plans._certainly_text(answer) is not searched
    assert plans._certainly_text(answer.encode("utf-8")) is not searched


def test_the_sound_plan_is_accepted_whole() -> None:
    plan = parse_plan(json.dumps(SOUND), make_turn(TEXT))
    assert isinstance(plan, UserTurnPlan) and len(plan.acts) == len(SOUND["acts"])
