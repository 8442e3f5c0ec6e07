"""Deterministic identities: same input, same bytes, same keys, same hash."""

from __future__ import annotations

import attrs
import pytest
from reducer_kit import BOB, Turn

from turnframe._identity import canonical_bytes, command_digest, plan_hash, reduction_hash
from turnframe.plan import LabelTarget, SetFieldAct, UserTurnPlan, parse_plan
from turnframe.policy import CommandPolicy
from turnframe.results import ACT_INVALID_VALUE, ActStatus
from turnframe.testing import InMemoryCaseDirectory, make_turn, plan_json, reduce_now, span
from turnframe.workflow import CaseSnapshot, Field, Workflow


def _turn() -> Turn:
    t = Turn("Bob goes to Rome on Friday; withdraw it.")
    t.set(BOB, "destination", "Rome", "Bob goes to Rome")
    t.set(BOB, "travel_date", "Friday", "on Friday")
    t.op(BOB, "withdraw", "withdraw it")
    return t


def test_the_same_turn_reduces_to_the_same_bytes_and_the_same_hash() -> None:
    first, again = _turn().reduce(), _turn().reduce()
    assert canonical_bytes(first) == canonical_bytes(again)
    assert reduction_hash(first) == reduction_hash(again)


def test_a_replayed_turn_derives_the_same_idempotency_keys() -> None:
    keys = [c.idempotency_key for b in _turn().reduce().batches for c in b.commands]
    assert keys == [c.idempotency_key for b in _turn().reduce().batches for c in b.commands]
    assert len(set(keys)) == len(keys) == 2


def test_another_turn_with_the_same_words_derives_other_keys() -> None:
    one = _turn().reduce(turn_id="turn-1").batches[0].commands[0]
    two = _turn().reduce(turn_id="turn-2").batches[0].commands[0]
    assert one.idempotency_key != two.idempotency_key
    assert one.content_digest == two.content_digest


def test_a_reused_key_with_a_different_command_is_detectable_by_its_content_digest() -> None:
    command = _turn().reduce().batches[0].commands[0]
    assert command_digest(command) == command.content_digest
    tampered = attrs.evolve(command, args={"field": "destination", "value": "Mars"})
    assert command_digest(tampered) != tampered.content_digest


def test_the_plan_hash_is_the_same_for_a_plan_and_its_parsed_answer() -> None:
    t = _turn()
    parsed = parse_plan(plan_json(t.plan), make_turn(t.text))
    assert plan_hash(parsed) == plan_hash(t.plan) == t.reduce().plan_hash


def test_the_confirm_card_id_is_deterministic() -> None:
    assert (
        _turn().reduce().interactions[0].interaction_id
        == _turn().reduce().interactions[0].interaction_id
    )


@attrs.frozen(kw_only=True)
class Counter:
    count: int = 0


COUNTERS = Workflow(
    name="counter",
    state_type=Counter,
    initial_state=Counter,
    fields=(
        Field(name="count", type=int, parse=lambda t, c: int(t), policy=CommandPolicy.routine()),
    ),
    apply=lambda state, event: state,
    project=lambda s: {"count": s.count},
)


@pytest.mark.parametrize("said", ["99999999999999999999", "-9007199254740992"])
def test_a_number_too_large_for_json_to_hold_exactly_is_rejected_not_crashed_on(said: str) -> None:
    directory = InMemoryCaseDirectory()
    directory.put(
        "acct-1",
        CaseSnapshot(case_id="c-1", workflow="counter", label="Main", revision=1, state=Counter()),
    )
    text = f"Set the main count to {said}."
    plan = UserTurnPlan(
        acts=(
            SetFieldAct(
                target=LabelTarget(label="Main"),
                field="count",
                value=said,
                evidence=span(text, f"count to {said}"),
            ),
        )
    )
    reduction = reduce_now(plan, make_turn(text), directory, workflows={"counter": COUNTERS})
    (result,) = reduction.results
    assert (result.status, result.reason) == (ActStatus.REJECTED, ACT_INVALID_VALUE)
    assert "RFC 8785" in (result.detail or "")
    assert reduction.batches == ()
