"""Properties of the reducer and the strict parser, over generated plans."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe._converter import structure, unstructure
from turnframe._identity import canonical_bytes, plan_hash
from turnframe.messages import InteractionResponse
from turnframe.plan import (
    Act,
    CancelAct,
    ChitchatAct,
    ConstraintAct,
    ConstraintKind,
    CorrectAct,
    Evidence,
    KeepUnchangedAct,
    LabelTarget,
    NewCaseTarget,
    OperationAct,
    PlanRejected,
    QuestionAct,
    RecallAct,
    SetFieldAct,
    StartCaseAct,
    Target,
    UnnamedChangeAct,
    UserTurnPlan,
    parse_plan,
)
from turnframe.reduce import reduce
from turnframe.results import REASON_CODES, InteractionToCreate, ReductionPlan
from turnframe.testing import build_context_now, make_turn, plan_json, seeded_directory

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

TEXT = "".join(f"part {i:02d} of the turn. " for i in range(40))
TARGETS = [LabelTarget(label=n) for n in ("Bob", "Anna", "Carla", "Zoe")]
FIELDS = ["destination", "travel_date", "note", "passengers", "colour"]
VALUES = ["Rome", "Friday", "Monday", "2026-02-02", "12", "2", "window", "Blursday", "Paris", ""]
OPERATIONS = [
    ("submit", {}),
    ("withdraw", {}),
    ("book", {}),
    ("tag", {"tag": "vip"}),
    ("paint", {}),
]


def _span(draw: st.DrawFn) -> tuple[Evidence, ...]:
    start = draw(st.integers(0, len(TEXT) - 2))
    end = draw(st.integers(start + 1, min(len(TEXT), start + 60)))
    return (Evidence(start=start, end=end, text=TEXT[start:end]),)


def _target(draw: st.DrawFn, acts: list[Act]) -> Target:
    starts = [i for i, a in enumerate(acts) if isinstance(a, StartCaseAct)]
    use_new_case: bool = draw(st.booleans())
    if starts and use_new_case:
        return NewCaseTarget(start_act=draw(st.sampled_from(starts)))
    return draw(st.sampled_from(TARGETS))


@st.composite
def any_plan(draw: st.DrawFn, max_acts: int = 12) -> UserTurnPlan:
    """Plans of every act kind, with valid backward links, over the seeded cases."""
    acts: list[Act] = []
    for _ in range(draw(st.integers(0, max_acts))):
        ev = _span(draw)
        correctable = [i for i, a in enumerate(acts) if isinstance(a, SetFieldAct | CorrectAct)]
        cancellable = [
            i
            for i, a in enumerate(acts)
            if isinstance(a, SetFieldAct | OperationAct | StartCaseAct)
        ]
        kind = draw(
            st.sampled_from(
                [
                    "set",
                    "op",
                    "keep",
                    "correct",
                    "cancel",
                    "constraint",
                    "question",
                    "recall",
                    "start",
                    "chitchat",
                    "unnamed",
                ]
            )
        )
        if kind == "correct" and correctable:
            acts.append(
                CorrectAct(
                    corrects=draw(st.sampled_from(correctable)),
                    value=draw(st.sampled_from(VALUES)),
                    evidence=ev,
                )
            )
        elif kind == "cancel" and cancellable:
            acts.append(CancelAct(cancels=draw(st.sampled_from(cancellable)), evidence=ev))
        elif kind == "op":
            name, args = draw(st.sampled_from(OPERATIONS))
            earlier = [i for i, a in enumerate(acts) if isinstance(a, OperationAct)]
            repeats = draw(st.none() | st.sampled_from(earlier)) if earlier else None
            acts.append(
                OperationAct(
                    target=_target(draw, acts),
                    operation=name,
                    args=args,
                    evidence=ev,
                    repeats=repeats,
                )
            )
        elif kind == "unnamed":
            acts.append(
                UnnamedChangeAct(
                    target=draw(st.none() | st.just(_target(draw, acts))),
                    pending=draw(st.booleans()),
                    about=draw(st.sampled_from([None, *FIELDS])),
                    evidence=ev,
                )
            )
        elif kind == "keep":
            acts.append(
                KeepUnchangedAct(
                    target=_target(draw, acts), field=draw(st.sampled_from(FIELDS)), evidence=ev
                )
            )
        elif kind == "constraint":
            forbids = draw(st.sampled_from(list(ConstraintKind)))
            operation = "submit" if forbids is ConstraintKind.NO_OPERATION else None
            target = draw(st.none() | st.sampled_from(TARGETS))
            acts.append(
                ConstraintAct(forbids=forbids, operation=operation, target=target, evidence=ev)
            )
        elif kind == "question":
            acts.append(
                QuestionAct(
                    target=draw(st.none() | st.sampled_from(TARGETS)),
                    hypothetical=draw(st.booleans()),
                    evidence=ev,
                )
            )
        elif kind == "recall":
            acts.append(RecallAct(description="last week", evidence=ev))
        elif kind == "start":
            acts.append(
                StartCaseAct(
                    workflow=draw(st.sampled_from(["trip", "planet"])), label="Eve", evidence=ev
                )
            )
        elif kind == "chitchat":
            acts.append(ChitchatAct(evidence=ev))
        else:
            acts.append(
                SetFieldAct(
                    target=_target(draw, acts),
                    field=draw(st.sampled_from(FIELDS)),
                    value=draw(st.sampled_from(VALUES)),
                    evidence=ev,
                )
            )
    return UserTurnPlan(acts=tuple(acts))


def _reduce(
    plan: UserTurnPlan,
    response: InteractionResponse | None = None,
    open_interactions: tuple[InteractionToCreate, ...] = (),
    turn_id: str = "turn-1",
) -> ReductionPlan:
    turn = make_turn(TEXT, response=response, turn_id=turn_id)
    context = build_context_now(plan, turn, seeded_directory(), open_interactions=open_interactions)
    return reduce(plan, context)


def _batches(reduction: ReductionPlan) -> list[tuple[Any, ...]]:
    """Batches by content: ids include the act's index, which moves when acts are inserted."""
    return [
        (
            b.case_id,
            b.scope,
            b.expected_revision,
            b.creates_case,
            tuple(c.content_digest for c in b.commands),
        )
        for b in reduction.batches
    ]


