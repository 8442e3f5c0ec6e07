"""Every example of README.md and docs/ works as a newcomer pastes it.

**Python.** Sybil finds every ```python block (any Markdown file added under docs/ is picked up);
each one runs as its own ``python`` process in a fresh, empty temporary directory, importing
this checkout, under a timeout. It then runs a second time in the same directory: an example
that needs a store opens or creates it and seeds only what is missing, so running it again works
too. There are no fragments: a block that cannot run as pasted is a bug of the docs.

A block whose info string also names a file (```python title="chaos_my_desk.py", ```json
title="garden_v1/manifest.json": the mkdocs-material convention) is a file the page asks the
reader to save: it is written into the directory of every block of its document before that
block runs, so a block may import it and a command may read or run it.

**Shell.** Every ```bash (or ```sh, ```shell, ```console: its ``$ `` lines) block runs with bash
in a fresh temporary directory, once, offline (HTTP proxies point at a closed port on 127.0.0.1,
so anything but 127.0.0.1 fails), with the venv's ``turnframe`` and ``python`` on ``PATH``. Setting
up a checkout is CI's job, not the docs': commands that create or activate a virtualenv, ``pip
install`` and the project's own test suite (``python -m pytest`` without a path) are left out,
the rest of their line (``a && b``) and block still runs. A synopsis (``[--options]``,
``a|b``, ``TURN_ID``) is not a command and lives in a plain ``` block.

A block that starts a long-running server is a ```bash-server block of one command. The test
starts it, waits until it prints the line naming its address (``http://127.0.0.1:PORT``; a
server without a port, such as ``turnframe worker``, its first line), runs the next shell block
of the document (its client) against it, then stops it as Ctrl-C does and expects it to exit.
Port 8000 in both blocks is moved to a free port, so that parallel runs never collide.
"""

from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown import CodeBlockParser

