"""``turnframe sessions``: an account's sessions with their last turn and phase."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
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
    (session,) = json.loads(result.stdout)
    assert [t["turn_id"] for t in session["turns"]] == [t["turn_id"] for t in turns]


def test_sessions_lists_only_the_accounts_own_sessions(tmp_path: Path) -> None:
    chat_json(tmp_path, "Thanks!", extra=("--account", "acme"))
    result = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path)
    assert json.loads(result.stdout) == []


def test_a_click_turn_is_listed_by_the_option_it_chose(tmp_path: Path) -> None:
    chat_json(tmp_path, "Rebook the return flight to next Monday.", "/click confirm")
    result = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path)
    (session,) = json.loads(result.stdout)
    assert session["turns"][-1]["text"] == "(click confirm)"


def test_sessions_json_gives_each_session_its_turns_with_the_events_they_committed(
    tmp_path: Path,
) -> None:
    first, second = chat_json(tmp_path, "Set the note to aisle please.", "Thanks!")
    result = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path)
    (session,) = json.loads(result.stdout)
    assert session["session_id"] == first["session_id"]
    assert session["workflow"] == "travel-desk"
    turns = session["turns"]
    assert [(t["turn_id"], t["phase"]) for t in turns] == [
        (first["turn_id"], "delivered"),
        (second["turn_id"], "delivered"),
    ]
    assert [e["type"] for e in turns[0]["events"]] == [e["type"] for e in first["events"]]
    assert all(set(e) == {"type", "case_id"} for e in turns[0]["events"])
    assert turns[1]["events"] == []


def test_sessions_on_a_database_that_is_not_a_turnframe_store_refuses_in_one_line(
    tmp_path: Path,
) -> None:
    foreign = tmp_path / "other.db"
    with closing(sqlite3.connect(foreign)) as conn, conn:
        conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY)")
    result = run_cli("sessions", "--store", foreign, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "turnframe.cli.not_a_store" in result.stderr
    with closing(sqlite3.connect(foreign)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert tables == {"customers"}
