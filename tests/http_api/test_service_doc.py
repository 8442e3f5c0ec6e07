"""Every ```python block of docs/service.md runs as pasted, in an empty folder, offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from server_kit import REPO

DOC = REPO / "docs" / "service.md"
#: Every ```python block, titled (a file the guide asks to save) or not.
PYTHON_BLOCK = re.compile(r'```python(?: title="[^"]+")?\n(.*?)```', re.S)
BLOCKS = PYTHON_BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_the_service_guide_has_complete_programs() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_a_python_block_of_the_service_guide_runs(number: int, tmp_path: Path) -> None:
    program = tmp_path / "example.py"
    program.write_text(BLOCKS[number], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(program)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
