"""The command line's argparse parser: refusals are one line, help is plain text.

Command descriptions come from module docstrings, written in reST (``--json``,
:class:`Runtime`); a terminal shows them as plain words, so help output drops that markup.
Sub-parsers are made from the same class, so every command's help reads the same way.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn

from turnframe.cli.errors import UsageError, one_line

EXIT_USAGE = 2

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`]+)`")  # :class:`~a.b.C` -> C, :meth:`x` -> x
_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)  # ``--json`` -> --json (also across a wrap)
_QUOTED = re.compile(r"`([^`]+)`")  # `turnframe sessions` -> turnframe sessions


def plain_text(text: str) -> str:
    """``text`` without reST inline markup: roles, literals and interpreted text."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), text)
    text = _LITERAL.sub(r"\1", text)
    return _QUOTED.sub(r"\1", text)


class Parser(argparse.ArgumentParser):
    """An argparse parser whose refusals are one line, like every other CLI error, and whose
    help is plain text."""

    def error(self, message: str) -> NoReturn:
        error = UsageError(message, hint=f"see `{self.prog} --help`")
        print(one_line(error), file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

    def format_help(self) -> str:
        return plain_text(super().format_help())

    def format_usage(self) -> str:
        return plain_text(super().format_usage())


__all__ = ["EXIT_USAGE", "Parser", "plain_text"]
