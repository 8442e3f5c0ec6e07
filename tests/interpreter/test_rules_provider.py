"""RulesProvider behind the Provider protocol: the request payload, determinism, typed errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from interpreter_kit import PROVIDER, TRAVEL, read

from turnframe.examples.travel_desk import SAMPLE_GLOSSARY
from turnframe.plan import parse_plan
from turnframe.providers import Provider, ProviderBadRequest, ProviderRequest, Purpose
from turnframe.providers.rules import RULES_MODEL, RulesProvider
from turnframe.testing import TURN_CLOCK, make_turn

DEMO = "Change the travel date to Friday and add a note: window seat please."


def _request(payload: dict[str, Any], purpose: Purpose = Purpose.INTERPRET) -> ProviderRequest:
    return ProviderRequest.from_text(
        purpose=purpose,
        turn_id="turn-1",
        correlation_id="turn-1",
        system="interpret",
        user=json.dumps(payload),
        answer_schema={},
        template_hash="t",
    )


def _payload(text: str = DEMO, **extra: Any) -> dict[str, Any]:
    return {
        "text": text,
        "clock": TURN_CLOCK.isoformat(),
        "locale": "en",
        "workflow": TRAVEL.name,
        "case_labels": ["Lisbon"],
        **extra,
    }


def test_the_rules_provider_satisfies_the_provider_protocol() -> None:
    provider: Provider = PROVIDER
    assert (provider.name, provider.context_budget_tokens > 0) == ("rules", True)


@pytest.mark.anyio
async def test_complete_answers_the_turn_payload_with_the_same_plan_as_interpret() -> None:
    answer = await PROVIDER.complete(_request(_payload()))
    assert answer.model == RULES_MODEL
    assert answer.text == PROVIDER.interpret(make_turn(DEMO), TRAVEL.name, case_labels=["Lisbon"])
    assert len(parse_plan(answer.text, make_turn(DEMO)).acts) == 2


@pytest.mark.anyio
async def test_complete_reads_a_glossary_sent_in_the_payload() -> None:
    request = _request(_payload("add the usual hotel night", glossary=SAMPLE_GLOSSARY))
    answer = await PROVIDER.complete(request)
    assert json.loads(answer.text)["acts"][0]["args"] == {"item": "Hotel Almirante night"}


def test_the_same_text_and_clock_give_the_same_plan_bytes() -> None:
    text = "Set the note to aisle; submit it and is the discount still valid?"
    assert read(text).raw == read(text).raw
    assert (
        read(text).raw.encode()
        == RulesProvider(workflows=[TRAVEL.workflow])
        .interpret(make_turn(text), TRAVEL.workflow, case_labels=["Lisbon"])
        .encode()
    )


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        ({"text": "hi"}, "'clock' must be a string"),
        (_payload(clock="2026-01-07T09:30:00"), "timezone"),
        (_payload(workflow="nowhere-desk"), "does not serve workflow 'nowhere-desk'"),
        (_payload(case_labels="Lisbon"), "'case_labels' must be a list"),
    ],
    ids=["a missing clock", "a naive clock", "an unknown workflow", "labels not a list"],
)
@pytest.mark.anyio
async def test_a_payload_it_cannot_read_is_a_bad_request(
    payload: dict[str, Any], says: str
) -> None:
    with pytest.raises(ProviderBadRequest, match=says):
        await PROVIDER.complete(_request(payload))


@pytest.mark.anyio
async def test_a_narration_request_is_a_bad_request() -> None:
    with pytest.raises(ProviderBadRequest, match="only interprets"):
        await PROVIDER.complete(_request(_payload(), Purpose.NARRATE))


def test_a_turn_in_another_language_is_not_understood_as_a_whole() -> None:
    reading = read("Muda a data para sexta-feira.", locale="pt")
    assert (reading.acts, reading.unread) == ((), ["Muda a data para sexta-feira."])
