"""``turnframe demo``: the scripted travel-desk conversation, explained turn by turn."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_kit import DEMO_TURN, run_cli


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    result = run_cli("demo", "--plain", cwd=tmp_path_factory.mktemp("demo"))
    assert result.returncode == 0, result.stderr
    return result


def first_turn(output: str) -> str:
    start = output.index("\u2500\u2500 turn 1 \u2500\u2500")
    return output[start : output.index("\u2500\u2500 turn 2 \u2500\u2500")]


def test_the_demo_starts_with_the_readme_turn(demo: subprocess.CompletedProcess[str]) -> None:
    assert f"you> {DEMO_TURN}" in first_turn(demo.stdout)


def test_the_demos_first_turn_leaves_the_travel_date_unchanged(
    demo: subprocess.CompletedProcess[str],
) -> None:
    turn = first_turn(demo.stdout)
    assert "Not changed: travel date on Trip \u201cLisbon\u201d" in turn
    after = next(line for line in demo.stdout.splitlines() if line.startswith("after:"))
    assert '"travel_date": "2026-03-12"' in after


def test_the_demos_first_turn_adds_the_note(demo: subprocess.CompletedProcess[str]) -> None:
    turn = first_turn(demo.stdout)
    assert "receipt  Trip \u201cLisbon\u201d: note set to \u201cwindow seat\u201d." in turn
    assert "set note to \u201cwindow seat\u201d: DONE" in turn


def test_the_demos_first_turn_answers_the_discount_question(
    demo: subprocess.CompletedProcess[str],
) -> None:
    turn = first_turn(demo.stdout)
    assert "answer   Discount LISBON10 (10% off) is valid until 2026-01-31." in turn
    assert "ask discount_valid: ANSWERED" in turn


def test_the_demos_first_turn_names_the_superseded_change(
    demo: subprocess.CompletedProcess[str],
) -> None:
    turn = first_turn(demo.stdout)
    assert (
        "set travel_date to \u201cFriday\u201d: NOT DONE \u2014 superseded by act 2 "
        "(keep travel_date unchanged)"
    ) in turn
    assert "turnframe.act.superseded_by_keep_unchanged" in turn


def test_the_demo_prints_each_acts_result_and_reason(
    demo: subprocess.CompletedProcess[str],
) -> None:
    turn = first_turn(demo.stdout)
    assert "set_field \u00b7 ready_to_execute \u00b7 turnframe.act.ready" in turn
    assert "keep_unchanged \u00b7 no_change \u00b7 turnframe.act.kept_unchanged" in turn


def test_the_demo_clicks_confirm_on_the_card_it_is_shown(
    demo: subprocess.CompletedProcess[str],
) -> None:
    out = demo.stdout
    after_card = out[out.index("card     Please confirm: rebook") :]
    click = after_card[after_card.index("you> /click confirm") :]
    assert "confirmed (turnframe.interaction.confirmed)" in click.split("\u2500\u2500 turn")[0]
    assert "committed events: rebooked" in click


def test_the_demo_writes_nothing_to_stderr(demo: subprocess.CompletedProcess[str]) -> None:
    assert demo.stderr == ""


def test_the_demo_prints_rich_tables_when_asked(tmp_path: Path) -> None:
    result = run_cli("demo", "--rich", cwd=tmp_path, env={"COLUMNS": "160", "NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    assert "what happened, act by act" in result.stdout
    assert "\u2503" in result.stdout  # a rich table's heavy vertical rule


def test_the_demo_keeps_its_records_in_a_store_when_given_one(tmp_path: Path) -> None:
    result = run_cli("demo", "--plain", "--store", tmp_path / "demo.db", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listed = run_cli("sessions", "--plain", "--store", tmp_path / "demo.db", cwd=tmp_path)
    assert "travel-desk" in listed.stdout
