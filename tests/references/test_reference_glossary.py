from __future__ import annotations

import pytest

from turnframe.references import (
    GlossarySyntaxError,
    ReferenceSlot,
    canonical_for,
    find_aliases,
    glossary_from_references,
    inline_references,
    parse_glossary,
)

GLOSSARY_TEXT = """# Travel desk glossary
the usual hotel = Hotel Almirante
usual hotel | our hotel = Hotel Almirante
alias: the office => Rua Augusta 12
- lounge pass at 15 euros
* "late checkout" = "Late checkout until 14:00"
"""


def test_alias_lines_and_term_lines_are_told_apart() -> None:
    glossary = parse_glossary(GLOSSARY_TEXT)
    assert [(a.phrase, a.canonical) for a in glossary.aliases] == [
        ("the usual hotel", "Hotel Almirante"),
        ("usual hotel", "Hotel Almirante"),
        ("our hotel", "Hotel Almirante"),
        ("the office", "Rua Augusta 12"),
        ("late checkout", "Late checkout until 14:00"),
    ]
    assert glossary.terms == ("lounge pass at 15 euros",)


def test_the_usual_hotel_maps_to_the_canonical_name_while_keeping_the_users_words() -> None:
    text = "add The usual  hotel night"
    (match,) = find_aliases(parse_glossary(GLOSSARY_TEXT), text)
    assert match.canonical == "Hotel Almirante"
    assert (match.text, text[match.start : match.end]) == ("The usual  hotel", "The usual  hotel")


def test_the_longest_phrase_wins_at_a_position() -> None:
    (match,) = find_aliases(parse_glossary(GLOSSARY_TEXT), "book the usual hotel")
    assert match.alias.phrase == "the usual hotel"


def test_aliases_match_whole_words_only() -> None:
    glossary = parse_glossary("inn = Hotel Almirante\n")
    assert find_aliases(glossary, "a spinning top") == ()


def test_several_aliases_in_one_turn_come_leftmost_first() -> None:
    matches = find_aliases(parse_glossary(GLOSSARY_TEXT), "from the office to our hotel")
    assert [m.canonical for m in matches] == ["Rua Augusta 12", "Hotel Almirante"]


def test_canonical_for_ignores_case_and_spacing() -> None:
    assert canonical_for(parse_glossary(GLOSSARY_TEXT), "Our   Hotel") == "Hotel Almirante"
    assert canonical_for(parse_glossary(GLOSSARY_TEXT), "lounge pass") is None


def test_an_alias_without_a_name_names_the_line() -> None:
    with pytest.raises(GlossarySyntaxError, match="line 2"):
        parse_glossary("ok = Fine\nthe usual hotel =\n", origin="glossary.md")


def test_a_phrase_meaning_two_different_things_is_an_error_naming_both() -> None:
    with pytest.raises(GlossarySyntaxError, match="Hotel Almirante"):
        parse_glossary("our hotel = Hotel Almirante\nour hotel = Hotel Miradouro\n")


def test_a_glossary_error_from_a_bound_slot_names_workflow_slot_and_description(
    glossary_slot: ReferenceSlot,
) -> None:
    refs = inline_references(
        workflow="travel-desk", slots=(glossary_slot,), texts={"glossary": "alias: broken\n"}
    )
    with pytest.raises(GlossarySyntaxError) as caught:
        glossary_from_references(refs, ["glossary"])
    assert "'travel-desk'" in caught.value.message and "'glossary'" in caught.value.message
    assert glossary_slot.description in caught.value.message


def test_an_unbound_glossary_slot_gives_an_empty_glossary(glossary_slot: ReferenceSlot) -> None:
    refs = inline_references(workflow="travel-desk", slots=(glossary_slot,), texts={})
    glossary = glossary_from_references(refs, ["glossary"])
    assert find_aliases(glossary, "the usual hotel") == ()
