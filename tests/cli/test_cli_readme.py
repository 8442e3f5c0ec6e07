"""The README's first command, alone, in a fresh virtual environment, runs the demo.

Slow (it builds a virtual environment and installs from PyPI): it runs only with
``TURNFRAME_SLOW_TESTS=1``. It copies the working tree, so the checkout's own ``.venv`` is
never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def first_command(readme: str) -> str:
    """The first line of the README's first ``bash`` code block."""
    block = readme.split("```bash\n", 1)[1]
    return block.splitlines()[0]


def test_the_readmes_first_command_is_the_demo() -> None:
    command = first_command((REPO / "README.md").read_text(encoding="utf-8"))
    assert command.endswith("&& turnframe demo")


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("TURNFRAME_SLOW_TESTS") != "1", reason="set TURNFRAME_SLOW_TESTS=1"
)
def test_the_readmes_first_command_alone_runs_the_demo(tmp_path: Path) -> None:
    checkout = tmp_path / "turnframe"
    shutil.copytree(
        REPO,
        checkout,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            ".ci-venv",
            "*.db",
            "*.db-*",
            "__pycache__",
            ".mypy_cache",
            ".ruff_cache",
            ".pytest_cache",
            ".hypothesis",
        ),
    )
    command = first_command((checkout / "README.md").read_text(encoding="utf-8"))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    venv_bin = os.environ.get("VIRTUAL_ENV")
    if venv_bin:  # the fresh venv must not borrow this one's python3 or turnframe
        hidden = str(Path(venv_bin) / "bin")
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != hidden)
    result = subprocess.run(
        ["bash", "-c", command],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (checkout / ".venv" / "bin" / "turnframe").exists()
    assert "superseded by act 2" in result.stdout
