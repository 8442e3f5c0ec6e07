"""The root of every typed error turnframe raises.

Every error carries a stable dotted ``code`` (``turnframe.<area>.<what>``) that logs, tests and
adopters can match on, and a ``hint`` that says what to do next.
"""

from __future__ import annotations

from typing import ClassVar


class TurnframeError(Exception):
    """Base class: a stable ``code``, a human message and an optional ``hint``."""

    code: ClassVar[str] = "turnframe.error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class ConfigError(TurnframeError):
    """A configuration value, file or binding is wrong; the message names which."""

    code = "turnframe.config.invalid"
