"""``turnframe sessions``: an account's sessions with their last turn and its phase."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from turnframe.cli.desk import default_store, open_store
from turnframe.cli.interrupt import run_interruptible
from turnframe.cli.options import add_account, add_store, add_style
from turnframe.cli.render import Renderer, SessionRow, choose_renderer
from turnframe.lifecycle import TurnPhase
from turnframe.stores import Store
from turnframe.stores.records import TurnRecord


def add_sessions_command(commands: Any) -> None:
    sessions = commands.add_parser(
        "sessions",
        help="list an account's sessions with their last turn and phase",
        description=__doc__,
    )
    add_store(sessions)
    add_account(sessions)
    sessions.add_argument(
        "--turns", action="store_true", help="list every turn of every session, not only the last"
    )
    sessions.add_argument("--json", action="store_true", help="print the list as JSON")
    add_style(sessions)
    sessions.set_defaults(handler=run_sessions)


def run_sessions(args: argparse.Namespace) -> int:
    renderer = choose_renderer(args.style)
    location = args.store or default_store()
    run_interruptible(_sessions, location, args.account, args.turns, args.json, renderer)
    return 0


async def _sessions(
    location: str, account: str, every_turn: bool, as_json: bool, renderer: Renderer
) -> None:
    async with open_store(location, must_exist=True) as store:
        if as_json:
            sessions = await sessions_json(store, account)
        else:
            rows = await session_rows(store, account, every_turn=every_turn)
    if as_json:
        print(json.dumps(sessions, ensure_ascii=False, indent=2))
    else:
        renderer.sessions(rows)
    sys.stdout.flush()


async def session_rows(store: Store, account: str, *, every_turn: bool) -> list[SessionRow]:
    rows: list[SessionRow] = []
    for session in await store.list_sessions(account):
        turns = await store.list_session_turns(account, session.session_id)
        shown: list[TurnRecord | None] = (
            list(turns)
            if every_turn
            else [next((t for t in turns if t.turn_id == session.last_turn_id), None)]
        )
        for turn in shown or [None]:
            rows.append(
                SessionRow(
                    session_id=session.session_id,
                    workflow=session.workflow,
                    created_at=session.created_at.isoformat(),
                    turns=len(turns),
                    turn_id=turn.turn_id if turn else "-",
                    phase=turn.phase.value if turn else "-",
                    text=_said(turn),
                    reason=await _reason(store, account, turn),
                )
            )
    return rows


async def _reason(store: Store, account: str, turn: TurnRecord | None) -> str:
    """The typed reason a turn failed, or its reply was parked (from its stored reply)."""
    if turn is None or not turn.phase.is_terminal:
        return ""
    stored = await store.get_assistant_turn(account, turn.turn_id)
    meta = stored.meta if stored is not None and isinstance(stored.meta, dict) else {}
    parked = meta.get("parked")
    if isinstance(parked, dict) and isinstance(parked.get("error"), dict):
        return str(parked["error"].get("code") or "")
    return str(meta.get("failure") or "") if turn.phase is TurnPhase.FAILED else ""


def _said(turn: TurnRecord | None) -> str:
    if turn is None:
        return ""
    payload = turn.payload if isinstance(turn.payload, dict) else {}
    text = str(payload.get("text") or "")
    if not text and payload.get("interaction_response"):
        return f"(click {payload['interaction_response'].get('option_id')})"
    return text if len(text) <= 60 else text[:59] + "\u2026"


async def sessions_json(store: Store, account: str) -> list[dict[str, Any]]:
    """One object per session with every turn, each with the events it committed:
    ``{"session_id", "workflow", "created_at", "turns": [{"turn_id", "phase", "reason", "text",
    "events": [{"type", "case_id"}]}]}``."""
    sessions = []
    for session in await store.list_sessions(account):
        turns = []
        for turn in await store.list_session_turns(account, session.session_id):
            events = await store.list_events(account, turn_id=turn.turn_id)
            turns.append(
                {
                    "turn_id": turn.turn_id,
                    "phase": turn.phase.value,
                    "reason": await _reason(store, account, turn) or None,
                    "text": _said(turn),
                    "events": [{"type": e.type, "case_id": e.case_id} for e in events],
                }
            )
        sessions.append(
            {
                "session_id": session.session_id,
                "workflow": session.workflow,
                "created_at": session.created_at.isoformat(),
                "turns": turns,
            }
        )
    return sessions


__all__ = ["add_sessions_command", "run_sessions", "session_rows", "sessions_json"]
