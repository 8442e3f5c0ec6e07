"""A workflow refines the same-turn rules: it can hold acts back, never let one through."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.plan import LabelTarget, OperationAct, SetFieldAct, UserTurnPlan
from turnframe.reduce.refine import RefinementError
from turnframe.results import ActStatus, Rejection
from turnframe.testing import TRIP_WORKFLOW, make_turn, reduce_now, seeded_directory, span
from turnframe.workflow import ActOnCase, HoldBack

TEXT = "Set Bob's note to aisle and submit it"
ACTS = (
    SetFieldAct(
        target=LabelTarget(label="Bob"),
        field="note",
        value="aisle",
        evidence=span(TEXT, "note to aisle"),
    ),
    OperationAct(
        target=LabelTarget(label="Bob"), operation="submit", evidence=span(TEXT, "submit")
    ),
)
NOT_WITH_A_CHANGE = Rejection(
    code="trip.submit_alone", message="Submit in a message of its own, after the changes."
)


def submit_alone(acts: Sequence[ActOnCase]) -> list[HoldBack]:
    changes = [a for a in acts if isinstance(a.act, SetFieldAct)]
    return [
        HoldBack(act_index=a.act_index, reason=NOT_WITH_A_CHANGE, clarify=True)
        for a in acts
        if isinstance(a.act, OperationAct) and a.act.operation == "submit" and changes
    ]


def _reduce(*refinements: object) -> object:
    workflow = attrs.evolve(TRIP_WORKFLOW, refinements=tuple(refinements))
    return reduce_now(
        UserTurnPlan(acts=ACTS),
        make_turn(TEXT),
        seeded_directory(),
        workflows={workflow.name: workflow},
    )


def test_a_refinement_holds_an_act_back_with_the_workflows_reason() -> None:
    reduction = _reduce(submit_alone)
    change, submit = reduction.results  # type: ignore[attr-defined]
    assert change.status is ActStatus.READY_TO_EXECUTE
    assert (submit.status, submit.reason) == (ActStatus.NEEDS_CLARIFICATION, "trip.submit_alone")
    commands = [c.name for b in reduction.batches for c in b.commands]  # type: ignore[attr-defined]
    assert commands == ["set_field"]


def test_without_refinements_the_default_rules_decide() -> None:
    reduction = _reduce()
    assert {r.status for r in reduction.results} == {ActStatus.READY_TO_EXECUTE}  # type: ignore[attr-defined]


def test_a_refinement_naming_an_act_it_was_not_shown_is_a_typed_error() -> None:
    def wild(acts: Sequence[ActOnCase]) -> list[HoldBack]:
        return [HoldBack(act_index=99, reason=NOT_WITH_A_CHANGE)]

    with pytest.raises(RefinementError, match="act 99"):
        _reduce(wild)


@given(held=st.sets(st.sampled_from([0, 1])), clarify=st.booleans())
@settings(max_examples=20, deadline=None)
def test_a_refinement_never_lets_more_through_than_the_default_rules(
    held: set[int], clarify: bool
) -> None:
    def hold(acts: Sequence[ActOnCase]) -> list[HoldBack]:
        return [
            HoldBack(act_index=a.act_index, reason=NOT_WITH_A_CHANGE, clarify=clarify)
            for a in acts
            if a.act_index in held
        ]

    def ready(reduction: object) -> set[int]:
        results = reduction.results  # type: ignore[attr-defined]
        return {r.act_index for r in results if r.status is ActStatus.READY_TO_EXECUTE}

    refined, default = _reduce(hold), _reduce()
    assert ready(refined) <= ready(default)
    assert ready(refined).isdisjoint(held)
