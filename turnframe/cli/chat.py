"""``turnframe chat``: talk to a sample desk, interactively or from a script.

Each line is a user turn; ``/click OPTION_LABEL`` clicks an option of the session's open card;
``/quit`` (or end of input) ends. ``--script FILE`` reads the turns from a file (checked whole
before the first turn runs). ``--json`` prints one JSON object per turn (docs/cli.md).

At a terminal a mistake on one line (an unknown label, say) is printed and the chat goes on;
from a script or a pipe it ends the run with a non-zero status.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import anyio
import attrs

from turnframe.cli.conversation import Conversation, TurnOutcome, turn_json
from turnframe.cli.desk import build_runtime, default_store, open_store, parse_clock, seed_account
from turnframe.cli.errors import UnknownSession, WorkflowMismatch, one_line
from turnframe.cli.options import add_account, add_store, add_style
from turnframe.cli.render import Renderer, choose_renderer
from turnframe.cli.script import COMMANDS, Click, Quit, Say, Step, parse_line, read_script
from turnframe.cli.terminal import LineReader
from turnframe.clock import Clock
from turnframe.config import TurnframeConfig, load_config
from turnframe.errors import TurnframeError
from turnframe.examples import SAMPLE_WORKFLOWS, SampleWorkflow, sample
from turnframe.references import ReferenceBinding, parse_cli_references
from turnframe.stores import Store
from turnframe.stores.records import SessionRecord

DEFAULT_DESK = "travel-desk"


def add_chat_command(commands: Any) -> None:
    chat = commands.add_parser(
        "chat",
        help="talk to a sample desk (interactive, or --script FILE)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    chat.add_argument(
        "--workflow",
        metavar="NAME",
        help=f"the sample desk: {', '.join(SAMPLE_WORKFLOWS)} (default: {DEFAULT_DESK}, or the "
        "resumed session's)",
    )
    add_store(chat)
    chat.add_argument("--session", metavar="ID", help="resume this stored session")
    add_account(chat)
    chat.add_argument(
        "--clock",
        metavar="ISO_DATETIME",
        help="fix every turn's clock (relative dates count from it; default: the real clock)",
    )
    chat.add_argument("--script", type=Path, metavar="FILE", help="one user turn per line")
    chat.add_argument("--json", action="store_true", help="one JSON object per turn on stdout")
    chat.add_argument(
        "--anaphora", action="store_true", help="prefix answers that recall an earlier turn"
    )
    chat.add_argument(
        "--reference",
        dest="references",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="bind reference material to a slot (repeatable; NAME= clears it)",
    )
    chat.add_argument(
        "--config", metavar="PATH", help="config file (default: ./turnframe.toml if present)"
    )
    add_style(chat)
    chat.set_defaults(handler=run_chat)


@attrs.frozen(kw_only=True)
class ChatPlan:
    """Everything checked before the store is opened."""

    location: str
    account: str
    desk: SampleWorkflow | None  # None: the resumed session's desk
    session_id: str | None
    clock: Clock
    anaphora: bool
    config: TurnframeConfig
    cli_references: tuple[ReferenceBinding, ...]
    script: tuple[Step, ...] | None
    as_json: bool
    interactive: bool


def run_chat(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    plan = ChatPlan(
        location=args.store or default_store(),
        account=args.account,
        desk=sample(args.workflow) if args.workflow else None,
        session_id=args.session,
        clock=parse_clock(args.clock),
        anaphora=args.anaphora,
        config=load_config(args.config, cwd=cwd),
        cli_references=parse_cli_references(args.references, cwd=cwd),
        script=tuple(read_script(args.script)) if args.script is not None else None,
        as_json=args.json,
        interactive=args.script is None and sys.stdin.isatty(),
    )
    renderer = choose_renderer(args.style)
    result: int = anyio.run(_chat, plan, renderer)
    return result


async def _chat(plan: ChatPlan, renderer: Renderer) -> int:
    async with open_store(plan.location, must_exist=False) as store:
        session, desk = await _session_and_desk(store, plan)
        await seed_account(store, desk, plan.account)
        runtime = build_runtime(
            store,
            desk,
            clock=plan.clock,
            anaphora=plan.anaphora,
            config=plan.config,
            cli_references=plan.cli_references,
        )
        async with runtime:
            if session is None:
                session = await runtime.open_session(account_id=plan.account, workflow=desk.name)
            number = len(await store.list_session_turns(plan.account, session.session_id))
            if not plan.as_json:
                renderer.heading(
                    f"{desk.name} \u00b7 session {session.session_id} \u00b7 account "
                    f"{plan.account} \u00b7 store {plan.location}"
                )
            if plan.interactive:
                hint = f"type a message; {', '.join(COMMANDS)}; end with Ctrl-D. {desk.description}"
                if plan.as_json:  # stdout carries only the turns' JSON
                    print(hint, file=sys.stderr)
                else:
                    renderer.note(hint)
            conversation = Conversation(runtime, session)
            async with contextlib.aclosing(_steps(plan)) as steps:
                async for step in steps:
                    if isinstance(step, Quit):
                        break
                    try:
                        outcome = await _run_step(conversation, step)
                    except TurnframeError as error:
                        if not plan.interactive:
                            raise
                        print(one_line(error), file=sys.stderr)
                        continue
                    number += 1
                    _emit(plan, renderer, number, outcome)
    return 0


async def _session_and_desk(
    store: Store, plan: ChatPlan
) -> tuple[SessionRecord | None, SampleWorkflow]:
    if plan.session_id is None:
        return None, plan.desk or sample(DEFAULT_DESK)
    session = await store.get_session(plan.account, plan.session_id)
    if session is None:
        raise UnknownSession(
            f"account {plan.account!r} has no session {plan.session_id!r} in {plan.location!r}",
            hint="list them with `turnframe sessions`, or leave out --session to start one",
        )
    if plan.desk is not None and plan.desk.name != session.workflow:
        raise WorkflowMismatch(
            f"session {plan.session_id!r} is on {session.workflow!r}, not {plan.desk.name!r}",
            hint="leave out --workflow when resuming a session",
        )
    return session, sample(session.workflow)


async def _run_step(conversation: Conversation, step: Say | Click) -> TurnOutcome:
    if isinstance(step, Click):
        return await conversation.click(step.label)
    return await conversation.say(step.text)


def _emit(plan: ChatPlan, renderer: Renderer, number: int, outcome: TurnOutcome) -> None:
    if plan.as_json:
        print(json.dumps(turn_json(outcome.response), ensure_ascii=False))
    else:
        renderer.turn(number, outcome, echo=not plan.interactive)
    sys.stdout.flush()


async def _steps(plan: ChatPlan) -> AsyncGenerator[Step, None]:
    if plan.script is not None:
        for step in plan.script:
            yield step
        return
    reader = LineReader(interactive=plan.interactive)
    try:
        number = 0
        while True:
            try:
                line = await reader.next_line()
            except TurnframeError as error:  # a line that is not UTF-8
                if not plan.interactive:
                    raise
                print(one_line(error), file=sys.stderr)
                continue
            if line is None:
                return
            number += 1
            try:
                parsed = parse_line(line, line=number, origin="<stdin>")
            except TurnframeError as error:
                if not plan.interactive:
                    raise
                print(one_line(error), file=sys.stderr)
                continue
            if parsed is not None:
                yield parsed
    finally:
        reader.close()


__all__ = ["DEFAULT_DESK", "add_chat_command", "run_chat"]
