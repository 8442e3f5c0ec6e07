from __future__ import annotations

from pathlib import Path

import pytest

from turnframe.config import config_bindings, parse_config
from turnframe.references import (
    BindingLayer,
    BindingSyntaxError,
    FileSource,
    MissingRequiredError,
    ReferenceBinding,
    ReferenceSlot,
    ResolvedReferences,
    api_references,
    parse_cli_references,
    resolve_references,
)

WORKFLOW = "travel-desk"


def _config(files: Path, text: str) -> tuple[ReferenceBinding, ...]:
    config = parse_config(text, path=files / "turnframe.toml", display="turnframe.toml")
    return config_bindings(config, WORKFLOW)


def _origin(resolved: ResolvedReferences, slot: str) -> tuple[str, BindingLayer] | None:
    found = resolved.get(slot)
    assert found is not None
    if not found.items:
        return None
    return found.items[0].origin.display, found.items[0].layer


def test_a_cli_binding_overrides_the_config_binding_of_the_same_slot(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    layers = [
        *_config(files, '[references]\nprofile = "profile.txt"\n'),
        *parse_cli_references(["profile=alt-profile.txt"], cwd=files),
    ]
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=layers)
    assert _origin(resolved, "profile") == ("alt-profile.txt", BindingLayer.CLI)


def test_an_api_binding_overrides_config_and_is_overridden_by_cli(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    config = _config(files, '[references]\nprofile = "profile.txt"\nglossary = "glossary.md"\n')
    api = api_references({"profile": "alt-profile.txt", "glossary": "glossary.md"}, cwd=files)
    cli = parse_cli_references(["glossary=glossary.md"], cwd=files)
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=[*config, *api, *cli])
    assert _origin(resolved, "profile") == ("alt-profile.txt", BindingLayer.API)
    assert _origin(resolved, "glossary") == ("glossary.md", BindingLayer.CLI)


def test_a_workflow_table_overrides_the_runtime_wide_table(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    text = (
        '[references]\nprofile = "profile.txt"\n'
        '[workflows.travel-desk.references]\nprofile = "alt-profile.txt"\n'
    )
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=_config(files, text))
    assert _origin(resolved, "profile") == ("alt-profile.txt", BindingLayer.CONFIG)


def test_the_cli_may_bind_a_slot_the_config_leaves_unbound(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    layers = [
        *_config(files, '[references]\nprofile = "profile.txt"\n'),
        *parse_cli_references(["glossary=glossary.md"], cwd=files),
    ]
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=layers)
    assert _origin(resolved, "glossary") == ("glossary.md", BindingLayer.CLI)


def test_name_equals_nothing_on_the_cli_clears_an_optional_config_binding(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    layers = [
        *_config(files, '[references]\nprofile = "profile.txt"\nglossary = "glossary.md"\n'),
        *parse_cli_references(["glossary="], cwd=files),
    ]
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=layers)
    assert _origin(resolved, "glossary") is None


def test_clearing_a_required_slot_on_the_cli_fails_naming_the_layer(
    slots: tuple[ReferenceSlot, ...], files: Path, profile_slot: ReferenceSlot
) -> None:
    layers = [
        *_config(files, '[references]\nprofile = "profile.txt"\n'),
        *parse_cli_references(["profile="], cwd=files),
    ]
    with pytest.raises(MissingRequiredError, match="cleared by cli") as caught:
        resolve_references(workflow=WORKFLOW, slots=slots, bindings=layers)
    assert profile_slot.description in caught.value.message


def test_none_in_the_api_clears_an_optional_binding(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    layers = [
        *api_references({"profile": "profile.txt", "glossary": "glossary.md"}, cwd=files),
        *api_references({"glossary": None}, cwd=files, where="session"),
    ]
    resolved = resolve_references(workflow=WORKFLOW, slots=slots, bindings=layers)
    assert _origin(resolved, "glossary") is None


def test_a_cli_clear_followed_by_a_path_binds_only_the_path(files: Path) -> None:
    (binding,) = parse_cli_references(["roster=a.txt", "roster=", "roster=b.txt"], cwd=files)
    assert binding.sources == (FileSource(path=files / "b.txt", display="b.txt"),)


def test_a_cli_argument_without_an_equals_sign_is_a_typed_error(files: Path) -> None:
    with pytest.raises(BindingSyntaxError) as caught:
        parse_cli_references(["glossary"], cwd=files)
    assert caught.value.code == "turnframe.reference.bad_binding"


def test_cli_paths_are_relative_to_the_working_directory(files: Path) -> None:
    (binding,) = parse_cli_references(["glossary=../glossary.md"], cwd=files / "sub")
    (source,) = binding.sources
    assert isinstance(source, FileSource)
    assert (source.path, source.display) == (files / "glossary.md", "../glossary.md")


def test_raw_bytes_in_the_api_are_refused_with_a_pointer_to_inline_source(files: Path) -> None:
    with pytest.raises(BindingSyntaxError, match="InlineSource"):
        api_references({"profile": b"Ana"}, cwd=files)  # type: ignore[dict-item]
