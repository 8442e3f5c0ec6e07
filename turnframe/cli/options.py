"""Options several commands share, so they read the same everywhere."""

from __future__ import annotations

import argparse

from turnframe.cli.desk import DEFAULT_ACCOUNT, STORE_ENV


def add_store(parser: argparse.ArgumentParser, *, default_help: str | None = None) -> None:
    parser.add_argument(
        "--store",
        metavar="PATH|URL",
        help=default_help
        or f"a SQLite store file or a postgresql:// URL (default: ${STORE_ENV}, "
        "else ./turnframe.db)",
    )


def add_account(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--account",
        default=DEFAULT_ACCOUNT,
        metavar="ID",
        help=f"the account whose records to use (default: {DEFAULT_ACCOUNT})",
    )


def add_style(parser: argparse.ArgumentParser) -> None:
    style = parser.add_mutually_exclusive_group()
    style.add_argument(
        "--plain",
        dest="style",
        action="store_const",
        const="plain",
        help="plain text, even when rich is installed",
    )
    style.add_argument(
        "--rich",
        dest="style",
        action="store_const",
        const="rich",
        help="rich tables and colour (needs the [cli] extra), even when not on a terminal",
    )
    parser.set_defaults(style="auto")


__all__ = ["add_account", "add_store", "add_style"]
