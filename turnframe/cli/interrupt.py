"""Ctrl-C ends a command at once, even in the middle of a turn.

A command's async main runs in a task group that the first SIGINT cancels. Most waits end there
and then; a few cannot be cut short (a store write waiting for another process's lock, a thread
that does not look at cancellation), so cleaning up gets :data:`GRACE_SECONDS`, after which the
process leaves without waiting further. A second Ctrl-C leaves at once.

Leaving early loses nothing: every phase of a turn is committed in its own store transaction, and
a transaction cut short is rolled back by the store, so an interrupted turn is left at its last
committed phase and the next runtime start on that store finishes it exactly once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple, Unpack

import anyio

from turnframe.cli.errors import CliError, one_line

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

#: How long cleaning up may take after Ctrl-C before the process leaves anyway.
GRACE_SECONDS = 1.0
EXIT_INTERRUPTED = 130


class Interrupted(CliError):
    """Ctrl-C: the command stopped; an unfinished turn is finished on the next run."""

    code = "turnframe.cli.interrupted"


def interrupted_error() -> Interrupted:
    return Interrupted(
        "interrupted",
        hint="a turn left unfinished is finished the next time a chat runs on this store",
    )


class _Exit:
    """Leaves the process after the grace period (or a second Ctrl-C), saying so once."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self.reported = threading.Event()

    def request(self) -> None:
        if self.requested.is_set():
            self.now()
        self.requested.set()
        timer = threading.Timer(GRACE_SECONDS, self.now)
        timer.daemon = True  # never keeps the process alive by itself
        timer.start()

    def now(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        if not self.reported.is_set():
            os.write(2, (one_line(interrupted_error()) + "\n").encode())
        os._exit(EXIT_INTERRUPTED)


def run_interruptible(main: Callable[[Unpack[Ts]], Awaitable[T]], *args: *Ts) -> T:
    """``anyio.run(main, *args)``, ended by Ctrl-C within :data:`GRACE_SECONDS`; raises
    :class:`Interrupted` when it was."""
    leave = _Exit()
    outcome: list[T] = []
    failure: list[Exception] = []

    async def guarded() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(_watch_sigint, group.cancel_scope, leave)
            try:
                outcome.append(await main(*args))
            except Exception as error:  # raised below as it is, not wrapped in a group
                failure.append(error)
            finally:
                group.cancel_scope.cancel()

    try:
        anyio.run(guarded)
    except KeyboardInterrupt:  # a Ctrl-C before the watcher was listening
        leave.request()
    if failure and not leave.requested.is_set():
        raise failure[0]
    if leave.requested.is_set() or not outcome:
        leave.reported.set()  # the caller prints it; the timer only ends a hung exit
        raise interrupted_error()
    return outcome[0]


async def _watch_sigint(scope: anyio.CancelScope, leave: _Exit) -> None:
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            leave.request()
            scope.cancel()


__all__ = [
    "EXIT_INTERRUPTED",
    "GRACE_SECONDS",
    "Interrupted",
    "interrupted_error",
    "run_interruptible",
]