def _cards() -> tuple[InteractionToCreate, ...]:
    """A confirm card for Bob and a select card for Anna, from an earlier turn."""
    earlier = UserTurnPlan(
        acts=(
            OperationAct(
                target=TARGETS[0],
                operation="withdraw",
                evidence=(Evidence(start=0, end=4, text="part"),),
            ),
            SetFieldAct(
                target=TARGETS[1],
                field="note",
                value="hi",
                evidence=(Evidence(start=0, end=4, text="part"),),
            ),
        )
    )
    return _reduce(earlier, turn_id="turn-0").interactions


CARDS = _cards()
RESPONSES = [None] + [
    InteractionResponse(interaction_id=card.interaction_id, option_id=option, expected_revision=rev)
    for card in CARDS
    for option in [o.option_id for o in card.options] + ["bogus"]
    for rev in (card.expected_revision or 0, 99)
]


@PROPERTY
@given(plan=any_plan(), response=st.sampled_from(RESPONSES))
def test_every_act_gets_exactly_one_result(
    plan: UserTurnPlan, response: InteractionResponse | None
) -> None:
    reduction = _reduce(plan, response, CARDS)
    assert [r.act_index for r in reduction.results] == list(range(len(plan.acts)))
    assert {r.reason for r in reduction.results} <= REASON_CODES
    outcome = reduction.interaction_outcome
    if outcome is not None and outcome.results:
        card = next(c for c in CARDS if c.interaction_id == outcome.interaction_id)
        assert [r.act_index for r in outcome.results] == list(range(len(card.pending_acts)))
    ready = {c for b in reduction.batches for c in (x.command_id for x in b.commands)}
    claimed = {c for r in reduction.results for c in r.command_ids}
    if outcome is not None:
        claimed |= {c for r in outcome.results for c in r.command_ids}
    assert ready <= claimed


@st.composite
def independent_sets(draw: st.DrawFn) -> list[SetFieldAct]:
    """set_field acts on distinct (case, field) pairs, with values that parse and validate."""
    pairs = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["Bob", "Carla"]),
                st.sampled_from(["destination", "note", "travel_date", "passengers"]),
            ),
            min_size=1,
            max_size=8,
            unique=True,
        )
    )
    good = {
        "destination": ["Rome", "Lima"],
        "note": ["aisle", "x"],
        "travel_date": ["Friday", "2026-05-05"],
        "passengers": ["3", "four"],
    }
    out = []
    for n, (label, field) in enumerate(pairs):
        start = TEXT.index(f"part {n:02d}")
        out.append(
            SetFieldAct(
                target=LabelTarget(label=label),
                field=field,
                value=draw(st.sampled_from(good[field])),
                evidence=(Evidence(start=start, end=start + 7, text=TEXT[start : start + 7]),),
            )
        )
    return out


