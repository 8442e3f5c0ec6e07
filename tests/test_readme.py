"""The README's embedding example runs as written, on asyncio and on trio."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    [example] = [b for b in blocks if "Runtime(" in b]
    return example.replace('store="turns.db"', 'store=":memory:"')


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_readme_embedding_example_runs(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _example().replace("anyio.run(main)", f"anyio.run(main, backend={backend!r})")
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    assert "turnframe.receipt.committed" in capsys.readouterr().out
