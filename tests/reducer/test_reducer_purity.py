"""The reducer stays pure: it imports nothing that does I/O and reads no clock or randomness."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import turnframe

IO_MODULES = ["anyio", "aiosqlite", "httpx", "asyncpg", "sqlite3", "asyncio", "trio", "socket"]
PURE_MODULES = [
    "turnframe.reduce",
    "turnframe.plan",
    "turnframe.results",
    "turnframe.workflow",
    "turnframe.policy",
    "turnframe._identity",
    "turnframe.messages",
    "turnframe._strict",
]


def test_the_reducer_module_imports_nothing_that_does_io() -> None:
    script = (
        "import json, sys\n"
        "import turnframe.reduce\n"
        f"print(json.dumps([m for m in {IO_MODULES!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_the_pure_modules_read_no_clock_and_no_randomness() -> None:
    root = pathlib.Path(turnframe.__file__).parent
    sources = [root / "reduce"] + [root / f"{m.split('.')[1]}.py" for m in PURE_MODULES[1:]]
    files = [p for s in sources for p in ([s] if s.is_file() else sorted(s.glob("*.py")))]
    forbidden = [
        "datetime.now",
        "time.time",
        "import random",
        "import uuid",
        "os.urandom",
        "new_id(",
    ]
    offending = [
        (f.name, word) for f in files for word in forbidden if word in f.read_text(encoding="utf-8")
    ]
    assert files and offending == []
