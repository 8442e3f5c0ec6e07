"""``turnframe submit`` and ``turnframe worker`` on a SQLite file (docs/workers.md)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from cli_kit import cli_env, run_cli


def test_a_submitted_turn_is_served_by_worker_once_and_listed_with_its_events(
    tmp_path: Path,
) -> None:
    submitted = run_cli(
        "submit", "--store", "t.db", "--workflow", "travel-desk", "Set the note to aisle.",
        cwd=tmp_path,
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    ids = json.loads(submitted.stdout)
    assert set(ids) == {"session_id", "turn_id"}

    served = run_cli("worker", "--store", "t.db", "--once", cwd=tmp_path)
    assert served.returncode == 0, served.stderr
    lines = [json.loads(line) for line in served.stderr.splitlines()]
    (turn,) = [line for line in lines if line["event"] == "turn"]
    assert (turn["turn_id"], turn["phase"]) == (ids["turn_id"], "delivered")
    assert "aisle" not in served.stderr  # no user text in the log unless asked
    assert lines[-1]["event"] == "stopped" and lines[-1]["delivered"] == 1

    listed = run_cli("sessions", "--store", "t.db", "--json", cwd=tmp_path)
    (session,) = json.loads(listed.stdout)
    assert session["session_id"] == ids["session_id"]
    (only,) = session["turns"]
    assert only["phase"] == "delivered"
    assert [e["type"] for e in only["events"]] == ["field_set"]


def test_submit_wait_prints_the_delivered_turn_and_a_signalled_worker_exits_0(
    tmp_path: Path,
) -> None:
    worker = subprocess.Popen(
        [sys.executable, "-m", "turnframe", "worker", "--store", "t.db"],
        cwd=tmp_path,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stderr is not None
        assert json.loads(worker.stderr.readline())["event"] == "started"
        waited = run_cli(
            "submit", "--store", "t.db", "--workflow", "travel-desk", "--wait",
            "Set the note to window seat.", cwd=tmp_path,
        )  # fmt: skip
        assert waited.returncode == 0, waited.stderr
        view = json.loads(waited.stdout)
        assert view["phase"] == "delivered"
        assert [e["type"] for e in view["events"]] == ["field_set"]
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0
    finally:
        worker.kill()
        worker.wait()


def test_the_same_client_turn_id_submitted_twice_is_one_turn(tmp_path: Path) -> None:
    first = run_cli(
        "submit", "--store", "t.db", "--workflow", "travel-desk", "--client-turn-id", "m1",
        "Thanks!", cwd=tmp_path,
    )  # fmt: skip
    ids = json.loads(first.stdout)
    again = run_cli(
        "submit", "--store", "t.db", "--workflow", "travel-desk", "--client-turn-id", "m1",
        "--session", ids["session_id"], "Thanks!", cwd=tmp_path,
    )  # fmt: skip
    assert json.loads(again.stdout) == ids


def test_worker_refuses_a_database_that_is_not_a_turnframe_store(tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(tmp_path / "other.db")) as conn, conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    result = run_cli("worker", "--store", "other.db", "--once", cwd=tmp_path)
    assert result.returncode == 1
    assert "turnframe.cli.not_a_store" in result.stderr and result.stderr.count("\n") == 1


def test_a_store_url_is_shown_without_its_password() -> None:
    from turnframe.cli.store_url import parse_store, without_password

    url = "postgresql://app:secret@db:5433/turns?schema=desk&sslmode=disable"
    assert without_password(url) == "postgresql://app@db:5433/turns?schema=desk&sslmode=disable"
    where = parse_store(url)
    assert (where.schema, where.dsn) == (
        "desk",
        "postgresql://app:secret@db:5433/turns?sslmode=disable",
    )
    assert "secret" not in where.display()