@PROPERTY
@given(acts=independent_sets(), data=st.data())
def test_a_correction_placed_anywhere_reduces_to_the_same_batches_as_the_corrected_act_alone(
    acts: list[SetFieldAct], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(acts) - 1))
    final = data.draw(st.sampled_from(["Oslo", "7", "Saturday", "late"]))
    where = data.draw(st.integers(i + 1, len(acts)))
    correction = CorrectAct(corrects=i, value=final, evidence=acts[i].evidence)
    with_correction = UserTurnPlan(acts=(*acts[:where], correction, *acts[where:]))
    alone = UserTurnPlan(
        acts=tuple(attrs.evolve(a, value=final) if n == i else a for n, a in enumerate(acts))
    )
    assert _batches(_reduce(with_correction)) == _batches(_reduce(alone))


@PROPERTY
@given(acts=independent_sets(), seed=st.integers(0, 2**16))
def test_independent_acts_in_any_order_give_the_same_batches(
    acts: list[SetFieldAct], seed: int
) -> None:
    shuffled = list(acts)
    random.Random(seed).shuffle(shuffled)
    tag = OperationAct(
        target=LabelTarget(label="Zoe"),
        operation="tag",
        args={"tag": "a"},
        evidence=acts[0].evidence,
    )

    def content(plan_acts: list[Act]) -> list[tuple[Any, ...]]:
        batches = _batches(_reduce(UserTurnPlan(acts=tuple(plan_acts))))
        return sorted((b[0], b[1], b[2], b[3], tuple(sorted(b[4]))) for b in batches)

    assert content([*acts, tag]) == content([tag, *shuffled])


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 50)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _accepts_all_or_nothing(raw: str) -> None:
    try:
        plan = parse_plan(raw, make_turn(TEXT))
    except PlanRejected as rejected:
        assert rejected.problems
        return
    data = json.loads(raw)
    written = unstructure(plan)
    assert len(plan.acts) == len(data["acts"])
    for raw_act, parsed_act in zip(data["acts"], written["acts"], strict=True):
        assert {k: v for k, v in parsed_act.items() if k in raw_act} == raw_act


@PROPERTY
@given(value=json_values)
def test_random_json_never_yields_a_partial_plan(value: Any) -> None:
    _accepts_all_or_nothing(json.dumps(value))
    _accepts_all_or_nothing(json.dumps({"acts": value if isinstance(value, list) else [value]}))


def _mutate(data: Any, draw: Callable[[st.SearchStrategy[Any]], Any]) -> Any:
    """Change one thing somewhere in the data: drop or add a key, or replace a value."""
    if isinstance(data, dict) and data:
        key = draw(st.sampled_from(sorted(data)))
        action = draw(st.sampled_from(["drop", "add", "replace", "descend"]))
        out = dict(data)
        if action == "drop":
            del out[key]
        elif action == "add":
            out[draw(st.sampled_from(["extra", "kind", "by", "value", "start"]))] = draw(
                json_values
            )
        elif action == "replace":
            out[key] = draw(json_values | st.integers(-2, 30))
        else:
            out[key] = _mutate(out[key], draw)
        return out
    if isinstance(data, list) and data:
        i = draw(st.integers(0, len(data) - 1))
        return [*data[:i], _mutate(data[i], draw), *data[i + 1 :]]
    return draw(json_values)


@PROPERTY
@given(plan=any_plan(max_acts=6), data=st.data())
def test_random_mutations_of_valid_plans_never_yield_a_partial_plan(
    plan: UserTurnPlan, data: st.DataObject
) -> None:
    raw = json.loads(plan_json(plan))
    _accepts_all_or_nothing(json.dumps(_mutate(raw, data.draw)))


@PROPERTY
@given(plan=any_plan(), seed=st.integers(0, 2**16))
def test_the_plan_hash_is_stable(plan: UserTurnPlan, seed: int) -> None:
    def shuffled(value: Any) -> Any:
        if isinstance(value, dict):
            items = list(value.items())
            random.Random(seed).shuffle(items)
            return {k: shuffled(v) for k, v in items}
        if isinstance(value, list):
            return [shuffled(v) for v in value]
        return value

    reparsed = parse_plan(json.dumps(shuffled(json.loads(plan_json(plan)))), make_turn(TEXT))
    assert plan_hash(reparsed) == plan_hash(plan)
    reduction = _reduce(plan)
    assert canonical_bytes(reduction) == canonical_bytes(_reduce(reparsed))
    assert structure(unstructure(reduction), ReductionPlan) == reduction
