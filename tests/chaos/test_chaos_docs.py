"""docs/chaos.md: its program runs as pasted in an empty directory, and as a CLI target (in
process and over HTTP)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "chaos.md"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_guides_program_runs_as_pasted_and_its_target_runs_from_the_command_line(
    tmp_path: Path,
) -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    [program] = re.findall(r'```python title="chaos_my_desk.py"\n(.*?)```', guide, re.S)
    (tmp_path / "chaos_my_desk.py").write_text(program, encoding="utf-8")
    pasted = _run("chaos_my_desk.py", cwd=tmp_path)
    assert pasted.returncode == 0, pasted.stderr
    assert "'violations': 0" in pasted.stdout
    args = ("--workflow", "chaos_my_desk:target", "--runs", "3", "--jobs", "1", "--json")
    cli = _run("-m", "turnframe", "chaos", *args, cwd=tmp_path)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout.splitlines()[-1])["violations"] == 0
    over_http = _run("-m", "turnframe", "chaos", *args, "--transport", "http", cwd=tmp_path)
    assert over_http.returncode == 0, over_http.stderr
    assert json.loads(over_http.stdout.splitlines()[-1])["violations"] == 0
