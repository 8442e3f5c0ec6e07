"""``turnframe serve`` refuses a bad command line in one line, before it listens."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from server_kit import REPO


def _serve(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turnframe", "serve", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--store", "."], "turnframe.cli.bad_store"),
        (["--workflow", "pizza-desk"], "turnframe.examples.unknown_workflow"),
        (["--port", "70000"], "turnframe.cli.usage"),
        (["--clock", "soon"], "turnframe.cli.bad_clock"),
    ],
)
def test_a_bad_serve_command_line_is_one_line_and_serves_nothing(
    args: list[str], code: str, tmp_path: Path
) -> None:
    done = _serve(*args, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"turnframe: {code}: ")
