from __future__ import annotations

from pathlib import Path

import pytest

from turnframe._hashing import digest_bytes
from turnframe.references import (
    EMPTY_REFERENCE,
    BindingLayer,
    InlineSource,
    MissingRequiredError,
    NotMultipleError,
    NotUtf8Error,
    ReferenceBinding,
    ReferenceMaterialError,
    ReferenceSlot,
    ResolvedReferences,
    TooLargeError,
    UnknownSlotError,
    UnreadableError,
    UnsupportedMediaTypeError,
    api_references,
    check_runtime_wide_bindings,
    parse_cli_references,
    resolve_references,
)

WORKFLOW = "travel-desk"


def _resolve(slots: tuple[ReferenceSlot, ...], cwd: Path, *args: str) -> ResolvedReferences:
    return resolve_references(
        workflow=WORKFLOW, slots=slots, bindings=parse_cli_references(args, cwd=cwd)
    )


def _names_workflow_slot_and_description(
    error: ReferenceMaterialError, slot: ReferenceSlot
) -> None:
    assert WORKFLOW in error.message
    assert repr(slot.name) in error.message
    assert slot.description in error.message
    assert (error.workflow, error.slot, error.description) == (
        WORKFLOW,
        slot.name,
        slot.description,
    )


def test_a_bound_file_resolves_to_its_bytes_digest_media_type_size_and_layer(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    resolved = resolve_references(
        workflow=WORKFLOW,
        slots=slots,
        bindings=parse_cli_references(["glossary=glossary.md", "profile=profile.txt"], cwd=files),
    )
    glossary = resolved.get("glossary")
    assert glossary is not None
    (item,) = glossary.items
    content = (files / "glossary.md").read_bytes()
    assert item.content == content
    assert item.digest == digest_bytes(content)
    assert (item.media_type, item.size_bytes, item.layer) == (
        "text/markdown",
        len(content),
        BindingLayer.CLI,
    )
    assert item.origin.display == "glossary.md"
    assert item.token_estimate == (len(content) + 3) // 4


def test_resolved_slots_follow_declaration_order_whatever_the_binding_order(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    resolved = resolve_references(
        workflow=WORKFLOW,
        slots=slots,
        bindings=parse_cli_references(["profile=profile.txt", "glossary=glossary.md"], cwd=files),
    )
    assert [s.slot.name for s in resolved.slots] == ["glossary", "profile", "roster"]


def test_binding_an_undeclared_slot_names_the_workflow_and_the_declared_slots(
    slots: tuple[ReferenceSlot, ...],
    files: Path,
    profile_slot: ReferenceSlot,
    glossary_slot: ReferenceSlot,
) -> None:
    with pytest.raises(UnknownSlotError) as caught:
        _resolve(slots, files, "glosary=glossary.md", "profile=profile.txt")
    error = caught.value
    assert error.code == "turnframe.reference.unknown_slot"
    assert WORKFLOW in error.message and "'glosary'" in error.message
    assert glossary_slot.description in error.message and profile_slot.description in error.message


def test_a_missing_required_slot_names_workflow_slot_and_description(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    with pytest.raises(MissingRequiredError) as caught:
        _resolve(slots, files, "glossary=glossary.md")
    assert caught.value.code == "turnframe.reference.missing_required"
    _names_workflow_slot_and_description(caught.value, profile_slot)


def test_an_unreadable_file_names_workflow_slot_description_and_path(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    with pytest.raises(UnreadableError) as caught:
        _resolve(slots, files, "profile=missing.txt")
    assert caught.value.code == "turnframe.reference.unreadable"
    _names_workflow_slot_and_description(caught.value, profile_slot)
    assert "missing.txt" in caught.value.message


def test_a_directory_bound_as_a_file_is_unreadable(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "adir.txt").mkdir()
    with pytest.raises(UnreadableError):
        _resolve(slots, files, "profile=adir.txt")


def test_non_utf8_content_names_workflow_slot_description_and_the_byte(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    (files / "latin1.txt").write_bytes("Jos\xe9".encode("latin-1"))
    with pytest.raises(NotUtf8Error) as caught:
        _resolve(slots, files, "profile=latin1.txt")
    assert caught.value.code == "turnframe.reference.not_utf8"
    _names_workflow_slot_and_description(caught.value, profile_slot)
    assert "byte 3" in caught.value.message


def test_a_file_over_max_bytes_names_workflow_slot_description_size_and_limit(
    files: Path,
) -> None:
    small = ReferenceSlot(name="profile", description="The traveller's profile", max_bytes=10)
    (files / "big.txt").write_text("x" * 25, encoding="utf-8")
    with pytest.raises(TooLargeError) as caught:
        _resolve((small,), files, "profile=big.txt")
    assert caught.value.code == "turnframe.reference.too_large"
    _names_workflow_slot_and_description(caught.value, small)
    assert "25 bytes" in caught.value.message and "10" in caught.value.message


def test_a_file_exactly_at_max_bytes_is_accepted(files: Path) -> None:
    small = ReferenceSlot(name="profile", description="The traveller's profile", max_bytes=10)
    (files / "ten.txt").write_text("x" * 10, encoding="utf-8")
    resolved = resolve_references(
        workflow=WORKFLOW,
        slots=(small,),
        bindings=parse_cli_references(["profile=ten.txt"], cwd=files),
    )
    assert resolved.items[0].size_bytes == 10


def test_a_pdf_is_refused_as_an_unsupported_media_type(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    (files / "profile.pdf").write_bytes(b"%PDF-1.7")
    with pytest.raises(UnsupportedMediaTypeError) as caught:
        _resolve(slots, files, "profile=profile.pdf")
    assert caught.value.code == "turnframe.reference.unsupported_media_type"
    _names_workflow_slot_and_description(caught.value, profile_slot)


def test_a_text_type_the_slot_does_not_accept_is_refused(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "profile.md").write_text("# Ana\n", encoding="utf-8")
    with pytest.raises(UnsupportedMediaTypeError, match="text/markdown"):
        _resolve(slots, files, "profile=profile.md")


def test_a_file_without_a_known_suffix_takes_the_slots_first_media_type(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    (files / "profile_slot").write_text("Ana\n", encoding="utf-8")
    resolved = _resolve(slots, files, "profile=profile_slot")
    assert resolved.items[0].media_type == "text/plain"


def test_two_files_on_a_single_item_slot_name_workflow_slot_and_description(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    with pytest.raises(NotMultipleError) as caught:
        _resolve(slots, files, "profile=profile.txt", "profile=alt-profile.txt")
    _names_workflow_slot_and_description(caught.value, profile_slot)


def test_a_multiple_slot_keeps_its_items_in_binding_order(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    resolved = _resolve(
        slots, files, "profile=profile.txt", "roster=alt-profile.txt", "roster=profile.txt"
    )
    roster = resolved.get("roster")
    assert roster is not None
    assert [i.origin.display for i in roster.items] == ["alt-profile.txt", "profile.txt"]


def test_an_empty_file_is_a_warning_not_an_error(
    slots: tuple[ReferenceSlot, ...], files: Path, glossary_slot: ReferenceSlot
) -> None:
    (files / "empty.md").write_bytes(b"")
    resolved = resolve_references(
        workflow=WORKFLOW,
        slots=slots,
        bindings=parse_cli_references(["glossary=empty.md", "profile=profile.txt"], cwd=files),
    )
    (warning,) = resolved.warnings
    assert warning.code == EMPTY_REFERENCE
    assert (warning.workflow, warning.slot, warning.origin) == (WORKFLOW, "glossary", "empty.md")
    assert glossary_slot.description in warning.message


def test_an_empty_file_stays_on_record_but_counts_as_unbound(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "empty.md").write_bytes(b"\n  \n")
    resolved = _resolve(slots, files, "glossary=empty.md", "profile=profile.txt")
    glossary = resolved.get("glossary")
    assert glossary is not None
    assert len(glossary.items) == 1 and not glossary.bound


def test_a_runtime_wide_binding_of_a_slot_this_workflow_does_not_declare_is_skipped(
    files: Path,
) -> None:
    runtime_wide = api_references({"glossary": "glossary.md"}, cwd=files, runtime_wide=True)
    resolved = resolve_references(workflow="refund-desk", slots=(), bindings=runtime_wide)
    assert resolved.slots == ()


def test_a_runtime_wide_binding_no_workflow_declares_is_an_unknown_slot(
    files: Path, glossary_slot: ReferenceSlot
) -> None:
    runtime_wide = api_references({"glosary": "glossary.md"}, cwd=files, runtime_wide=True)
    with pytest.raises(UnknownSlotError, match="Desk terms and aliases"):
        check_runtime_wide_bindings(runtime_wide, {WORKFLOW: (glossary_slot,), "refund-desk": ()})


def test_inline_content_from_the_api_is_recorded_with_its_label(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    binding = ReferenceBinding(
        slot="profile",
        sources=(InlineSource(content=b"Ana", label="crm:ana"),),
        layer=BindingLayer.API,
        where="Runtime(references=...)",
    )
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=[binding])
    item = resolved.items[0]
    assert (item.origin.kind, item.origin.display, item.digest) == (
        "inline",
        "crm:ana",
        digest_bytes(b"Ana"),
    )


def test_a_workflow_without_slots_resolves_to_nothing() -> None:
    resolved = resolve_references(workflow="refund-desk", slots=(), bindings=())
    assert (resolved.slots, resolved.warnings) == ((), ())
