"""The sample desks: registry, seed data, reviewed policy corpora, and a domain-free core."""

from __future__ import annotations

import re
from datetime import date
from importlib import resources

import pytest
from interpreter_kit import REFUND, TRAVEL, read

from turnframe._converter import structure
from turnframe.corpora import CorpusRegistry, answer_question
from turnframe.examples import SAMPLE_WORKFLOWS, UnknownSampleWorkflow, sample
from turnframe.examples.travel_desk import Trip, discount_answer

DOMAIN_WORDS = re.compile(
    r"\b(?:trips?|travel|refunds?|hotels?|discounts?|extras?|flights?|lounge|rebook\w*|withdr\w*"
    r"|fares?|lisbon|almirante|budget|receipts?|legs?|desk|passport|nights?)\b",
    re.IGNORECASE,
)


def test_the_registry_holds_the_travel_desk_and_the_refund_desk() -> None:
    assert sorted(SAMPLE_WORKFLOWS) == ["refund-desk", "travel-desk"]
    assert sample("travel-desk").workflow.name == "travel-desk"


def test_an_unknown_sample_is_a_typed_error_naming_the_known_ones() -> None:
    with pytest.raises(UnknownSampleWorkflow, match="refund-desk, travel-desk") as raised:
        sample("hotel-desk")
    assert raised.value.code == "turnframe.examples.unknown_workflow"


@pytest.mark.parametrize("name", ["travel-desk", "refund-desk"])
def test_seed_cases_round_trip_through_the_store_payload(name: str) -> None:
    desk = sample(name)
    for seed in desk.seed():
        new_case = seed.new_case("acct-1")
        assert structure(new_case.state, desk.workflow.state_type) == seed.state
        assert (new_case.label, new_case.case_id) == (seed.label, seed.case_id("acct-1"))


def test_the_discount_answer_names_the_date_it_is_valid_until() -> None:
    (lisbon,) = TRAVEL.seed()
    assert isinstance(lisbon.state, Trip)
    assert discount_answer(lisbon.state) == "Discount LISBON10 (10% off) is valid until 2026-01-31."
    assert lisbon.state.travel_date == date(2026, 3, 12)


@pytest.mark.parametrize("name", ["travel-desk", "refund-desk"])
def test_a_sample_policy_corpus_registers_without_a_dropped_line(name: str) -> None:
    report = sample(name).register_corpus(CorpusRegistry())
    assert report.drops == () and report.active_chains > 0


def test_the_refund_policy_answers_that_a_refund_requires_a_receipt() -> None:
    registry = CorpusRegistry()
    REFUND.register_corpus(registry)
    surface = answer_question("Tell me about refunds", registry).surface
    assert surface is not None and "refund requires receipt" in surface


def test_the_travel_policy_defines_a_fare_difference_and_gives_a_non_refundable_extra() -> None:
    registry = CorpusRegistry()
    TRAVEL.register_corpus(registry)
    definition = answer_question("What is a fare difference?", registry).surface
    example = answer_question("Give me an example of a non-refundable extra", registry).surface
    assert definition is not None and definition.startswith("fare difference — pack-grounded")
    assert example is not None and "lounge pass exemplifies non-refundable extra" in example


def test_the_rule_interpreter_names_no_sample_domain_word() -> None:
    package = resources.files("turnframe.providers.rules")
    sources = {
        f.name: f.read_text(encoding="utf-8") for f in package.iterdir() if f.name.endswith(".py")
    }
    found = {name: DOMAIN_WORDS.findall(text) for name, text in sources.items()}
    assert {name: words for name, words in found.items() if words} == {}


@pytest.mark.parametrize("name", ["travel-desk", "refund-desk"])
def test_every_demo_turn_is_read_whole_by_the_rules_interpreter(name: str) -> None:
    unread = {text: read(text, name).unread for text in sample(name).demo_turns}
    assert {text: words for text, words in unread.items() if words} == {}
