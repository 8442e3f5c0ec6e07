"""Lines of a chat: a user turn, ``/click OPTION_LABEL``, ``/quit``; blank lines and ``#``
comments are skipped. A script file is read and checked whole before its first turn runs, so a
bad line changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from turnframe.cli.errors import BadScript

COMMANDS = ("/click OPTION_LABEL", "/recollect [TEXT]", "/quit")
#: Commands that are messages: the interpreter reads them (``/recollect``: docs/recall.md).
MESSAGE_COMMANDS = ("/recollect",)


@attrs.frozen(kw_only=True)
class Say:
    """A user turn."""

    text: str
    line: int


@attrs.frozen(kw_only=True)
class Click:
    """Click the option labelled ``label`` on the session's open card."""

    label: str
    line: int


@attrs.frozen(kw_only=True)
class Quit:
    line: int


Step = Say | Click | Quit


def parse_line(raw: str, *, line: int, origin: str) -> Step | None:
    """One line as a step (``None`` for a blank or comment line); ``origin`` names the source
    in errors (a file path, or ``<stdin>``)."""
    text = raw.strip()
    if not text or text.startswith("#"):
        return None
    if not text.startswith("/"):
        return Say(text=text, line=line)
    command, _, rest = text.partition(" ")
    if command in MESSAGE_COMMANDS:
        return Say(text=text, line=line)
    if command == "/quit" and not rest.strip():
        return Quit(line=line)
    if command == "/click":
        label = rest.strip()
        if not label:
            raise BadScript(
                f"{origin}:{line}: /click needs the label of an option",
                hint="write /click confirm (the labels are on the card)",
            )
        return Click(label=label, line=line)
    raise BadScript(
        f"{origin}:{line}: unknown command {command!r}",
        hint=f"a line is a message, a # comment, or one of: {', '.join(COMMANDS)}",
    )


def read_script(path: Path) -> list[Step]:
    """Every step of the script at ``path``, checked whole; stops at the first ``/quit``."""
    try:
        content = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadScript(
            f"script {str(path)!r} does not exist", hint="give --script an existing file"
        ) from None
    except UnicodeDecodeError:
        raise BadScript(
            f"script {str(path)!r} is not UTF-8 text", hint="save the script as UTF-8"
        ) from None
    except OSError as exc:
        raise BadScript(
            f"cannot read script {str(path)!r}: {exc.strerror}", hint="check the --script path"
        ) from None
    steps: list[Step] = []
    for number, raw in enumerate(content.splitlines(), start=1):
        step = parse_line(raw, line=number, origin=str(path))
        if step is None:
            continue
        steps.append(step)
        if isinstance(step, Quit):
            break
    return steps


__all__ = ["COMMANDS", "Click", "Quit", "Say", "Step", "parse_line", "read_script"]
