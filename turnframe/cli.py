"""The ``turnframe`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from turnframe import __version__
from turnframe.corpora.cli import add_corpus_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnframe",
        description="Conversational agents that change real records, safely.",
    )
    parser.add_argument("--version", action="version", version=f"turnframe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_corpus_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
