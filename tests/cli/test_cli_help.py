"""``--help`` is plain text: the reST markup of the docstrings it is made from does not show."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from cli_kit import run_cli
from hypothesis import given
from hypothesis import strategies as st

from turnframe.cli import build_parser
from turnframe.cli.parser import plain_text

REST_MARKUP = re.compile(r"`|:(?:class|meth|func|mod|attr|data|exc):")


def _every_parser(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _every_parser(child)


def test_every_commands_help_is_plain_text() -> None:
    parsers = list(_every_parser(build_parser()))
    assert {p.prog for p in parsers} >= {
        "turnframe",
        "turnframe chat",
        "turnframe demo",
        "turnframe replay",
        "turnframe sessions",
        "turnframe corpus check",
    }
    for parser in parsers:
        text = parser.format_help()
        assert not REST_MARKUP.search(text), f"{parser.prog} --help:\n{text}"


def test_help_on_the_command_line_shows_the_words_without_the_backticks(tmp_path: Path) -> None:
    result = run_cli("chat", "--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "/click OPTION_LABEL clicks an option" in " ".join(result.stdout.split())
    assert "`" not in result.stdout


def test_plain_text_drops_roles_literals_and_quotes() -> None:
    assert (
        plain_text("see ``--json`` and `turnframe sessions`") == "see --json and turnframe sessions"
    )
    assert plain_text(":class:`~turnframe.runtime.Runtime` and :meth:`x.y`") == "Runtime and x.y"
    assert plain_text("``FILE:LINE:\nreason``") == "FILE:LINE:\nreason"


@given(st.text().filter(lambda t: "`" not in t))
def test_text_without_markup_is_left_as_it_is(text: str) -> None:
    assert plain_text(text) == text
