from __future__ import annotations

from pathlib import Path

from turnframe.references import (
    BindingLayer,
    ReferenceSlot,
    api_references,
    describe_bindings,
    parse_cli_references,
)


def test_describing_lists_every_declared_slot_with_its_winning_binding(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    layers = [
        *api_references({"glossary": "glossary.md"}, cwd=files),
        *parse_cli_references(["glossary=other.md", "roster="], cwd=files),
    ]
    statuses = describe_bindings(slots, layers)
    assert [(s.name, s.required, s.layer, s.origins) for s in statuses] == [
        ("glossary", False, BindingLayer.CLI, ("other.md",)),
        ("profile", True, None, ()),
        ("roster", False, BindingLayer.CLI, ()),
    ]
