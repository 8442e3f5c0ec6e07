"""A progress bar for work that can run longer than a second at a terminal.

::

    from turnframe.cli.progress import progress

    with progress("checking corpora", total=len(files)) as bar:
        for file in files:
            check(file)
            bar.advance()

The bar is drawn by rich on stderr, only when stderr is a terminal and rich is installed, and
only once the work has run for :data:`SHOW_AFTER_SECONDS` (a quick run shows nothing, a long
step still shows its spinner and elapsed time). Everywhere else every call does nothing, so
stdout (``--json`` output, tables) and pipes are never touched. The bar disappears when the work
ends, leaving the screen to the command's own result.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any, Protocol, TextIO

#: Work shorter than this shows no bar at all.
SHOW_AFTER_SECONDS = 1.0


class ProgressBar(Protocol):
    def advance(self, steps: float = 1) -> None:
        """``steps`` more units of work are done."""
        ...

    def update(
        self,
        *,
        total: float | None = None,
        completed: float | None = None,
        description: str | None = None,
    ) -> None:
        """Change the total once it is known, the amount done, or what is being done."""
        ...


class _NoBar:
    def advance(self, steps: float = 1) -> None:
        pass

    def update(
        self,
        *,
        total: float | None = None,
        completed: float | None = None,
        description: str | None = None,
    ) -> None:
        pass


class _RichBar:
    """A rich ``Progress`` with one task, started by a timer once the work runs long enough."""

    def __init__(
        self, description: str, total: float | None, stream: TextIO, *, force_terminal: bool
    ) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(
            file=stream, force_terminal=force_terminal or None, no_color="NO_COLOR" in os.environ
        )
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._progress.add_task(description, total=total)
        self._lock = threading.Lock()
        self._shown = False
        self._closed = False

    def show(self) -> None:
        with self._lock:
            if not self._closed and not self._shown:
                self._progress.start()
                self._shown = True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._shown:
                self._progress.stop()

    def advance(self, steps: float = 1) -> None:
        self._progress.advance(self._task, steps)

    def update(
        self,
        *,
        total: float | None = None,
        completed: float | None = None,
        description: str | None = None,
    ) -> None:
        changes: dict[str, Any] = {}
        if total is not None:
            changes["total"] = total
        if completed is not None:
            changes["completed"] = completed
        if description is not None:
            changes["description"] = description
        self._progress.update(self._task, **changes)


def progress_enabled(stream: TextIO | None = None) -> bool:
    """Whether :func:`progress` draws on ``stream`` (default stderr): a terminal, with rich."""
    target = stream or sys.stderr
    return importlib.util.find_spec("rich") is not None and target.isatty()


@contextlib.contextmanager
def progress(
    description: str,
    *,
    total: float | None = None,
    stream: TextIO | None = None,
    enabled: bool | None = None,
    show_after: float = SHOW_AFTER_SECONDS,
) -> Iterator[ProgressBar]:
    """A progress bar for the work inside the ``with`` block (see the module docstring).

    ``total`` is the number of units (None: unknown, a spinner and a pulsing bar); ``enabled``
    forces the bar on or off (default: :func:`progress_enabled`); ``show_after`` is how long
    the work runs before the bar appears."""
    target = stream or sys.stderr
    if not (progress_enabled(target) if enabled is None else enabled):
        yield _NoBar()
        return
    bar = _RichBar(description, total, target, force_terminal=bool(enabled))
    timer = threading.Timer(show_after, bar.show)
    timer.daemon = True
    if show_after > 0:
        timer.start()
    else:
        bar.show()
    try:
        yield bar
    finally:
        timer.cancel()
        bar.close()


__all__ = ["SHOW_AFTER_SECONDS", "ProgressBar", "progress", "progress_enabled"]
