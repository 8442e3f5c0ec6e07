"""The examples run as a user runs them, twice in the same folder (their stores persist)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import turnframe

REPO = Path(turnframe.__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def _run(example: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("example", ["fastapi_app.py", "trio_service.py"])
def test_an_example_runs_twice_in_the_same_folder(example: str, tmp_path: Path) -> None:
    first = _run(example, tmp_path)
    second = _run(example, tmp_path)
    for out in (first, second):
        assert "turnframe.receipt.committed" in out
        assert "rebooked" in out


def test_the_fastapi_example_answers_with_its_own_auth(tmp_path: Path) -> None:
    out = _run("fastapi_app.py", tmp_path)
    assert "ben reads anna's session: 404 turnframe.http.unknown_session" in out
    assert "no token: 401 turnframe.http.unauthorized" in out
