from __future__ import annotations

from pathlib import Path

import pytest

from turnframe.config import (
    CONFIG_FILE_NAME,
    ConfigSyntaxError,
    ConfigUnreadableError,
    ConfigValueError,
    UnknownConfigKeyError,
    UnknownWorkflowError,
    check_config_workflows,
    config_bindings,
    load_config,
)
from turnframe.references import (
    BindingLayer,
    FileSource,
    ReferenceSlot,
    parse_cli_references,
    resolve_references,
)


def _write(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / CONFIG_FILE_NAME
    path.write_text(text, encoding="utf-8")
    return path


def test_no_config_file_in_the_working_directory_is_an_empty_config(tmp_path: Path) -> None:
    config = load_config(cwd=tmp_path)
    assert (config.path, config.references, config.workflows) == (None, (), ())


def test_the_config_file_is_found_in_the_working_directory(tmp_path: Path) -> None:
    _write(tmp_path, '[references]\nglossary = "g.md"\n')
    config = load_config(cwd=tmp_path)
    assert config.path == tmp_path / CONFIG_FILE_NAME
    assert [b.slot for b in config.references] == ["glossary"]


def test_the_config_file_is_found_in_the_process_working_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, '[references]\nglossary = "g.md"\n')
    monkeypatch.chdir(tmp_path)
    assert load_config().path == tmp_path / CONFIG_FILE_NAME


def test_config_paths_are_relative_to_the_config_files_directory(tmp_path: Path) -> None:
    _write(tmp_path / "conf", '[references]\nglossary = "refs/glossary.md"\n')
    config = load_config("conf/turnframe.toml", cwd=tmp_path)
    (source,) = config.references[0].sources
    assert isinstance(source, FileSource)
    assert source.path == tmp_path / "conf" / "refs" / "glossary.md"
    assert source.display == "conf/refs/glossary.md"


def test_the_same_relative_path_resolves_differently_in_config_and_on_the_cli(
    tmp_path: Path,
) -> None:
    slot = ReferenceSlot(name="glossary", description="Desk terms", media_types=("text/markdown",))
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "glossary.md").write_text("config copy\n", encoding="utf-8")
    (tmp_path / "glossary.md").write_text("working-directory copy\n", encoding="utf-8")
    config = load_config(_write(tmp_path / "conf", '[references]\nglossary = "glossary.md"\n'))
    from_config = resolve_references(
        workflow="w", slots=(slot,), bindings=config_bindings(config, "w")
    )
    from_cli = resolve_references(
        workflow="w",
        slots=(slot,),
        bindings=parse_cli_references(["glossary=glossary.md"], cwd=tmp_path),
    )
    assert from_config.items[0].text == "config copy\n"
    assert from_cli.items[0].text == "working-directory copy\n"


def test_an_absolute_path_in_the_config_is_kept_as_is(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "g.md"
    config = load_config(_write(tmp_path / "conf", f'[references]\nglossary = "{target}"\n'))
    (source,) = config.references[0].sources
    assert isinstance(source, FileSource)
    assert (source.path, source.display) == (target, target.as_posix())


def test_an_unknown_top_level_key_is_a_typed_error_naming_key_and_file(tmp_path: Path) -> None:
    _write(tmp_path, '[referenses]\nglossary = "g.md"\n')
    with pytest.raises(UnknownConfigKeyError) as caught:
        load_config(cwd=tmp_path)
    error = caught.value
    assert error.code == "turnframe.config.unknown_key"
    assert (error.key, error.path) == ("referenses", CONFIG_FILE_NAME)
    assert "'referenses'" in error.message and CONFIG_FILE_NAME in error.message
    assert error.hint is not None and "references" in error.hint


def test_an_unknown_key_inside_a_workflow_table_names_its_dotted_path(tmp_path: Path) -> None:
    _write(tmp_path, '[workflows.travel-desk.refs]\nglossary = "g.md"\n')
    with pytest.raises(UnknownConfigKeyError) as caught:
        load_config(cwd=tmp_path)
    assert caught.value.key == "workflows.travel-desk.refs"


def test_a_binding_that_is_not_a_path_is_a_typed_error_naming_the_key(tmp_path: Path) -> None:
    _write(tmp_path, "[references]\nglossary = 3\n")
    with pytest.raises(ConfigValueError) as caught:
        load_config(cwd=tmp_path)
    assert (caught.value.code, caught.value.key) == (
        "turnframe.config.invalid_value",
        "references.glossary",
    )


def test_invalid_toml_is_a_typed_error_naming_the_file(tmp_path: Path) -> None:
    _write(tmp_path, "[references\n")
    with pytest.raises(ConfigSyntaxError, match=CONFIG_FILE_NAME):
        load_config(cwd=tmp_path)


def test_a_named_config_file_that_does_not_exist_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(ConfigUnreadableError, match=r"nope\.toml") as caught:
        load_config("nope.toml", cwd=tmp_path)
    assert caught.value.code == "turnframe.config.unreadable"


def test_a_list_binds_several_items_and_an_empty_string_clears(tmp_path: Path) -> None:
    text = (
        '[references]\nglossary = "g.md"\n'
        '[workflows.travel-desk.references]\nroster = ["a.txt", "b.txt"]\nglossary = ""\n'
    )
    config = load_config(_write(tmp_path, text))
    bindings = config_bindings(config, "travel-desk")
    assert [(b.slot, len(b.sources), b.runtime_wide) for b in bindings] == [
        ("glossary", 1, True),
        ("roster", 2, False),
        ("glossary", 0, False),
    ]
    assert {b.layer for b in bindings} == {BindingLayer.CONFIG}


def test_a_table_for_an_unregistered_workflow_is_a_typed_error(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, '[workflows.travel-dsk.references]\ng = "g.md"\n'))
    with pytest.raises(UnknownWorkflowError, match="travel-dsk") as caught:
        check_config_workflows(config, {"travel-desk", "refund-desk"})
    assert caught.value.hint is not None and "travel-desk" in caught.value.hint
