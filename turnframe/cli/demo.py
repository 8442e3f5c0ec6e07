"""``turnframe demo``: a scripted conversation with the travel desk, explained turn by turn.

It runs in an in-memory store (or ``--store PATH``, to replay its turns afterwards) with the
desk's seed data and a fixed clock, so every run shows the same conversation. Each turn prints
the reply blocks and, per act, its result and the rule that decided it. When a turn shows a
confirmation card, the demo clicks its ``confirm`` option as the next turn. With ``--json``
each turn is one JSON object on its own line, as ``turnframe chat --json`` prints it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from turnframe.cli.conversation import Conversation, TurnOutcome, turn_json
from turnframe.cli.desk import (
    DEFAULT_ACCOUNT,
    MEMORY,
    build_runtime,
    open_store,
)
from turnframe.cli.explain import compact
from turnframe.cli.interrupt import run_interruptible
from turnframe.cli.options import add_style
from turnframe.cli.render import Renderer, SessionRow, choose_renderer
from turnframe.clock import ManualClock
from turnframe.examples import DEMO_CLOCK, SampleWorkflow, sample
from turnframe.pipeline.replay_view import ReplayView
from turnframe.stores import Store
from turnframe.stores.directory import StoreCaseDirectory

DEMO_DESK = "travel-desk"


def add_demo_command(commands: Any) -> None:
    demo = commands.add_parser(
        "demo",
        help="run a scripted conversation with the travel desk and explain every turn",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    demo.add_argument(
        "--store",
        metavar="PATH",
        help="keep the demo's records in this SQLite file (default: in memory)",
    )
    demo.add_argument(
        "--json", action="store_true", help="one JSON object per turn on stdout, like chat --json"
    )
    add_style(demo)
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    renderer: Renderer = _JsonLines() if args.json else choose_renderer(args.style)
    run_interruptible(_demo, args.store or MEMORY, renderer)
    return 0


class _JsonLines:
    """Prints each turn as ``turnframe chat --json`` does, and nothing else."""

    def heading(self, text: str) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def turn(self, number: int, outcome: TurnOutcome, *, echo: bool = True) -> None:
        print(json.dumps(turn_json(outcome.response), ensure_ascii=False))

    def replay(self, view: ReplayView) -> None:
        pass

    def sessions(self, rows: Sequence[SessionRow]) -> None:
        pass


async def _demo(location: str, renderer: Renderer) -> None:
    desk = sample(DEMO_DESK)
    account = DEFAULT_ACCOUNT
    async with open_store(location, must_exist=False) as store:
        await desk.seed_account(store, account, now=DEMO_CLOCK)
        runtime = build_runtime(store, desk, clock=ManualClock(at=DEMO_CLOCK))
        async with runtime:
            session = await runtime.open_session(account_id=account, workflow=desk.name)
            renderer.heading(f"turnframe demo \u2014 the {desk.name} ({desk.description})")
            renderer.note(
                f"account {account} \u00b7 clock {DEMO_CLOCK.isoformat()} \u00b7 store {location}"
                " \u00b7 interpreter: offline rules (no model, no network)"
            )
            await _show_cases(store, desk, account, renderer, "before")
            conversation = Conversation(runtime, session)
            number = 0
            for text in desk.demo_turns:
                number += 1
                outcome = await conversation.say(text)
                renderer.turn(number, outcome)
                label = _confirm_label(outcome)
                if label is not None:
                    number += 1
                    renderer.turn(number, await conversation.click(label))
            await _show_cases(store, desk, account, renderer, "after")
            if location != MEMORY:
                renderer.note(
                    f"replay any turn: turnframe replay TURN_ID --store {location}; "
                    f"list them: turnframe sessions --turns --store {location}"
                )
    sys.stdout.flush()


def _confirm_label(outcome: TurnOutcome) -> str | None:
    """The label of the confirm option on a confirmation card this turn showed, if any."""
    for block in outcome.response.blocks:
        if block.code != "turnframe.card.confirm_command":
            continue
        for option in block.data.get("options", []):
            if option.get("action") == "confirm":
                return str(option.get("label") or option.get("option_id"))
    return None


async def _show_cases(
    store: Store, desk: SampleWorkflow, account: str, renderer: Renderer, when: str
) -> None:
    directory = StoreCaseDirectory(store, {desk.name: desk.workflow})
    for seed in desk.seed():
        snapshot = await directory.snapshot(account, seed.case_id(account))
        if snapshot is None:
            continue
        projected = desk.workflow.project(snapshot.state)
        renderer.note(
            f"{when}: \u201c{snapshot.label}\u201d revision {snapshot.revision} "
            f"{compact(dict(projected))}"
        )


__all__ = ["DEMO_CLOCK", "DEMO_DESK", "add_demo_command", "run_demo"]
