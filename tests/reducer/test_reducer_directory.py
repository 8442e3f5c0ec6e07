"""Resolving a plan's targets through a CaseDirectory, before the pure reduction."""

from __future__ import annotations

import pytest

from turnframe._converter import structure, unstructure
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.pipeline.directory import build_context, classify
from turnframe.plan import LabelTarget, QuestionAct, SetFieldAct, UserTurnPlan
from turnframe.reduce import ResolutionOutcome
from turnframe.testing import WORKFLOWS, make_turn, reduce_now, seeded_directory, span

both_backends = pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])


def _plan(text: str, *labels: str) -> UserTurnPlan:
    return UserTurnPlan(
        acts=tuple(
            SetFieldAct(
                target=LabelTarget(label=label), field="note", value="x", evidence=span(text, text)
            )
            for label in labels
        )
    )


@both_backends
@pytest.mark.anyio
async def test_each_target_resolves_to_exact_ambiguous_or_unknown(anyio_backend: str) -> None:
    text = "Notes for Bob, Anna and Zoe."
    plan = _plan(text, "Bob", "Anna", "Zoe", "bob")
    context = await build_context(
        plan, make_turn(text), directory=seeded_directory(), workflows=WORKFLOWS
    )
    assert [(r.target.label, r.outcome, r.case_ids) for r in context.resolutions] == [  # type: ignore[union-attr]
        ("Bob", ResolutionOutcome.EXACT, ("case-bob",)),
        ("Anna", ResolutionOutcome.AMBIGUOUS, ("case-anna-berlin", "case-anna-rome")),
        ("Zoe", ResolutionOutcome.UNKNOWN, ()),
        ("bob", ResolutionOutcome.EXACT, ("case-bob",)),
    ]
    assert sorted(context.cases) == ["case-anna-berlin", "case-anna-rome", "case-bob"]


@both_backends
@pytest.mark.anyio
async def test_a_case_of_another_account_is_never_loaded(anyio_backend: str) -> None:
    text = "A note for Dana."
    context = await build_context(
        _plan(text, "Dana"), make_turn(text), directory=seeded_directory(), workflows=WORKFLOWS
    )
    assert context.resolutions[0].outcome is ResolutionOutcome.UNKNOWN
    assert dict(context.cases) == {}


@both_backends
@pytest.mark.anyio
async def test_the_cases_of_the_answered_card_are_loaded(anyio_backend: str) -> None:
    first = reduce_now(_plan("Anna.", "Anna"), make_turn("Anna."), seeded_directory())
    (card,) = first.interactions
    response = InteractionResponse(
        interaction_id=card.interaction_id, option_id="case-2", expected_revision=0
    )
    text = "That one."
    plan = UserTurnPlan(acts=(QuestionAct(evidence=span(text, text)),))
    turn = make_turn(text, turn_id="turn-2", response=response)
    context = await build_context(
        plan, turn, directory=seeded_directory(), workflows=WORKFLOWS, open_interactions=[card]
    )
    assert sorted(context.cases) == ["case-anna-berlin", "case-anna-rome"]


def test_classify_sorts_and_deduplicates_candidates() -> None:
    resolution = classify(LabelTarget(label="x"), ["b", "a", "b"])
    assert (resolution.outcome, resolution.case_ids) == (ResolutionOutcome.AMBIGUOUS, ("a", "b"))


def test_a_user_turn_round_trips_through_the_one_converter() -> None:
    response = InteractionResponse(interaction_id="ia", option_id="confirm", expected_revision=3)
    turn = make_turn("hi", response=response)
    assert structure(unstructure(turn), UserTurn) == turn
