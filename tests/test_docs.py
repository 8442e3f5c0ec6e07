"""Every ```python block of README.md and docs/ is a complete program that runs as pasted.

Sybil finds the blocks (any Markdown file added under docs/ is picked up); each one runs as its
own ``python`` process in a fresh, empty temporary directory, importing this checkout, under a
timeout. It then runs a second time in the same directory: an example that needs a store opens
or creates it and seeds only what is missing, so running it again works too.

A block that is not meant to run on its own is a ```python-fragment: short, in a document that
also holds a complete example it is part of.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser

REPO = Path(__file__).resolve().parents[1]
#: Long enough for a slow, shared machine; short enough that a block waiting forever fails.
TIMEOUT_SECONDS = 120
#: A fragment is a glimpse of a complete example, not a program of its own.
MAX_FRAGMENT_LINES = 15
FRAGMENT = "python-fragment"
#: An opening fence and its info string (``` or ~~~, possibly indented in a list).
FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([^\s`]*)[^\n]*$", re.MULTILINE)


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _run(example: Example) -> None:
    """Sybil's evaluator: the block, as pasted, twice in one fresh directory."""
    source = str(example.parsed)
    where = f"{Path(example.path).relative_to(REPO)}:{example.line}"
    folder = Path(example.namespace["folder"])
    for run in ("a fresh directory", "the same directory again"):
        result = _python(source, folder, where)
        if result.returncode != 0:
            pytest.fail(
                f"the ```python block at {where} fails in {run} (exit {result.returncode}):\n"
                f"{result.stderr[-3000:]}",
                pytrace=False,
            )


def _python(source: str, folder: Path, where: str) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith("TURNFRAME_") and k != "NO_COLOR"
    }
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), environment.get("PYTHONPATH", "")) if p
    )
    try:
        return subprocess.run(
            [sys.executable, "-c", source],
            cwd=folder,
            env=environment,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the ```python block at {where} did not finish within {TIMEOUT_SECONDS} s")


SYBIL = Sybil(parsers=[CodeBlockParser(language="python", evaluator=_run)])


def _examples() -> Iterator[pytest.ParameterSet]:
    for path in documents():
        for example in SYBIL.parse(path):
            where = f"{path.relative_to(REPO)}:{example.line}"
            yield pytest.param(example, id=where)


@pytest.mark.parametrize("example", list(_examples()))
def test_every_python_block_in_the_docs_runs_as_pasted_and_runs_again(
    example: Example, tmp_path: Path
) -> None:
    example.namespace["folder"] = tmp_path
    example.evaluate()


def _fences(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line, info string, body lines) of every fenced block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, info = opening.group(1), opening.group(2)
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        yield index + 1, info, lines[index + 1 : end]
        index = end + 1


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_python_blocks_are_complete_programs_or_short_marked_fragments(path: Path) -> None:
    fences = list(_fences(path))
    wrong = [
        f"line {line}: ```{info}"
        for line, info, _ in fences
        if info.lower().startswith("py") and info not in ("python", FRAGMENT)
    ]
    assert not wrong, f"{path.name}: write ```python (runs) or ```{FRAGMENT}: {wrong}"
    fragments = [(line, body) for line, info, body in fences if info == FRAGMENT]
    long = [
        f"line {line}: {len(body)} lines"
        for line, body in fragments
        if len(body) > MAX_FRAGMENT_LINES
    ]
    assert not long, f"{path.name}: a fragment is at most {MAX_FRAGMENT_LINES} lines: {long}"
    complete = [line for line, info, _ in fences if info == "python"]
    assert complete or not fragments, (
        f"{path.name}: fragments at lines {[line for line, _ in fragments]} need a complete "
        "```python example in the same document that they are part of"
    )


def test_the_check_finds_the_blocks_it_runs() -> None:
    ran = {(str(Path(e.path)), e.line) for e in (p.values[0] for p in _examples())}
    fenced = {
        (str(path), line)
        for path in documents()
        for line, info, _ in _fences(path)
        if info == "python"
    }
    assert ran == fenced
