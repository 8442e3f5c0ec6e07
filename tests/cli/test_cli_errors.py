"""Every user mistake prints one line, ``turnframe: <code>: <message> (<hint>)``, and exits
non-zero; none prints a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_kit import chat_json, run_cli, script

Setup = Callable[[Path], list[str]]


def _chat(tmp: Path, *lines: str) -> list[str]:
    return ["chat", "--store", str(tmp / "t.db"), "--script", str(script(tmp, *lines))]


def _not_a_database(tmp: Path) -> list[str]:
    (tmp / "notes.txt").write_text("not a database\n")
    return ["chat", "--store", str(tmp / "notes.txt"), "--script", str(script(tmp, "Thanks!"))]


def _unknown_turn(tmp: Path) -> list[str]:
    chat_json(tmp, "Thanks!")
    return ["replay", "turn-unknown", "--store", str(tmp / "t.db")]


MISTAKES: dict[str, tuple[Setup, str]] = {
    "a store in a missing folder": (
        lambda t: ["chat", "--store", str(t / "no" / "t.db")],
        "turnframe.cli.bad_store",
    ),
    "a store that is a directory": (
        lambda t: ["sessions", "--store", str(t)],
        "turnframe.cli.bad_store",
    ),
    "a file that is not a store": (_not_a_database, "turnframe.cli.bad_store"),
    "a store that does not exist, to replay": (
        lambda t: ["replay", "turn-x", "--store", str(t / "none.db")],
        "turnframe.cli.store_not_found",
    ),
    "an unknown workflow": (
        lambda t: ["chat", "--workflow", "pizza-desk", "--store", str(t / "t.db")],
        "turnframe.examples.unknown_workflow",
    ),
    "an unknown command in a script": (
        lambda t: _chat(t, "Thanks!", "/undo"),
        "turnframe.cli.bad_script",
    ),
    "a click without a label": (lambda t: _chat(t, "/click"), "turnframe.cli.bad_script"),
    "a missing script file": (
        lambda t: ["chat", "--script", str(t / "missing.txt")],
        "turnframe.cli.bad_script",
    ),
    "an unknown click label": (
        lambda t: _chat(t, "Rebook the return flight to next Monday.", "/click yes"),
        "turnframe.cli.unknown_option",
    ),
    "a click with no open card": (
        lambda t: _chat(t, "/click confirm"),
        "turnframe.cli.no_open_card",
    ),
    "an unreadable reference file": (
        lambda t: [*_chat(t, "Thanks!"), "--reference", "glossary=missing.md"],
        "turnframe.reference.unreadable",
    ),
    "a reference that is not NAME=PATH": (
        lambda t: [*_chat(t, "Thanks!"), "--reference", "glossary"],
        "turnframe.reference.bad_binding",
    ),
    "a reference slot the desk does not declare": (
        lambda t: [*_chat(t, "Thanks!"), "--reference", f"roster={script(t, 'x')}"],
        "turnframe.reference.unknown_slot",
    ),
    "a missing config file": (
        lambda t: [*_chat(t, "Thanks!"), "--config", "missing.toml"],
        "turnframe.config.unreadable",
    ),
    "an unknown session": (
        lambda t: [*_chat(t, "Thanks!"), "--session", "ses_unknown"],
        "turnframe.cli.unknown_session",
    ),
    "a clock that is not a date-time": (
        lambda t: [*_chat(t, "Thanks!"), "--clock", "tomorrow"],
        "turnframe.cli.bad_clock",
    ),
    "an unknown turn": (_unknown_turn, "turnframe.cli.unknown_turn"),
    "an unknown option": (lambda t: ["chat", "--frobnicate"], "turnframe.cli.usage"),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_user_mistake_prints_one_line_and_exits_non_zero(tmp_path: Path, mistake: str) -> None:
    setup, code = MISTAKES[mistake]
    result = run_cli(*setup(tmp_path), cwd=tmp_path)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"turnframe: {code}: ")
    assert line.endswith(")")  # the hint


def test_a_bad_script_line_runs_none_of_the_scripts_turns(tmp_path: Path) -> None:
    result = run_cli(*_chat(tmp_path, "Set the note to aisle please.", "/undo"), cwd=tmp_path)
    assert result.returncode != 0
    assert not (tmp_path / "t.db").exists()


def test_turns_before_a_failing_click_are_printed(tmp_path: Path) -> None:
    args = _chat(tmp_path, "Rebook the return flight to next Monday.", "/click yes")
    result = run_cli(*args, "--json", cwd=tmp_path)
    assert result.returncode != 0
    assert len(result.stdout.splitlines()) == 1


def test_an_unknown_click_label_names_the_labels_available(tmp_path: Path) -> None:
    args = _chat(tmp_path, "Rebook the return flight to next Monday.", "/click yes")
    result = run_cli(*args, cwd=tmp_path)
    assert "its options: confirm, decline" in result.stderr
