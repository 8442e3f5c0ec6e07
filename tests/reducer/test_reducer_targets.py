"""Target resolution: exact, ambiguous, unknown, tokens, new cases, other accounts."""

from __future__ import annotations

from reducer_kit import ANNA, BOB, Turn, commands

from turnframe.plan import (
    LabelTarget,
    NewCaseTarget,
    SetFieldAct,
    StartCaseAct,
    TokenTarget,
    UserTurnPlan,
)
from turnframe.results import (
    ACT_AMBIGUOUS_TARGET,
    ACT_CASE_NOT_STARTED,
    ACT_UNKNOWN_TARGET,
    ActStatus,
    InteractionKind,
    OptionAction,
)
from turnframe.testing import OTHER_ACCOUNT, make_turn, reduce_now, seeded_directory, span


def test_an_ambiguous_target_blocks_its_acts_while_another_cases_act_is_ready() -> None:
    t = Turn("Set Anna's note to hello and Bob's note to bye.")
    t.set(ANNA, "note", "hello", "Set Anna's note to hello")
    t.set(BOB, "note", "bye", "Bob's note to bye")
    reduction = t.reduce()
    assert [(r.status, r.reason) for r in reduction.results] == [
        (ActStatus.NEEDS_CLARIFICATION, ACT_AMBIGUOUS_TARGET),
        (ActStatus.READY_TO_EXECUTE, "turnframe.act.ready"),
    ]
    assert commands(reduction) == [("case-bob", "set_field", {"field": "note", "value": "bye"})]


def test_an_ambiguous_target_creates_one_select_target_card_listing_the_candidates() -> None:
    t = Turn("Set Anna's note to hello and her destination to Oslo.")
    t.set(ANNA, "note", "hello", "Set Anna's note to hello")
    t.set(ANNA, "destination", "Oslo", "her destination to Oslo")
    reduction = t.reduce()
    (card,) = reduction.interactions
    assert card.kind is InteractionKind.SELECT_TARGET
    assert [(o.action, o.case_id, o.label) for o in card.options] == [
        (OptionAction.SELECT_CASE, "case-anna-berlin", "Anna"),
        (OptionAction.SELECT_CASE, "case-anna-rome", "Anna"),
    ]
    assert [r.interaction_id for r in reduction.results] == [card.interaction_id] * 2
    assert card.pending_acts == t.plan.acts


def test_a_select_target_card_stores_the_corrected_value_not_the_first_one() -> None:
    t = Turn("Anna goes to Rome, no, Oslo.")
    t.set(ANNA, "destination", "Rome", "Anna goes to Rome")
    t.correct(0, "Oslo", "no, Oslo")
    (card,) = t.reduce().interactions
    (pending,) = card.pending_acts
    assert isinstance(pending, SetFieldAct) and pending.value == "Oslo"


def test_an_unknown_target_asks_for_clarification_and_never_guesses() -> None:
    t = Turn("Set Zoe's note to hi.")
    t.set(LabelTarget(label="Zoe"), "note", "hi", "Set Zoe's note to hi")
    reduction = t.reduce()
    assert [(r.status, r.reason) for r in reduction.results] == [
        (ActStatus.NEEDS_CLARIFICATION, ACT_UNKNOWN_TARGET)
    ]
    assert reduction.batches == () and reduction.interactions == ()


def test_another_accounts_case_answers_exactly_like_an_unknown_one() -> None:
    t = Turn("Set Dana's note to hi.")
    t.set(LabelTarget(label="Dana"), "note", "hi", "Set Dana's note to hi")
    unknown = Turn("Set Zoe's note to hi.")
    unknown.set(LabelTarget(label="Zoe"), "note", "hi", "Set Zoe's note to hi")
    assert t.reduce().results[0].reason == unknown.reduce().results[0].reason
    assert t.reduce().results[0].case_id is None


def test_a_label_shared_with_another_accounts_case_is_not_ambiguous() -> None:
    t = Turn("Set Bob's note to hi.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    assert t.reduce().results[0].case_id == "case-bob"


def test_an_opaque_token_resolves_through_the_turns_bindings() -> None:
    text = "Set the note to hi."
    plan = UserTurnPlan(
        acts=(
            SetFieldAct(
                target=TokenTarget(token="c1"),
                field="note",
                value="hi",
                evidence=span(text, "Set the note to hi"),
            ),
        )
    )
    reduction = reduce_now(
        plan, make_turn(text), seeded_directory(), case_tokens={"c1": "case-bob"}
    )
    assert reduction.results[0].case_id == "case-bob"


def test_a_token_bound_to_another_accounts_case_is_unknown() -> None:
    text = "Set the note to hi."
    plan = UserTurnPlan(
        acts=(
            SetFieldAct(
                target=TokenTarget(token="c1"),
                field="note",
                value="hi",
                evidence=span(text, "Set the note to hi"),
            ),
        )
    )
    reduction = reduce_now(
        plan, make_turn(text), seeded_directory(), case_tokens={"c1": "case-dana"}
    )
    assert reduction.results[0].reason == ACT_UNKNOWN_TARGET


def test_a_new_case_and_its_fields_commit_in_one_batch_from_revision_zero() -> None:
    text = "Open a trip for Eve to Oslo."
    plan = UserTurnPlan(
        acts=(
            SetFieldAct(
                target=NewCaseTarget(start_act=1),
                field="destination",
                value="Oslo",
                evidence=span(text, "to Oslo"),
            ),
            StartCaseAct(workflow="trip", label="Eve", evidence=span(text, "Open a trip for Eve")),
        )
    )
    reduction = reduce_now(plan, make_turn(text), seeded_directory())
    (batch,) = reduction.batches
    assert batch.creates_case and batch.expected_revision == 0
    assert [c.name for c in batch.commands] == ["start_case", "set_field"]
    assert reduction.results[0].case_id == reduction.results[1].case_id == batch.case_id


def test_the_new_case_id_is_the_same_on_every_replay_of_the_turn() -> None:
    text = "Open a trip for Eve."
    plan = UserTurnPlan(
        acts=(StartCaseAct(workflow="trip", label="Eve", evidence=span(text, "Open a trip")),)
    )
    first = reduce_now(plan, make_turn(text), seeded_directory())
    again = reduce_now(plan, make_turn(text), seeded_directory())
    assert first.batches[0].case_id == again.batches[0].case_id


def test_acts_on_a_case_that_is_never_started_are_rejected() -> None:
    text = "Open a planet trip to Mars."
    plan = UserTurnPlan(
        acts=(
            StartCaseAct(workflow="planet", evidence=span(text, "Open a planet trip")),
            SetFieldAct(
                target=NewCaseTarget(start_act=0),
                field="destination",
                value="Mars",
                evidence=span(text, "to Mars"),
            ),
        )
    )
    reduction = reduce_now(plan, make_turn(text), seeded_directory())
    assert [r.reason for r in reduction.results] == [
        "turnframe.act.unknown_workflow",
        ACT_CASE_NOT_STARTED,
    ]
    assert reduction.batches == ()


def test_the_other_account_sees_its_own_bob() -> None:
    text = "Set Bob's note to hi."
    plan = UserTurnPlan(
        acts=(SetFieldAct(target=BOB, field="note", value="hi", evidence=span(text, text)),)
    )
    turn = make_turn(text, account_id=OTHER_ACCOUNT)
    assert reduce_now(plan, turn, seeded_directory()).results[0].case_id == "case-other-bob"
