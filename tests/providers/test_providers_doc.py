"""The complete programs in docs/providers.md run as written (the async one on both backends)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"


def programs() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_fake_provider_example_prints_the_four_attempts(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    [example] = [p for p in programs() if "anyio.run(main)" in p and "FakeProviderServer(" in p]
    code = example.replace("anyio.run(main)", f"anyio.run(main, backend={backend!r})")

    exec(compile(code, str(DOC), "exec"), {"__name__": "providers_doc"})

    out = capsys.readouterr().out.splitlines()
    assert out[0] == 'answered by anthropic: {"acts": []}'
    assert [line.split()[2] for line in out[1:]] == ["first", "retry", "repair", "fallback"]


def test_the_synchronous_fake_provider_example_sees_the_401(
    capsys: pytest.CaptureFixture[str],
) -> None:
    [example] = [p for p in programs() if "in_thread" in p]

    exec(compile(example, str(DOC), "exec"), {"__name__": "providers_doc"})

    assert capsys.readouterr().out.splitlines() == ["401 invalid_api_key", "sk-wrong"]
