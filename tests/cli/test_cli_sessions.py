"""``turnframe sessions``: an account's sessions with their last turn and phase."""

from __future__ import annotations

import json
from pathlib import Path

from cli_kit import chat_json, run_cli


def test_sessions_lists_the_session_with_its_last_turn_and_phase(tmp_path: Path) -> None:
    _, last = chat_json(tmp_path, "Set the note to aisle please.", "Thanks!")
    result = run_cli("sessions", "--plain", "--store", tmp_path / "t.db", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    header, row = result.stdout.splitlines()
    assert header.split() == ["SESSION", "WORKFLOW", "TURNS", "TURN", "PHASE", "MESSAGE"]
    assert row.split()[:5] == [last["session_id"], "travel-desk", "2", last["turn_id"], "delivered"]
    assert row.endswith("Thanks!")


def test_sessions_with_turns_lists_every_turn(tmp_path: Path) -> None:
    turns = chat_json(tmp_path, "Set the note to aisle please.", "Thanks!")
    result = run_cli("sessions", "--turns", "--json", "--store", tmp_path / "t.db", cwd=tmp_path)
    assert [row["turn_id"] for row in json.loads(result.stdout)] == [t["turn_id"] for t in turns]


def test_sessions_lists_only_the_accounts_own_sessions(tmp_path: Path) -> None:
    chat_json(tmp_path, "Thanks!", extra=("--account", "acme"))
    result = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path)
    assert json.loads(result.stdout) == []


def test_a_click_turn_is_listed_by_the_option_it_chose(tmp_path: Path) -> None:
    chat_json(tmp_path, "Rebook the return flight to next Monday.", "/click confirm")
    result = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path)
    (row,) = json.loads(result.stdout)
    assert row["text"] == "(click confirm)"
