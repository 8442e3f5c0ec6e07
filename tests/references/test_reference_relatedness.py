from __future__ import annotations

from datetime import date

from turnframe.references import (
    VALUE_NOT_NEAR_EVIDENCE,
    VALUE_ONLY_IN_REFERENCE,
    ReferenceSlot,
    ResolvedReferences,
    check_relatedness,
    inline_references,
    parse_glossary,
)

GLOSSARY = "the usual hotel = Hotel Almirante\nlounge pass at 15 euros\n"
TURN = "add the usual hotel night"


def _refs(glossary_slot: ReferenceSlot) -> ResolvedReferences:
    return inline_references(
        workflow="travel-desk", slots=(glossary_slot,), texts={"glossary": GLOSSARY}
    )


def test_a_value_that_occurs_only_in_the_glossary_warns_naming_the_slot(
    glossary_slot: ReferenceSlot,
) -> None:
    (warning,) = check_relatedness("lounge pass", TURN, TURN, _refs(glossary_slot), act_index=0)
    assert warning.code == VALUE_ONLY_IN_REFERENCE
    assert (warning.found_in_slots, warning.act_index) == (("glossary",), 0)
    assert "never evidence" in warning.message


def test_a_number_that_occurs_only_in_the_glossary_warns(glossary_slot: ReferenceSlot) -> None:
    (warning,) = check_relatedness(15, TURN, TURN, _refs(glossary_slot))
    assert warning.code == VALUE_ONLY_IN_REFERENCE


def test_a_value_found_nowhere_warns_with_the_plain_code() -> None:
    (warning,) = check_relatedness("spa voucher", TURN, TURN)
    assert (warning.code, warning.found_in_slots) == (VALUE_NOT_NEAR_EVIDENCE, ())


def test_the_canonical_name_of_an_alias_the_user_said_is_related(
    glossary_slot: ReferenceSlot,
) -> None:
    aliases = parse_glossary(GLOSSARY)
    assert (
        check_relatedness("Hotel Almirante", TURN, TURN, _refs(glossary_slot), aliases=aliases)
        == []
    )


def test_the_canonical_name_without_the_alias_map_warns(glossary_slot: ReferenceSlot) -> None:
    assert len(check_relatedness("Hotel Almirante", TURN, TURN, _refs(glossary_slot))) == 1


def test_a_value_in_its_evidence_is_related_across_case_accents_and_plurals() -> None:
    turn = "add 3 nights at the Café Nicola"
    assert check_relatedness("cafe nicola night", turn, turn) == []


def test_a_value_just_outside_the_evidence_span_counts_as_near() -> None:
    turn = "for the Almirante please add one night"
    assert check_relatedness("Almirante", "add one night", turn) == []


def test_a_value_far_from_the_evidence_span_warns() -> None:
    turn = "Almirante was nice last year, a b c d e f g h i j, add one night"
    assert len(check_relatedness("Almirante", "add one night", turn, near_words=3)) == 1


def test_numbers_compare_numerically_and_against_number_words() -> None:
    turn = "add three nights at 80.00 euros each"
    assert check_relatedness({"quantity": 3, "unit_price": "80"}, turn, turn) == []


def test_each_unrelated_argument_of_an_operation_gets_its_own_warning(
    glossary_slot: ReferenceSlot,
) -> None:
    args = {"description": "lounge pass", "unit_price": 15, "nights": 1}
    warnings = check_relatedness(args, TURN, TURN, _refs(glossary_slot))
    assert [w.value for w in warnings] == ["lounge pass", "15"]


def test_dates_booleans_and_none_are_not_checked() -> None:
    turn = "move it to Friday"
    assert check_relatedness([date(2026, 12, 4), "2026-12-04", True, None], turn, turn) == []


def test_a_small_typo_in_the_users_words_still_counts_as_related() -> None:
    turn = "add the Almirrante"
    assert check_relatedness("Almirante", turn, turn) == []
