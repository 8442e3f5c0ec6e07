"""``turnframe replay TURN_ID``: the audit view of a chat turn, from the store's records."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cli_kit import DEMO_TURN, chat_json, run_cli

REBOOK = "Rebook the return flight to next Monday."


@pytest.fixture(scope="module")
def chatted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("replay")
    return folder, chat_json(folder, DEMO_TURN, REBOOK, "/click confirm")


def replay_json(folder: Path, turn_id: str) -> dict[str, Any]:
    result = run_cli("replay", turn_id, "--store", folder / "t.db", "--json", cwd=folder)
    assert result.returncode == 0, result.stderr
    view: dict[str, Any] = json.loads(result.stdout)
    return view


@pytest.fixture(scope="module")
def first(chatted: tuple[Path, list[dict[str, Any]]]) -> dict[str, Any]:
    folder, turns = chatted
    return replay_json(folder, turns[0]["turn_id"])


def test_replay_json_shows_the_plan(first: dict[str, Any]) -> None:
    assert [a["kind"] for a in first["plan"]["acts"]] == [
        "set_field",
        "set_field",
        "keep_unchanged",
        "question",
    ]
    assert first["acts"][0]["evidence"] == ["Change the travel date to Friday"]
    assert first["plan_hash"]


def test_replay_json_shows_each_result_with_its_rule_and_deciding_act(
    first: dict[str, Any],
) -> None:
    superseded = first["acts"][0]
    assert superseded["result"] == "superseded_by_correction"
    assert superseded["reason"] == "turnframe.act.superseded_by_keep_unchanged"
    assert superseded["decided_by"] == 2


def test_replay_json_shows_commands_with_their_journal_outcomes(first: dict[str, Any]) -> None:
    (command,) = first["commands"]
    assert command["name"] == "set_field"
    assert command["args"] == {"field": "note", "value": "window seat"}
    assert command["journal_status"] == "committed"
    assert command["outcome"]["reason"] == "turnframe.batch.committed"


def test_replay_json_shows_the_provider_attempts(first: dict[str, Any]) -> None:
    (attempt,) = first["provider_attempts"]
    assert (attempt["provider"], attempt["outcome"], attempt["used"]) == ("rules", "ok", True)


def test_replay_json_shows_the_committed_events(first: dict[str, Any]) -> None:
    assert [(e["type"], e["data"]) for e in first["events"]] == [
        ("field_set", {"field": "note", "value": "window seat"})
    ]


def test_replay_json_shows_the_template_hash(first: dict[str, Any]) -> None:
    assert len(first["template_hash"]) == 64


def test_replay_of_a_waiting_turn_shows_no_outcome_of_its_own_and_the_journal_now(
    chatted: tuple[Path, list[dict[str, Any]]],
) -> None:
    folder, turns = chatted
    (command,) = replay_json(folder, turns[1]["turn_id"])["commands"]
    assert command["name"] == "rebook"
    assert command["outcome"] is None  # the turn only waited for the card
    assert command["journal_status"] == "committed"  # the later click committed it


def test_replay_of_a_click_shows_the_command_it_authorized(
    chatted: tuple[Path, list[dict[str, Any]]],
) -> None:
    folder, turns = chatted
    view = replay_json(folder, turns[2]["turn_id"])
    assert view["interaction_outcome"]["status"] == "confirmed"
    (command,) = view["commands"]
    assert command["name"] == "rebook"
    assert command["planned_in"] == turns[1]["turn_id"]
    assert command["outcome"]["reason"] == "turnframe.batch.committed"


def test_replay_text_names_the_rule_that_decided_each_act(
    chatted: tuple[Path, list[dict[str, Any]]],
) -> None:
    folder, turns = chatted
    result = run_cli(
        "replay", turns[0]["turn_id"], "--plain", "--store", folder / "t.db", cwd=folder
    )
    assert result.returncode == 0, result.stderr
    assert (
        "result superseded_by_correction \u00b7 rule turnframe.act.superseded_by_keep_unchanged"
        " \u00b7 decided by act 2 (keep travel_date unchanged)"
    ) in result.stdout


def test_replay_shows_the_digest_of_a_reference_bound_on_the_command_line(
    tmp_path: Path,
) -> None:
    glossary = tmp_path / "glossary.md"
    glossary.write_text("the usual hotel = Hotel Almirante\n- lounge pass at 15 euros\n")
    (turn,) = chat_json(
        tmp_path, "Add the usual hotel night.", extra=("--reference", "glossary=glossary.md")
    )
    (item,) = replay_json(tmp_path, turn["turn_id"])["references"]["references"]
    assert item["slot"] == "glossary"
    assert item["layer"] == "cli"
    assert item["digest"] == hashlib.sha256(glossary.read_bytes()).hexdigest()
