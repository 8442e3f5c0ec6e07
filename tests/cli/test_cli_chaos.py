"""``turnframe chaos`` as an adopter runs it: a summary, the failing seeds, the exit code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_kit import cli_env, run_cli


def test_chaos_json_ends_with_the_summary_line_and_exits_0_without_violations(
    tmp_path: Path,
) -> None:
    result = run_cli(
        "chaos", "--workflow", "refund-desk", "--runs", "8", "--seed", "3", "--json", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert set(summary) == {"runs", "violations", "faults", "failing_seeds"}
    assert (summary["runs"], summary["violations"], summary["failing_seeds"]) == (8, 0, [])
    assert "sender_dies_after_sending" in summary["faults"]


def test_a_sabotaged_component_exits_1_and_each_failing_run_names_the_seed_that_replays_it(
    tmp_path: Path,
) -> None:
    args = ("chaos", "--workflow", "travel-desk", "--runs", "3", "--sabotage", "drop-receipt")
    result = run_cli(*args, "--json", "--jobs", "1", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    *failures, last = [json.loads(line) for line in result.stdout.splitlines()]
    assert last["violations"] > 0 and last["failing_seeds"] == [f["seed"] for f in failures]
    first = failures[0]
    assert first["reproduce"] == (
        "turnframe chaos --workflow travel-desk --sabotage drop-receipt --runs 1 "
        f"--seed {first['seed']}"
    )
    assert {v["invariant"] for v in first["violations"]} == {"act_result_not_visible"}
    alone = run_cli(*first["reproduce"].split()[1:], "--json", cwd=tmp_path)
    assert json.loads(alone.stdout.splitlines()[-1])["failing_seeds"] == [first["seed"]]


def test_over_http_a_sabotaged_component_still_exits_1_and_its_replay_keeps_the_transport(
    tmp_path: Path,
) -> None:
    args = ("chaos", "--workflow", "travel-desk", "--runs", "2", "--sabotage", "drop-receipt")
    result = run_cli(*args, "--transport", "http", "--json", "--jobs", "1", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    *failures, last = [json.loads(line) for line in result.stdout.splitlines()]
    assert last["violations"] > 0
    assert failures[0]["reproduce"].endswith(
        f"--transport http --runs 1 --seed {failures[0]['seed']}"
    )


def test_the_plain_summary_lists_every_invariant_and_every_fault_kind(tmp_path: Path) -> None:
    result = run_cli("chaos", "--workflow", "travel-desk", "--runs", "2", "--plain", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert ": OK" in out.splitlines()[0]
    for name in ("interpretation_after_seal", "duplicated_effect", "unknown_outcome_resent"):
        assert name in out
    for kind in ("provider_timeout", "store_crash", "actor_crash", "sender_dies_after_sending"):
        assert kind in out


def test_a_corpus_that_cannot_be_read_is_one_line_on_stderr(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"turns": "not a list"}\n', encoding="utf-8")
    result = run_cli("chaos", "--workflow", "refund-desk", "--corpus", corpus, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("turnframe: turnframe.chaos.bad_target: ")
    assert "c.jsonl:1" in result.stderr and len(result.stderr.splitlines()) == 1


#: ``turnframe chaos`` whose runs say which process plays them, on stderr.
SAYING_CHAOS = """
import os, sys
from turnframe.testing.chaos import run as chaos_run

played = chaos_run.ChaosRunner.run

async def run(self, seed):
    print(f"playing in {os.getpid()}", file=sys.stderr, flush=True)
    return await played(self, seed)

chaos_run.ChaosRunner.run = run
from turnframe.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_ends_a_chaos_run_and_its_worker_processes_within_two_seconds(
    tmp_path: Path,
) -> None:
    args = ["chaos", "--workflow", "refund-desk", "--runs", "100000", "--jobs", "2", "--json"]
    process = subprocess.Popen(
        [sys.executable, "-c", SAYING_CHAOS, *args],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    first = process.stderr.readline()
    assert first.startswith("playing in ")
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=60)  # a hang guard; 100,000 runs cannot have finished by themselves
    finally:
        process.kill()
    out, err = process.communicate()
    assert process.returncode == 130 and out == ""
    assert err.splitlines()[-1].startswith("turnframe: turnframe.cli.interrupted: ")
    assert "Traceback" not in err
    workers = {int(line.split()[-1]) for line in [first, *err.splitlines()] if "playing" in line}
    assert workers and process.pid not in workers
    for pid in workers:  # terminated with the command, none left playing
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
