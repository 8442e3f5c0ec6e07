"""``turnframe chat``: scripted turns, the JSON shape, clicks, resuming, flags."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_kit import CLOCK, DEMO_TURN, chat_json, cli_env, run_cli, script

TURN_KEYS = {"session_id", "turn_id", "phase", "acts", "blocks", "cards", "events"}


def test_chat_json_prints_one_object_per_turn_in_the_documented_shape(tmp_path: Path) -> None:
    turns = chat_json(tmp_path, DEMO_TURN, "Thanks!")
    assert len(turns) == 2
    for turn in turns:
        assert set(turn) == TURN_KEYS
        assert all(set(a) == {"index", "kind", "result", "reason"} for a in turn["acts"])
        assert all(set(b) == {"kind", "code", "text"} for b in turn["blocks"])
        assert all(set(e) == {"type", "case_id"} for e in turn["events"])


def test_chat_json_reports_each_acts_result_and_reason(tmp_path: Path) -> None:
    (turn,) = chat_json(tmp_path, DEMO_TURN)
    assert turn["phase"] == "delivered"
    assert [(a["index"], a["kind"], a["result"], a["reason"]) for a in turn["acts"]] == [
        (0, "set_field", "superseded_by_correction", "turnframe.act.superseded_by_keep_unchanged"),
        (1, "set_field", "ready_to_execute", "turnframe.act.ready"),
        (2, "keep_unchanged", "no_change", "turnframe.act.kept_unchanged"),
        (3, "question", "ready_to_execute", "turnframe.act.question_for_grounding"),
    ]
    assert turn["events"] == [{"type": "field_set", "case_id": "demo:travel-desk:lisbon"}]


def test_blank_lines_and_comments_in_a_script_are_skipped(tmp_path: Path) -> None:
    turns = chat_json(tmp_path, "# a comment", "", "Thanks!", "   ", "# another", "Thanks!")
    assert len(turns) == 2


def test_a_click_line_confirms_the_open_card(tmp_path: Path) -> None:
    asked, clicked = chat_json(
        tmp_path, "Rebook the return flight to next Monday.", "/click confirm"
    )
    assert [a["result"] for a in asked["acts"]] == ["awaiting_confirmation"]
    assert [b["kind"] for b in asked["blocks"]] == ["notice", "card"]
    assert clicked["events"] == [{"type": "rebooked", "case_id": "demo:travel-desk:lisbon"}]
    assert [b["code"] for b in clicked["blocks"]] == ["turnframe.receipt.committed"]


def test_a_click_label_matches_regardless_of_case(tmp_path: Path) -> None:
    _, clicked = chat_json(tmp_path, "Rebook the return flight to next Monday.", "/click Decline")
    assert [b["code"] for b in clicked["blocks"]] == ["turnframe.notice.declined"]
    assert clicked["events"] == []


def test_the_clock_option_sets_the_day_relative_dates_count_from(tmp_path: Path) -> None:
    (turn,) = chat_json(tmp_path, "Change the travel date to Friday.")
    assert any("2026-01-30" in b["text"] for b in turn["blocks"])


def test_a_resumed_session_continues_in_the_same_session(tmp_path: Path) -> None:
    (first,) = chat_json(tmp_path, "Set the note to aisle please.")
    (second,) = chat_json(tmp_path, "Thanks!", extra=("--session", first["session_id"]))
    assert second["session_id"] == first["session_id"]


def test_a_new_store_gets_the_sample_seed_data_for_the_account(tmp_path: Path) -> None:
    (turn,) = chat_json(tmp_path, "Is the discount still valid?", extra=("--account", "acme"))
    assert turn["blocks"][0]["text"] == "Discount LISBON10 (10% off) is valid until 2026-01-31."


def test_the_refund_desk_is_chosen_with_the_workflow_option(tmp_path: Path) -> None:
    (turn,) = chat_json(
        tmp_path, "How much can be refunded on order 1001?", extra=("--workflow", "refund-desk")
    )
    assert [b["kind"] for b in turn["blocks"]] == ["answer"]


def test_chat_reads_turns_from_stdin_when_it_is_not_a_terminal(tmp_path: Path) -> None:
    result = run_cli(
        "chat",
        "--store",
        tmp_path / "t.db",
        "--json",
        stdin="Thanks!\n/quit\nThanks!\n",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 1


def test_the_anaphora_option_prefixes_an_answer_that_recalls_an_earlier_turn(
    tmp_path: Path,
) -> None:
    lines = ("Why does light reveal truth?", "What is light?")
    plain = chat_json(tmp_path, *lines)[1]["blocks"][0]["text"]
    recalled = chat_json(tmp_path, *lines, extra=("--anaphora",))[1]["blocks"][0]["text"]
    assert recalled == "(Recalling turn 0: chain cause_light_reveals_truth.) " + plain


def test_plain_chat_output_explains_each_turn(tmp_path: Path) -> None:
    result = run_cli(
        "chat",
        "--plain",
        "--store",
        tmp_path / "t.db",
        "--clock",
        CLOCK,
        "--script",
        script(tmp_path, DEMO_TURN),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "set travel_date to \u201cFriday\u201d: NOT DONE" in result.stdout


def test_a_reference_is_bound_from_the_command_line(tmp_path: Path) -> None:
    glossary = tmp_path / "glossary.md"
    glossary.write_text("the usual hotel = Hotel Almirante\n", encoding="utf-8")
    (turn,) = chat_json(
        tmp_path, "Add the usual hotel night.", extra=("--reference", "glossary=glossary.md")
    )
    assert any("Hotel Almirante" in b["text"] for b in turn["blocks"])


def test_a_reference_is_bound_from_a_config_file(tmp_path: Path) -> None:
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "glossary.md").write_text("the usual hotel = Hotel Almirante\n")
    (tmp_path / "conf.toml").write_text('[references]\nglossary = "refs/glossary.md"\n')
    (turn,) = chat_json(tmp_path, "Add the usual hotel night.", extra=("--config", "conf.toml"))
    assert any("Hotel Almirante" in b["text"] for b in turn["blocks"])


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_at_a_terminal_a_mistake_is_printed_and_the_chat_goes_on(tmp_path: Path) -> None:
    import pty

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "turnframe", "chat", "--store", str(tmp_path / "t.db"), "--json"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=cli_env(),
        text=True,
    )
    os.close(terminal)
    try:
        os.write(controller, b"/click yes\nThanks!\n\x04")
        out, err = process.communicate(timeout=120)
    finally:
        os.close(controller)
    assert process.returncode == 0
    assert "turnframe: turnframe.cli.no_open_card: " in err
    assert [json.loads(line)["blocks"][0]["kind"] for line in out.splitlines()] == ["text"]


def test_the_sample_desk_is_seeded_with_dates_counted_from_the_chats_clock(tmp_path: Path) -> None:
    result = run_cli(
        "chat",
        "--store",
        tmp_path / "t.db",
        "--clock",
        "2031-06-01T10:00:00+00:00",
        "--script",
        script(tmp_path, "When do I travel?"),
        "--json",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    (turn,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert any("2031-07-14" in block["text"] for block in turn["blocks"])


@pytest.mark.parametrize(
    "lines", [(), ("# only a comment", ""), ("/quit", "Set the note to window seat.")]
)
def test_a_script_with_nothing_to_say_runs_nothing_and_creates_no_store(
    tmp_path: Path, lines: tuple[str, ...]
) -> None:
    result = run_cli(
        "chat", "--store", tmp_path / "t.db", "--script", script(tmp_path, *lines), cwd=tmp_path
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert not (tmp_path / "t.db").exists()


def test_an_empty_script_or_pipe_on_an_existing_store_creates_no_session(tmp_path: Path) -> None:
    chat_json(tmp_path, "Thanks!")
    before = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path).stdout
    empty = script(tmp_path, name="empty.txt")
    for extra in (("--script", empty), ()):  # a script file, then an empty pipe
        result = run_cli("chat", "--store", tmp_path / "t.db", *extra, cwd=tmp_path, stdin="")
        assert (result.returncode, result.stdout) == (0, "")
    after = run_cli("sessions", "--json", "--store", tmp_path / "t.db", cwd=tmp_path).stdout
    assert len(json.loads(after)) == 1
    assert after == before


def test_chat_json_carries_each_cards_commands_with_the_arguments_a_click_runs(
    tmp_path: Path,
) -> None:
    (turn,) = chat_json(
        tmp_path, "refund order 1001", extra=("--workflow", "refund-desk")
    )
    (card,) = turn["cards"]
    (command,) = card["commands"]
    assert (command["operation"], command["arguments"]) == ("refund", {"amount": 12000})
    assert (command["shown"], command["proposed"]) == ({"amount": "120.00 EUR"}, ["amount"])
    assert [o["option_id"] for o in card["options"]] == ["confirm", "decline"]


def test_a_stdin_line_that_is_not_utf8_ends_the_chat_with_a_one_line_error(
    tmp_path: Path,
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "turnframe", "chat", "--store", str(tmp_path / "t.db"), "--json"],
        input=b"Thanks!\n\xff\xfe not text\n",
        capture_output=True,
        cwd=tmp_path,
        env=cli_env(),
        check=False,
        timeout=120,
    )
    assert result.returncode == 1
    (line,) = result.stderr.decode().strip().splitlines()
    assert line.startswith("turnframe: turnframe.cli.bad_input: stdin line 2 is not UTF-8")
    assert len(result.stdout.decode().splitlines()) == 1  # the first turn ran
