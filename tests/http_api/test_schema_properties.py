"""The derived schema accepts exactly what the converter writes (hypothesis over the types)."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe._converter import converter
from turnframe._strict import check_shape
from turnframe.http.schema import request_model, response_model
from turnframe.http.wire import (
    ActLine,
    CardCommand,
    CardOptionView,
    CardView,
    OpenCard,
    PostTurn,
    SessionList,
    SessionSummary,
    TurnActs,
)
from turnframe.lifecycle import TurnPhase
from turnframe.pipeline.turn_view import (
    TurnAct,
    TurnBlock,
    TurnCard,
    TurnCardCommand,
    TurnCardOption,
    TurnEvent,
    TurnRecallCandidate,
    TurnRecallSkip,
    TurnView,
)
from turnframe.response import BlockKind
from turnframe.results import ActStatus, InteractionKind, OptionAction

words = st.text(max_size=12)
maybe = st.none() | words
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=6,
)


def tuples(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(strategy, max_size=3).map(tuple)


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


# A block as written: kind, code and text, plus any of recall's contract fields (a field left at
# None is left out of the JSON, so the derived model must accept it absent).
blocks = st.builds(
    TurnBlock,
    kind=st.sampled_from(BlockKind),
    code=words,
    text=words,
    candidates=optional(
        tuples(
            st.builds(
                TurnRecallCandidate,
                session_id=words,
                turn_id=words,
                excerpt=words,
                resume=maybe,
                locator=words,
                started_at=maybe,
                fork_of=maybe,
            )
        )
    ),
    attempts_left=optional(st.integers(0, 3)),
    session_id=maybe,
    turn_id=maybe,
    resume=maybe,
    unit=maybe,
    interaction_id=maybe,
    options=optional(tuples(words)),
    joined=optional(tuples(st.fixed_dictionaries({"from": words, "to": words, "rule": words}))),
    skipped=optional(
        tuples(st.builds(TurnRecallSkip, member=words, anchor=words, reason=words))
    ),
    dropped=optional(tuples(words)),
)


turn_views = st.builds(
    TurnView,
    session_id=words,
    turn_id=words,
    phase=st.sampled_from(TurnPhase),
    acts=tuples(
        st.builds(
            TurnAct,
            index=st.integers(0, 9),
            kind=words,
            result=st.sampled_from(ActStatus),
            reason=words,
        )
    ),
    blocks=tuples(blocks),
    cards=tuples(
        st.builds(
            TurnCard,
            interaction_id=maybe,
            kind=maybe,
            case_id=maybe,
            commands=tuples(
                st.builds(
                    TurnCardCommand,
                    operation=maybe,
                    record=maybe,
                    identifying=tuples(words),
                    arguments=st.dictionaries(words, json_values, max_size=3),
                    shown=st.dictionaries(words, words, max_size=3),
                    proposed=tuples(words),
                )
            ),
            argument=maybe,
            options=tuples(st.builds(TurnCardOption, option_id=maybe, label=maybe, action=maybe)),
        )
    ),
    events=tuples(st.builds(TurnEvent, type=words, case_id=words)),
)
cards = st.builds(
    CardView,
    interaction_id=words,
    kind=st.sampled_from(InteractionKind),
    turn_id=words,
    case_id=maybe,
    expected_revision=st.none() | st.integers(0, 99),
    target_label=maybe,
    options=tuples(
        st.builds(
            CardOptionView, option_id=words, label=words, action=st.sampled_from(OptionAction)
        )
    ),
    commands=tuples(
        st.builds(
            CardCommand,
            name=words,
            args=st.dictionaries(words, json_values, max_size=3),
            case_id=words,
        )
    ),
)
STRATEGIES: dict[type[Any], st.SearchStrategy[Any]] = {
    TurnView: turn_views,
    OpenCard: st.builds(OpenCard, session_id=words, card=st.none() | cards),
    SessionList: st.builds(
        SessionList,
        sessions=tuples(
            st.builds(
                SessionSummary,
                session_id=words,
                workflow=words,
                created_at=st.datetimes(timezones=st.just(UTC)),
                last_turn_id=maybe,
            )
        ),
    ),
    TurnActs: st.builds(
        TurnActs,
        turn_id=words,
        acts=tuples(
            st.builds(
                ActLine,
                index=st.integers(0, 9),
                summary=words,
                word=words,
                why=words,
                kind=words,
                result=maybe,
                reason=maybe,
                evidence=tuples(words),
            )
        ),
        click=maybe,
    ),
}


@pytest.mark.parametrize("cls", list(STRATEGIES), ids=lambda c: c.__name__)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_value_the_converter_writes_fits_the_derived_model(cls: type[Any], data: Any) -> None:
    written = json.loads(json.dumps(converter.unstructure(data.draw(STRATEGIES[cls]))))
    response_model(cls).model_validate_json(json.dumps(written), strict=True)
    assert check_shape(written, cls) == []


@pytest.mark.parametrize("cls", list(STRATEGIES), ids=lambda c: c.__name__)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_an_answer_missing_a_field_does_not_fit(cls: type[Any], data: Any) -> None:
    written = converter.unstructure(data.draw(STRATEGIES[cls]))
    del written[data.draw(st.sampled_from(sorted(written)))]
    with pytest.raises(pydantic.ValidationError):
        response_model(cls).model_validate_json(json.dumps(written), strict=True)


def test_a_request_field_with_a_default_may_be_left_out() -> None:
    schema = request_model(PostTurn).model_json_schema()
    assert schema.get("required", []) == []
    assert schema["additionalProperties"] is False
