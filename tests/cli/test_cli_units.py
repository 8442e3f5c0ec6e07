"""The CLI's pure parts: script lines, choosing a card option, the audit view's fallbacks."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from turnframe.cli.conversation import CardOption, pick_option
from turnframe.cli.errors import BadScript, UnknownOptionLabel
from turnframe.cli.script import Click, Quit, Say, parse_line, read_script
from turnframe.lifecycle import TurnPhase
from turnframe.pipeline.replay_view import build_replay_view, describe_act
from turnframe.stores.records import TurnRecord

OPTIONS = [
    CardOption(option_id="confirm", label="confirm", action="confirm"),
    CardOption(option_id="decline", label="decline", action="decline"),
]


def test_a_click_line_keeps_its_whole_label() -> None:
    step = parse_line("/click  Anna (Lisbon) ", line=3, origin="s.txt")
    assert step == Click(label="Anna (Lisbon)", line=3)


def test_a_comment_line_is_no_step() -> None:
    assert parse_line("  # not a turn", line=1, origin="s.txt") is None


def test_a_message_line_is_said_trimmed() -> None:
    assert parse_line("  Thanks!  ", line=1, origin="s.txt") == Say(text="Thanks!", line=1)


def test_an_unknown_command_names_the_file_and_line() -> None:
    with pytest.raises(BadScript, match=r"s\.txt:7: unknown command '/undo'"):
        parse_line("/undo", line=7, origin="s.txt")


def test_a_script_stops_at_its_first_quit(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("Thanks!\n/quit\nSet the note to x\n")
    assert read_script(path) == [Say(text="Thanks!", line=1), Quit(line=2)]


def test_a_script_that_is_not_utf8_is_a_bad_script(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_bytes(b"caf\xe9\n")
    with pytest.raises(BadScript, match="not UTF-8"):
        read_script(path)


def test_an_option_is_picked_by_its_label_ignoring_case() -> None:
    assert pick_option(OPTIONS, "Confirm").option_id == "confirm"


def test_an_option_is_picked_by_its_id_when_no_label_matches() -> None:
    options = [
        CardOption(option_id="opt-1", label="Anna", action="select_case"),
        CardOption(option_id="opt-2", label="Anna", action="select_case"),
    ]
    assert pick_option(options, "opt-2").option_id == "opt-2"


def test_two_options_with_the_same_label_are_refused_naming_their_ids() -> None:
    options = [
        CardOption(option_id="opt-1", label="Anna", action="select_case"),
        CardOption(option_id="opt-2", label="Anna", action="select_case"),
    ]
    with pytest.raises(UnknownOptionLabel, match="opt-1, opt-2"):
        pick_option(options, "Anna")


def test_an_unknown_label_is_refused_naming_the_labels() -> None:
    with pytest.raises(UnknownOptionLabel, match="its options: confirm, decline"):
        pick_option(OPTIONS, "yes")


def _turn(*, plan: object = None, reduction: object = None) -> TurnRecord:
    at = datetime(2026, 1, 28, tzinfo=UTC)
    return TurnRecord(
        account_id="a",
        turn_id="turn-1",
        session_id="ses-1",
        payload={"text": "Set the note to x", "clock": at.isoformat()},
        phase=TurnPhase.REDUCED,
        plan=plan,
        reduction=reduction,
        created_at=at,
        phase_changed_at=at,
    )


def test_without_a_replay_record_the_view_reads_the_turn_record() -> None:
    act = {
        "kind": "set_field",
        "field": "note",
        "value": "x",
        "target": {"by": "label", "label": "L"},
        "evidence": [{"start": 0, "end": 17, "text": "Set the note to x"}],
    }
    result = {
        "act_index": 0,
        "kind": "set_field",
        "status": "ready_to_execute",
        "reason": "turnframe.act.ready",
        "decided_by": {"index": 0, "interaction_id": None},
    }
    view = build_replay_view(
        turn=_turn(
            plan={"plan": {"acts": [act]}, "provider": "rules"}, reduction={"results": [result]}
        ),
        replay=None,
        journal=[],
        events=[],
        blocks=None,
    )
    assert view.source == "turn_record"
    assert (view.provider, view.acts[0].summary, view.acts[0].reason) == (
        "rules",
        "set note to \u201cx\u201d",
        "turnframe.act.ready",
    )


def test_a_turn_never_interpreted_has_an_empty_view() -> None:
    view = build_replay_view(turn=_turn(), replay=None, journal=[], events=[], blocks=None)
    assert (view.source, view.acts, view.commands) == ("none", (), ())


def test_an_operation_is_described_with_its_arguments_as_said() -> None:
    act = {"kind": "operation", "operation": "add_extra", "args": {"item": "lounge pass"}}
    assert describe_act(act) == "add_extra(item=\u201clounge pass\u201d)"
