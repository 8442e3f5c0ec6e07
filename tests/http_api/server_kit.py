"""``turnframe serve`` in a child process on 127.0.0.1 (a free port), stopped with SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs

import turnframe

REPO = Path(turnframe.__file__).resolve().parents[1]
DEMO_CLOCK = "2026-01-28T09:30:00+00:00"


@attrs.define
class Served:
    url: str
    process: subprocess.Popen[str]

    def stop(self) -> int:
        """SIGTERM, then the exit status (the server drains first)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


@contextlib.contextmanager
def serving(store: Path, *extra: str) -> Iterator[Served]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "turnframe", "serve", "--store", str(store), "--port", "0"]
    process = subprocess.Popen(
        [*command, "--clock", DEMO_CLOCK, *extra],
        cwd=store.parent,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("turnframe: serving"), line
        url = line.split(" on ", 1)[1].split("/ ", 1)[0]
        yield Served(url=url, process=process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
