"""Glossary aliases: the canonical name becomes the value, the evidence stays on the user's
words, and glossary entries the user never mentions never become acts."""

from __future__ import annotations

from interpreter_kit import read

from turnframe.examples.travel_desk import SAMPLE_GLOSSARY
from turnframe.plan import LabelTarget
from turnframe.references import parse_glossary

GLOSSARY = parse_glossary(SAMPLE_GLOSSARY, origin="glossary.md")


def test_the_usual_hotel_becomes_the_glossarys_name_with_evidence_on_the_users_words() -> None:
    reading = read("add the usual hotel night", glossary=GLOSSARY)
    assert reading.acts[0].args == {"item": "Hotel Almirante night"}  # type: ignore[union-attr]
    assert reading.evidence(0) == ["add the usual hotel night"]
    assert reading.args(0) == {"item": "Hotel Almirante night"}


def test_a_glossary_entry_the_user_never_mentions_produces_no_act_or_command() -> None:
    reading = read("add the usual hotel night", glossary=GLOSSARY)
    assert reading.kinds == ["operation"]
    assert "lounge" not in reading.raw.casefold()
    commands = [c for b in reading.reduction.batches for c in b.commands]
    assert [c.args["item"] for c in commands] == ["Hotel Almirante night"]


def test_an_alias_inside_a_field_value_is_replaced_by_its_canonical_name() -> None:
    reading = read("set the note to breakfast at our hotel", glossary=GLOSSARY)
    assert reading.acts[0].value == "breakfast at Hotel Almirante"  # type: ignore[union-attr]
    assert reading.evidence(0) == ["set the note to breakfast at our hotel"]


def test_without_a_glossary_the_users_words_stay_the_value() -> None:
    reading = read("add the usual hotel night")
    assert reading.acts[0].args == {"item": "usual hotel night"}  # type: ignore[union-attr]


def test_an_alias_whose_name_is_a_case_label_names_that_case() -> None:
    glossary = parse_glossary("my spring trip = Lisbon")
    reading = read("submit my spring trip", labels=("Lisbon", "Porto"), glossary=glossary)
    assert reading.acts[0].target == LabelTarget(label="Lisbon")  # type: ignore[union-attr]
    assert reading.unread == []
