"""docs/recall.md's programs run as pasted, on asyncio and on trio."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "recall.md"


def _programs() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_recall_guide_has_a_runnable_example() -> None:
    assert _programs()


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_every_python_block_of_the_recall_guide_runs(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for program in _programs():
        code = program.replace("anyio.run(main)", f"anyio.run(main, backend={backend!r})")
        exec(compile(code, str(DOC), "exec"), {"__name__": "recall_guide"})
    out = capsys.readouterr().out
    assert "turnframe.recall.presented" in out and "turnframe.recall.identified" in out
    assert "Recall shows that this was discussed, not that it still holds." in out
