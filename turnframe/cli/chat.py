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

import attrs

from turnframe.cli.conversation import Conversation, TurnOutcome, turn_json
from turnframe.cli.desk import (
    build_runtime,
    check_store_path,
    default_store,
    open_store,
    parse_clock,
)
from turnframe.cli.errors import UnknownSession, WorkflowMismatch, one_line
from turnframe.cli.interrupt import run_interruptible
from turnframe.cli.options import add_account, add_store, add_style
from turnframe.cli.render import Renderer, choose_renderer
from turnframe.cli.script import COMMANDS, Click, Quit, Say, Step, parse_line, read_script
from turnframe.cli.terminal import LineReader
from turnframe.clock import Clock
from turnframe.config import TurnframeConfig, load_config
from turnframe.corpora import CorpusRegistry
from turnframe.corpora.cli import add_corpus_sources, sources_from_args
from turnframe.corpora.sources import CorpusSources, load_corpora
from turnframe.errors import TurnframeError
from turnframe.examples import SAMPLE_WORKFLOWS, SampleWorkflow, sample
from turnframe.references import ReferenceBinding, parse_cli_references
from turnframe.runtime import Runtime
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
    add_corpus_sources(chat)
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
    corpora: CorpusRegistry
    cli_references: tuple[ReferenceBinding, ...]
    script: tuple[Step, ...] | None
    as_json: bool
    interactive: bool


def run_chat(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    config = load_config(args.config, cwd=cwd)
    plan = ChatPlan(
        location=args.store or default_store(),
        account=args.account,
        desk=sample(args.workflow) if args.workflow else None,
        session_id=args.session,
        clock=parse_clock(args.clock),
        anaphora=args.anaphora,
        config=config,
        corpora=_load_corpora(sources_from_args(args, config.corpora)),
        cli_references=parse_cli_references(args.references, cwd=cwd),
        script=tuple(read_script(args.script)) if args.script is not None else None,
        as_json=args.json,
        interactive=args.script is None and sys.stdin.isatty(),
    )
    check_store_path(plan.location, must_exist=False)  # refused even when nothing is said
    renderer = choose_renderer(args.style)
    result: int = run_interruptible(_chat, plan, renderer)
    return result


def _load_corpora(sources: CorpusSources) -> CorpusRegistry:
    """The registry the chat answers from; lines that did not load are counted on stderr."""
    loaded = load_corpora(sources)
    if loaded.defects:
        print(
            f"turnframe: note: {len(loaded.defects)} corpus line(s) did not load; "
            "`turnframe corpus check` with the same --pack/--chains lists them",
            file=sys.stderr,
        )
    return loaded.registry


async def _chat(plan: ChatPlan, renderer: Renderer) -> int:
    async with contextlib.aclosing(_steps(plan)) as steps:
        first: Say | Click | None = None
        if not plan.interactive:
            # Nothing to say (an empty script or pipe, or only comments): nothing is opened,
            # seeded or started, so no session appears.
            step = await anext(steps, None)
            if step is None or isinstance(step, Quit):
                return 0
            first = step
        async with open_store(plan.location, must_exist=False) as store:
            resumed, desk = await _session_and_desk(store, plan)
            runtime = build_runtime(
                store,
                desk,
                clock=plan.clock,
                anaphora=plan.anaphora,
                config=plan.config,
                cli_references=plan.cli_references,
                corpora=plan.corpora,
                store_location=plan.location,
            )
            async with runtime:
                chat = _Chat(plan, renderer, runtime, desk, resumed)
                if first is not None:
                    await chat.start()
                chat.greet()
                if first is not None:
                    await chat.run(first)
                async for step in steps:
                    if isinstance(step, Quit):
                        break
                    await chat.run(step)
    return 0


class _Chat:
    """One chat's session: started with its first message (or resumed), then turn by turn."""

    def __init__(
        self,
        plan: ChatPlan,
        renderer: Renderer,
        runtime: Runtime,
        desk: SampleWorkflow,
        session: SessionRecord | None,
    ) -> None:
        self.plan = plan
        self.renderer = renderer
        self.runtime = runtime
        self.desk = desk
        self.conversation = Conversation(runtime, session) if session is not None else None
        self.number: int | None = None  # turns the session has had, once it is known

    async def start(self) -> Conversation:
        if self.conversation is not None:
            return self.conversation
        plan, store = self.plan, self.runtime.store
        await self.desk.seed_account(store, plan.account, now=plan.clock.now())
        session = await self.runtime.open_session(account_id=plan.account, workflow=self.desk.name)
        self.conversation = Conversation(self.runtime, session)
        return self.conversation

    def greet(self) -> None:
        plan = self.plan
        session = self.conversation.session.session_id if self.conversation else "(new)"
        if not plan.as_json:
            self.renderer.heading(
                f"{self.desk.name} \u00b7 session {session} \u00b7 account "
                f"{plan.account} \u00b7 store {plan.location}"
            )
        if plan.interactive:
            hint = (
                f"type a message; {', '.join(COMMANDS)}; end with Ctrl-D. {self.desk.description}"
            )
            if plan.as_json:  # stdout carries only the turns' JSON
                print(hint, file=sys.stderr)
            else:
                self.renderer.note(hint)

    async def run(self, step: Say | Click) -> None:
        fresh = self.conversation is None
        conversation = await self.start()
        if fresh and self.plan.interactive and not self.plan.as_json:
            self.renderer.note(f"session {conversation.session.session_id} started")
        if self.number is None:
            session = conversation.session
            turns = await self.runtime.store.list_session_turns(
                session.account_id, session.session_id
            )
            self.number = len(turns)
        try:
            outcome = await _run_step(conversation, step)
        except TurnframeError as error:
            if not self.plan.interactive:
                raise
            print(one_line(error), file=sys.stderr)
            return
        self.number += 1
        _emit(self.plan, self.renderer, self.number, outcome)


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
