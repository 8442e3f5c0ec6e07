"""The command line's own typed errors: user mistakes, each with a stable code and a hint.

``main`` prints any :class:`~turnframe.errors.TurnframeError` as one line on stderr,
``turnframe: <code>: <message> (<hint>)``, and exits 1; argparse mistakes exit 2 the same way.
"""

from __future__ import annotations

from turnframe.errors import TurnframeError


class CliError(TurnframeError):
    code = "turnframe.cli.error"


class UsageError(CliError):
    """A command line argparse refused (unknown option, missing argument)."""

    code = "turnframe.cli.usage"


class StoreNotFound(CliError):
    code = "turnframe.cli.store_not_found"


class BadStore(CliError):
    """The store path cannot be opened as a turnframe SQLite store."""

    code = "turnframe.cli.bad_store"


class NotAStore(CliError):
    """The database exists but is not a turnframe store: it is never migrated into one."""

    code = "turnframe.cli.not_a_store"


class BadClock(CliError):
    code = "turnframe.cli.bad_clock"


class BadScript(CliError):
    """A script file that cannot be read, or a line that is not a turn, a comment or a command."""

    code = "turnframe.cli.bad_script"


class UnknownSession(CliError):
    code = "turnframe.cli.unknown_session"


class WorkflowMismatch(CliError):
    code = "turnframe.cli.workflow_mismatch"


class UnknownTurn(CliError):
    code = "turnframe.cli.unknown_turn"


class BadInput(CliError):
    """A line on stdin is not UTF-8 text."""

    code = "turnframe.cli.bad_input"


class NoOpenCard(CliError):
    code = "turnframe.cli.no_open_card"


class UnknownOptionLabel(CliError):
    code = "turnframe.cli.unknown_option"


class MissingExtra(CliError):
    """A command needs an optional dependency that is not installed."""

    code = "turnframe.cli.missing_extra"


def one_line(error: TurnframeError) -> str:
    """``turnframe: <code>: <message> (<hint>)``, newlines folded so it stays one line."""
    text = f"turnframe: {error.code}: {error}"
    return " ".join(text.split("\n"))


__all__ = [
    "BadClock",
    "BadInput",
    "BadScript",
    "BadStore",
    "CliError",
    "MissingExtra",
    "NoOpenCard",
    "StoreNotFound",
    "UnknownOptionLabel",
    "UnknownSession",
    "UnknownTurn",
    "UsageError",
    "WorkflowMismatch",
    "one_line",
]
