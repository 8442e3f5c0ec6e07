"""The ``turnframe`` command line (argparse).

- ``turnframe demo``: a scripted conversation with the travel desk, explained turn by turn;
- ``turnframe chat``: talk to a sample desk, interactively or from a script, as text or JSON;
- ``turnframe replay TURN_ID``: a stored turn's audit view, from its records alone;
- ``turnframe sessions``: an account's sessions with their last turn and phase;
- ``turnframe serve``: the HTTP API and the local inspector page (the ``[http]`` extra);
- ``turnframe corpus check PATH``: what a reviewed corpus or pack leaves out, and why;
- ``turnframe chaos --workflow W``: a workflow under random fault schedules, every invariant
  checked (exit 1 on a violation);
- ``turnframe worker --store URL``: serve the turns submitted to a store (many workers may share
  one PostgreSQL database); ``turnframe submit``: add a turn to that inbox (docs/workers.md);
- ``turnframe recall index`` / ``turnframe recall search "cue"``: the recall index of earlier
  conversations, and a search over it (docs/recall.md).

A user mistake prints one line on stderr, ``turnframe: <code>: <message> (<hint>)``, and exits
1 (2 for a command line argparse refuses, 130 after Ctrl-C); there is no traceback. Commands
that print a table take ``--json``; long work shows ``turnframe.cli.progress``'s bar. See
docs/cli.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from turnframe import __version__
from turnframe.cli.errors import one_line
from turnframe.cli.interrupt import EXIT_INTERRUPTED, Interrupted, interrupted_error
from turnframe.cli.parser import EXIT_USAGE, Parser
from turnframe.errors import TurnframeError

EXIT_ERROR = 1


def build_parser() -> argparse.ArgumentParser:
    # Commands import the runtime when they run, so `--version` and `--help` stay fast.
    from turnframe.cli.chaos import add_chaos_command
    from turnframe.cli.chat import add_chat_command
    from turnframe.cli.demo import add_demo_command
    from turnframe.cli.recall import add_recall_commands
    from turnframe.cli.replay import add_replay_command
    from turnframe.cli.serve import add_serve_command
    from turnframe.cli.sessions import add_sessions_command
    from turnframe.cli.worker import add_worker_commands
    from turnframe.corpora.cli import add_corpus_commands

    parser = Parser(
        prog="turnframe",
        description="Conversational agents that change real records, safely.",
    )
    parser.add_argument("--version", action="version", version=f"turnframe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_demo_command(commands)
    add_chat_command(commands)
    add_replay_command(commands)
    add_sessions_command(commands)
    add_serve_command(commands)
    add_corpus_commands(commands)
    add_chaos_command(commands)
    add_recall_commands(commands)
    add_worker_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    try:
        return int(handler(args))
    except Interrupted as error:
        _report(error)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        _report(interrupted_error())
        return EXIT_INTERRUPTED
    except TurnframeError as error:
        return _report(error)
    except BaseExceptionGroup as group:
        mistake = _only_mistake(group)
        if mistake is None:
            raise
        return _report(mistake)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python's exit flush quiet too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR


def _report(error: TurnframeError) -> int:
    sys.stdout.flush()
    print(one_line(error), file=sys.stderr)
    return EXIT_ERROR


def _only_mistake(group: BaseExceptionGroup[BaseException]) -> TurnframeError | None:
    """The one typed error a task group wrapped, if that is all it holds."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        current = pending.pop()
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            leaves.append(current)
    if len(leaves) == 1 and isinstance(leaves[0], TurnframeError):
        return leaves[0]
    return None


__all__ = ["EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_USAGE", "build_parser", "main"]
