"""Reading chat lines from stdin without blocking the event loop or the exit.

A daemon thread reads one line each time the chat asks for one (so the ``you>`` prompt appears
only after the previous turn's output). The event loop waits in a worker thread that ``close``
always releases, so Ctrl-C or an error never leaves the process waiting for a line.
"""

from __future__ import annotations

import queue
import sys
import threading

import anyio.to_thread

from turnframe.cli.errors import BadInput

PROMPT = "you> "
_ASK = object()


class LineReader:
    def __init__(self, *, interactive: bool) -> None:
        self._interactive = interactive
        self._asks: queue.Queue[object] = queue.Queue()
        self._lines: queue.Queue[str | BadInput | None] = queue.Queue()
        self._number = 0
        threading.Thread(target=self._run, name="turnframe stdin", daemon=True).start()

    async def next_line(self) -> str | None:
        """The next line, or ``None`` at the end of input (or after :meth:`close`); a line that
        is not UTF-8 is a :class:`BadInput` error (the reader goes on with the next line)."""
        self._asks.put(_ASK)
        line = await anyio.to_thread.run_sync(self._lines.get, abandon_on_cancel=True)
        if isinstance(line, BadInput):
            raise line
        return line

    def close(self) -> None:
        self._lines.put(None)

    def _run(self) -> None:
        while self._asks.get() is _ASK:
            self._number += 1
            try:
                line: str | BadInput | None = read_line(self._interactive)
            except UnicodeDecodeError as exc:
                byte = exc.object[exc.start : exc.start + 1].hex()
                line = BadInput(
                    f"stdin line {self._number} is not UTF-8 text (byte 0x{byte} at "
                    f"position {exc.start})",
                    hint="send UTF-8 text",
                )
            self._lines.put(line)
            if line is None:
                return


def read_line(interactive: bool) -> str | None:
    """One line of input (``None`` at its end); at a terminal after a ``you>`` prompt, which
    goes to stderr when stdout is not the terminal (so ``--json`` output stays clean)."""
    if interactive and sys.stdout.isatty():
        try:
            return input(PROMPT)
        except EOFError:
            return None
    if interactive:
        sys.stderr.write(PROMPT)
        sys.stderr.flush()
    raw = sys.stdin.buffer.readline()  # bytes: a line that is not UTF-8 is refused, not crashed on
    return raw.decode("utf-8") if raw else None


__all__ = ["PROMPT", "LineReader", "read_line"]
