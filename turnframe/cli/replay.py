"""``turnframe replay TURN_ID``: why a turn did or did not do each thing, from its records.

The view is built from the store alone (turn, replay record, journal, events, response): no
model is called and no workflow code runs. ``--json`` prints it as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from turnframe.cli.desk import default_store, open_store
from turnframe.cli.errors import UnknownTurn
from turnframe.cli.interrupt import run_interruptible
from turnframe.cli.options import add_account, add_store, add_style
from turnframe.cli.render import Renderer, choose_renderer
from turnframe.pipeline.replay_view import load_replay_view


def add_replay_command(commands: Any) -> None:
    replay = commands.add_parser(
        "replay",
        help="show a stored turn's audit view: plan, results and rules, commands, events",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    replay.add_argument("turn_id", metavar="TURN_ID", help="the turn (see `turnframe sessions`)")
    add_store(replay)
    add_account(replay)
    replay.add_argument("--json", action="store_true", help="print the view as JSON")
    add_style(replay)
    replay.set_defaults(handler=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    renderer = choose_renderer(args.style)
    location = args.store or default_store()
    run_interruptible(_replay, location, args.account, args.turn_id, args.json, renderer)
    return 0


async def _replay(
    location: str, account: str, turn_id: str, as_json: bool, renderer: Renderer
) -> None:
    async with open_store(location, must_exist=True) as store:
        view = await load_replay_view(store, account_id=account, turn_id=turn_id)
    if view is None:
        raise UnknownTurn(
            f"account {account!r} has no turn {turn_id!r} in {location!r}",
            hint="list the turns with `turnframe sessions --turns`",
        )
    if as_json:
        print(json.dumps(view.to_json(), ensure_ascii=False, indent=2))
    else:
        renderer.replay(view)
    sys.stdout.flush()


__all__ = ["add_replay_command", "run_replay"]
