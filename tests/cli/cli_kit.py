"""Running the CLI as a user does: a subprocess of this interpreter, in a scratch folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: A Wednesday: "Friday" is 2026-01-30 and the seeded discount is valid until 2026-01-31.
CLOCK = "2026-01-28T09:30:00+00:00"
DEMO_TURN = (
    "Change the travel date to Friday and add a note: window seat please. "
    "Actually, leave the date as it is. Is the discount still valid?"
)


def run_cli(
    *args: str | Path, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("TURNFRAME_STORE", "NO_COLOR")}
    # The package under test is this checkout's, wherever the interpreter's own install points.
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), environment.get("PYTHONPATH", "")) if p
    )
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "turnframe", *map(str, args)],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment,
        check=False,
        timeout=120,
    )


def script(folder: Path, *lines: str, name: str = "turns.txt") -> Path:
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def chat_json(folder: Path, *lines: str, extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Run ``chat --script --json`` on ``lines`` against ``folder/t.db``; the turns' objects."""
    result = run_cli(
        "chat",
        "--store",
        folder / "t.db",
        "--clock",
        CLOCK,
        "--script",
        script(folder, *lines),
        "--json",
        *extra,
        cwd=folder,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]
