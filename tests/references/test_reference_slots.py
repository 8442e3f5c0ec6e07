from __future__ import annotations

import pytest

from turnframe.references import (
    DuplicateSlotError,
    InvalidSlotError,
    ReferenceSlot,
    check_slots,
)


def test_a_slot_defaults_to_optional_single_plain_text() -> None:
    slot = ReferenceSlot(name="glossary", description="Desk terms")
    assert (slot.required, slot.multiple, slot.media_types) == (False, False, ("text/plain",))


def test_a_slot_name_with_an_equals_sign_is_refused() -> None:
    with pytest.raises(InvalidSlotError) as caught:
        ReferenceSlot(name="gloss=ary", description="Desk terms")
    assert caught.value.code == "turnframe.reference.invalid_slot"


def test_a_slot_that_accepts_a_binary_media_type_is_refused() -> None:
    with pytest.raises(InvalidSlotError, match="application/pdf"):
        ReferenceSlot(
            name="contract", description="Signed contract", media_types=("application/pdf",)
        )


def test_a_slot_without_a_description_is_refused() -> None:
    with pytest.raises(InvalidSlotError, match="no description"):
        ReferenceSlot(name="glossary", description="  ")


def test_a_slot_with_a_non_positive_byte_limit_is_refused() -> None:
    with pytest.raises(InvalidSlotError, match="max_bytes=0"):
        ReferenceSlot(name="glossary", description="Desk terms", max_bytes=0)


def test_a_workflow_declaring_a_slot_twice_names_both_descriptions() -> None:
    first = ReferenceSlot(name="glossary", description="Desk terms")
    second = ReferenceSlot(name="glossary", description="Other terms")
    with pytest.raises(DuplicateSlotError, match=r"Desk terms.*Other terms"):
        check_slots("travel-desk", [first, second])
