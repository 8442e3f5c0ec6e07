from __future__ import annotations

import hashlib
from pathlib import Path

from turnframe._converter import structure, unstructure
from turnframe.references import (
    BindingLayer,
    ReferenceRecord,
    ReferenceSlot,
    ResolvedReferences,
    parse_cli_references,
    reference_digest,
    reference_record,
    register_template,
    resolve_references,
    slot_digests,
)

WORKFLOW = "travel-desk"
SOURCE = '{% if has_reference("glossary") %}{{ reference("glossary") }}{% endif %}'


def _resolve(slots: tuple[ReferenceSlot, ...], cwd: Path, *args: str) -> ResolvedReferences:
    bindings = parse_cli_references(["profile=profile.txt", *args], cwd=cwd)
    return resolve_references(workflow=WORKFLOW, slots=slots, bindings=bindings)


def test_the_record_holds_name_origin_digest_media_type_size_and_layer_per_bound_item(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    record = reference_record(_resolve(slots, files, "glossary=glossary.md"))
    glossary = next(p for p in record.references if p.slot == "glossary")
    content = (files / "glossary.md").read_bytes()
    assert (glossary.origin, glossary.origin_kind, glossary.layer) == (
        "glossary.md",
        "file",
        BindingLayer.CLI,
    )
    assert glossary.digest == hashlib.sha256(content).hexdigest()
    assert (glossary.media_type, glossary.size_bytes) == ("text/markdown", len(content))


def test_the_record_lists_bound_slots_in_declaration_order(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    record = reference_record(_resolve(slots, files, "roster=profile.txt", "glossary=glossary.md"))
    assert [p.slot for p in record.references] == ["glossary", "profile", "roster"]


def test_the_record_round_trips_through_the_one_converter(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    refs = _resolve(slots, files, "glossary=glossary.md")
    record = reference_record(refs, template=register_template("t", SOURCE, slots=slots))
    data = unstructure(record)
    assert data["references"][0]["layer"] == "cli"
    assert structure(data, ReferenceRecord) == record


def test_two_sets_differing_only_in_content_bytes_differ_in_digest_not_template_hash(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    template = register_template("t", SOURCE, slots=slots)
    first = reference_record(_resolve(slots, files, "glossary=glossary.md"), template=template)
    (files / "glossary.md").write_text("the usual hotel = Hotel Miradouro\n", encoding="utf-8")
    second = reference_record(_resolve(slots, files, "glossary=glossary.md"), template=template)
    assert first.template_hash == second.template_hash
    assert first.reference_digest != second.reference_digest
    assert first.references[0].digest != second.references[0].digest


def test_the_same_bytes_from_another_path_or_layer_give_the_same_key_contribution(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "copy.md").write_bytes((files / "glossary.md").read_bytes())
    via_cli = _resolve(slots, files, "glossary=glossary.md")
    via_copy = _resolve(slots, files, "glossary=copy.md")
    assert reference_digest(via_cli) == reference_digest(via_copy)


def test_moving_content_to_another_slot_changes_the_key_contribution(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "glossary.txt").write_bytes((files / "glossary.md").read_bytes())
    in_roster = _resolve(slots, files, "roster=glossary.txt")
    in_glossary = _resolve(slots, files, "glossary=glossary.txt")
    assert reference_digest(in_roster) != reference_digest(in_glossary)


def test_a_cleared_slot_contributes_like_an_unbound_one(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    cleared = _resolve(slots, files, "glossary=glossary.md", "glossary=")
    assert reference_digest(cleared) == reference_digest(_resolve(slots, files))


def test_the_record_carries_the_empty_file_warning(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "empty.md").write_bytes(b"")
    record = reference_record(_resolve(slots, files, "glossary=empty.md"))
    assert [w.code for w in record.warnings] == ["turnframe.reference.empty"]


def test_slot_digests_give_a_single_files_plain_sha256(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    digests = slot_digests(_resolve(slots, files, "glossary=glossary.md"))
    expected = hashlib.sha256((files / "glossary.md").read_bytes()).hexdigest()
    assert list(digests) == ["glossary", "profile"] and digests["glossary"] == expected


def test_slot_digests_of_a_multiple_slot_depend_on_item_order(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    ab = slot_digests(_resolve(slots, files, "roster=profile.txt", "roster=alt-profile.txt"))
    ba = slot_digests(_resolve(slots, files, "roster=alt-profile.txt", "roster=profile.txt"))
    assert ab["roster"] != ba["roster"]
