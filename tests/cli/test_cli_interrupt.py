"""Ctrl-C in the middle of a turn ends the command at once and loses nothing: the turn stays at
its last committed phase and the next chat on the store finishes it exactly once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_kit import CLOCK, cli_env, run_cli, script

from turnframe.cli.interrupt import GRACE_SECONDS

#: ``turnframe chat`` whose interpreter is stuck where cancellation cannot reach it (a thread
#: that never returns), like a store write waiting for another process's lock. The rules
#: provider answers at once (``answer_now``); this one is made a provider that waits.
STUCK_CHAT = """
import sys, threading
import anyio.to_thread
from turnframe.providers.rules import RulesProvider

async def stuck(self, request):
    print("interpreting", file=sys.stderr, flush=True)
    await anyio.to_thread.run_sync(threading.Event().wait)

RulesProvider.complete = stuck
del RulesProvider.answer_now  # a provider that waits: the chain awaits the stuck complete()
from turnframe.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _sessions(folder: Path) -> list[dict[str, object]]:
    """Every turn of every session, each with its session id."""
    result = run_cli("sessions", "--turns", "--json", "--store", folder / "t.db", cwd=folder)
    assert result.returncode == 0, result.stderr
    return [
        {**turn, "session_id": session["session_id"]}
        for session in json.loads(result.stdout)
        for turn in session["turns"]
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_during_a_stuck_turn_exits_within_two_seconds_and_the_turn_is_recovered_later(
    tmp_path: Path,
) -> None:
    turns = script(tmp_path, "Set the note to window seat.")
    chat = ["chat", "--store", "t.db", "--clock", CLOCK, "--script", str(turns), "--json"]
    process = subprocess.Popen(
        [sys.executable, "-c", STUCK_CHAT, *chat],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert process.stderr.readline().strip() == "interpreting"
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=60)  # a hang guard, not a measurement
    finally:
        process.kill()
    out, err = process.communicate()
    assert process.returncode == 130
    assert out == ""
    assert "turnframe: turnframe.cli.interrupted: interrupted (" in err
    assert "Traceback" not in err
    # The stuck wait never ends, so the process can only have left through the grace timer,
    # which fires GRACE_SECONDS after the signal: well inside the two seconds promised. (No
    # stopwatch here: a busy machine would make it flaky without proving anything more.)
    assert GRACE_SECONDS < 2.0

    (row,) = _sessions(tmp_path)
    assert row["phase"] == "received"  # nothing interpreted, nothing done

    resumed = run_cli(
        "chat",
        "--store",
        "t.db",
        "--clock",
        CLOCK,
        "--session",
        str(row["session_id"]),
        "--script",
        script(tmp_path, "Thanks!", name="more.txt"),
        "--json",
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr
    first, second = _sessions(tmp_path)
    assert (first["turn_id"], first["phase"]) == (row["turn_id"], "delivered")
    assert second["phase"] == "delivered"
    replay = run_cli("replay", str(row["turn_id"]), "--json", "--store", "t.db", cwd=tmp_path)
    events = json.loads(replay.stdout)["events"]
    assert [e["type"] for e in events] == ["field_set"]  # the note is set once


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_while_a_turn_waits_for_its_interpreter_exits_130_with_one_line(
    tmp_path: Path,
) -> None:
    waiting_chat = STUCK_CHAT.replace(
        "await anyio.to_thread.run_sync(threading.Event().wait)", "await anyio.sleep_forever()"
    ).replace("import anyio.to_thread", "import anyio")
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            waiting_chat,
            "chat",
            "--store",
            "t.db",
            "--script",
            str(script(tmp_path, "Thanks!")),
        ],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert process.stderr.readline().strip() == "interpreting"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.splitlines()[-1].startswith("turnframe: turnframe.cli.interrupted: ")