REPO = Path(__file__).resolve().parents[1]
#: Long enough for a slow, shared machine; short enough that a block waiting forever fails.
TIMEOUT_SECONDS = 180
#: An opening fence and its info string (``` or ~~~, possibly indented in a list).
FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([^\s`]*)([^\n]*)$", re.MULTILINE)
#: A block that is a file to save: ```json title="garden_v1/manifest.json" (a relative path).
TITLE = re.compile(r'^\s*title="((?!/)(?!.*\.\.)[\w./-]+)"\s*$')
SHELL = ("bash", "sh", "shell", "console")
SERVER = "bash-server"
#: What sets up a checkout rather than uses turnframe (see the module docstring).
SETUP = re.compile(
    r"^(python3? -m venv\b|(\.|source) \S*bin/activate\b|(python3? -m )?pip install\b"
    r"|python3? -m pytest(\s+-\S+)*$)"
)
#: A line of a plain block that looks like a command but is a synopsis or an output.
SYNOPSIS = re.compile(r"[\[|<…—]|\b[A-Z][A-Z_]{2,}\b")
#: Where the docs' servers listen; moved to a free port when a test runs them.
DOC_PORT = "8000"


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _environment() -> dict[str, str]:
    """The reader's shell: turnframe installed (this checkout), no turnframe settings, offline."""
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith("TURNFRAME_") and k != "NO_COLOR"
    }
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), environment.get("PYTHONPATH", "")) if p
    )
    environment["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), environment["PATH"]))
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens, so nothing leaves
    for proxy in ("http_proxy", "https_proxy", "all_proxy"):
        environment[proxy] = environment[proxy.upper()] = closed
    environment["no_proxy"] = environment["NO_PROXY"] = "127.0.0.1,localhost"
    return environment


def _fences(path: Path) -> Iterator[tuple[int, str, str, list[str]]]:
    """(line, info string, the rest of the fence line, body lines) of every fenced block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, info, rest = opening.group(1), opening.group(2), opening.group(3)
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        yield index + 1, info, rest, lines[index + 1 : end]
        index = end + 1


def _saved_files(path: Path) -> dict[str, str]:
    """The files a document asks its reader to save: its titled blocks, by relative path."""
    files = {}
    for _, _, rest, body in _fences(path):
        title = TITLE.match(rest)
        if title is not None:
            files[title.group(1)] = "\n".join(body) + "\n"
    return files


def _save_files(path: Path, folder: Path) -> None:
    for name, text in _saved_files(path).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


# -- python ---------------------------------------------------------------------------------


class PythonBlocks(CodeBlockParser):
    """Sybil's Markdown code blocks whose info string is ``python``, with or without a title."""

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in self.lexers(document):
            info, _, rest = region.lexemes["arguments"].partition(" ")
            if info == "python" and (not rest or TITLE.match(rest)):
                region.parsed = region.lexemes["source"]
                region.evaluator = self._evaluator
                yield region


def _run(example: Example) -> None:
    """Sybil's evaluator: the block, as pasted, twice in one fresh directory."""
    source = str(example.parsed)
    where = f"{Path(example.path).relative_to(REPO)}:{example.line}"
    folder = Path(example.namespace["folder"])
    _save_files(Path(example.path), folder)
    for run in ("a fresh directory", "the same directory again"):
        result = _python(source, folder, where)
        if result.returncode != 0:
            pytest.fail(
                f"the ```python block at {where} fails in {run} (exit {result.returncode}):\n"
                f"{result.stderr[-3000:]}",
                pytrace=False,
            )


def _python(source: str, folder: Path, where: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-c", source],
            cwd=folder,
            env=_environment(),
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the ```python block at {where} did not finish within {TIMEOUT_SECONDS} s")


SYBIL = Sybil(parsers=[PythonBlocks(language="python", evaluator=_run)])


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


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_python_blocks_are_python_complete_programs_never_fragments(path: Path) -> None:
    wrong = [
        f"line {line}: ```{info}{rest}"
        for line, info, rest, _ in _fences(path)
        if info.lower().startswith("py")
        and not (info == "python" and (not rest.strip() or TITLE.match(rest)))
    ]
    assert not wrong, (
        f"{path.name}: write ```python (a complete program that runs as pasted; "
        f'```python title="name.py" for a file the reader saves): {wrong}'
    )


def test_the_check_finds_the_blocks_it_runs() -> None:
    ran = {(str(Path(e.path)), e.line) for e in (p.values[0] for p in _examples())}
    fenced = {
        (str(path), line)
        for path in documents()
        for line, info, _, _ in _fences(path)
        if info == "python"
    }
    assert ran == fenced


# -- shell ----------------------------------------------------------------------------------


def _commands(info: str, body: list[str]) -> str:
    """The block as the test runs it: ``$`` lines of a console block, set-up commands left out."""
    if info == "console":
        body = [line[2:] for line in body if line.startswith("$ ")]
    script = []
    for line in body:
        kept = [part for part in line.split(" && ") if not SETUP.match(part.strip())]
        script.append(" && ".join(kept))
    return "\n".join(script).strip() + "\n"


def _shell_blocks() -> Iterator[tuple[Path, int, str, str, str | None]]:
    """(document, line, info, script, the client script when it is a server) per shell block.

    A server's client (the next shell block) runs with its server, not on its own."""
    for path in documents():
        blocks = [
            (line, info, body)
            for line, info, _, body in _fences(path)
            if info in SHELL or info == SERVER
        ]
        client_of_previous = False
        for index, (line, info, body) in enumerate(blocks):
            if client_of_previous:
                client_of_previous = False
                continue
            client = None
            if info == SERVER:
                following = blocks[index + 1 : index + 2]
                client = _commands(following[0][1], following[0][2]) if following else ""
                client_of_previous = True
            yield path, line, info, _commands(info, body), client


def _shell_params() -> list[pytest.ParameterSet]:
    return [
        pytest.param(path, info, script, client, id=f"{path.relative_to(REPO)}:{line}")
        for path, line, info, script, client in _shell_blocks()
        if script.strip()
    ]


def _bash(script: str, folder: Path, where: str) -> None:
    try:
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=folder,
            env=_environment(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the shell block at {where} did not finish within {TIMEOUT_SECONDS} s")
    if result.returncode != 0:
        pytest.fail(
            f"the shell block at {where} fails (exit {result.returncode}):\n{script}\n"
            f"stdout:\n{result.stdout[-2000:]}\nstderr:\n{result.stderr[-3000:]}",
            pytrace=False,
        )


def _free_port() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def _on_port(script: str, port: str) -> str:
    return re.sub(rf"(?<=[:= ]){DOC_PORT}\b", port, script)


def _server_command(script: str) -> list[str]:
    """The one command of a server block, as words (continued lines joined, comments dropped)."""
    commands = [line for line in script.replace("\\\n", " ").splitlines() if line.strip()]
    assert len(commands) == 1, f"a ```{SERVER} block holds one command, not {commands}"
    return shlex.split(commands[0], comments=True)


def _serve_and_ask(server: str, client: str, folder: Path, where: str) -> None:
    """Start ``server``, wait until it says where it listens, run ``client``, stop it."""
    words = _server_command(server)
    port = _free_port()
    if words[:2] == ["turnframe", "serve"] and not any(w.startswith("--port") for w in words):
        words += ["--port", DOC_PORT]
    command = _on_port(shlex.join(words), port)
    listens = command != shlex.join(words)
    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=folder,
        env=_environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        ready = f"127.0.0.1:{port}" if listens else ""
        while True:
            try:
                line = lines.get(timeout=TIMEOUT_SECONDS)
            except queue.Empty:
                pytest.fail(f"the server at {where} said nothing within {TIMEOUT_SECONDS} s")
            if line is None:
                pytest.fail(
                    f"the server at {where} exited ({process.wait()}) before it was ready:\n"
                    + "".join(seen)[-3000:],
                    pytrace=False,
                )
            seen.append(line)
            if ready in line:
                break
        _bash(_on_port(client, port), folder, f"{where} (the client of its server)")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
        try:
            code = process.wait(timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"the server at {where} did not stop on Ctrl-C")
        reader.join(timeout=TIMEOUT_SECONDS)
    assert code == 0, f"the server at {where} did not exit 0 on Ctrl-C, but {code}"


@pytest.mark.parametrize(("path", "info", "script", "client"), _shell_params())
def test_every_shell_block_in_the_docs_runs_as_pasted(
    path: Path,
    info: str,
    script: str,
    client: str | None,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    where = request.node.callspec.id
    _save_files(path, tmp_path)
    if info == SERVER:
        assert client, f"the ```{SERVER} block at {where} needs a shell block after it: its client"
        _serve_and_ask(script, client, tmp_path, where)
    else:
        _bash(script, tmp_path, where)


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_command_a_reader_would_paste_is_in_a_shell_block_that_runs(path: Path) -> None:
    """A plain block may show a synopsis or an output; a concrete ``turnframe`` command belongs
    in a shell block, where the test above runs it."""
    concrete = [
        f"line {line + 1 + offset}: {text.strip()}"
        for line, info, _, body in _fences(path)
        if info not in SHELL and info != SERVER
        for offset, text in enumerate(body)
        if re.match(r"\s*turnframe [a-z]", text) and not SYNOPSIS.search(text)
    ]
    assert not concrete, f"{path.name}: put these in a ```bash block (it runs): {concrete}"


def test_a_server_block_is_one_command_followed_by_its_client() -> None:
    servers = [
        (path, line, script, client)
        for path, line, info, script, client in _shell_blocks()
        if info == SERVER
    ]
    for path, line, script, client in servers:
        where = f"{path.relative_to(REPO)}:{line}"
        assert _server_command(script), where
        assert client, f"{where}: a ```{SERVER} block is followed by a shell block, its client"


def test_setup_commands_are_left_out_and_the_rest_of_the_line_runs() -> None:
    body = [
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[cli]'"
        " && turnframe demo",
        "python -m pytest -q",
        "python -m pytest -q test_chaos_my_desk.py",
    ]
    assert (
        _commands("bash", body) == "turnframe demo\n\npython -m pytest -q test_chaos_my_desk.py\n"
    )
    assert _commands("console", ["$ turnframe demo", "output"]) == "turnframe demo\n"


def test_the_docs_port_moves_to_the_free_one_in_commands_and_urls() -> None:
    script = "uvicorn a:app --port 8000\ncurl http://127.0.0.1:8000/x\n"
    assert (
        _on_port(script, "41234") == "uvicorn a:app --port 41234\ncurl http://127.0.0.1:41234/x\n"
    )
    assert shlex.split(_on_port("turnframe serve --port=8000", "5"))[-1] == "--port=5"
