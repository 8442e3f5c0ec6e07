"""What happened to each act, in a word and a reason, from a turn's audit view (pure).

The verdict reads the recorded result, the journal status of the act's commands and the blocks
that cover the act; it never guesses. ``DONE`` needs a committed journal row.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from turnframe.pipeline.replay_view import ActView, CommandView, ReplayView
from turnframe.recall.codes import RECALL_CODES, RECALL_NO_CUE

DONE = "DONE"
NOT_DONE = "NOT DONE"
NOT_YET = "NOT YET"
NO_CHANGE = "NO CHANGE"
ANSWERED = "ANSWERED"
NOT_ANSWERED = "NOT ANSWERED"
FAILED = "FAILED"


@attrs.frozen(kw_only=True)
class Verdict:
    word: str  # one of the constants above
    why: str  # a short explanation, "" when the word says it all


def verdict(act: ActView, view: ReplayView) -> Verdict:
    status = act.result
    if status is None:
        return Verdict(word=NOT_DONE, why="the turn was never reduced")
    if status == "superseded_by_correction":
        return Verdict(word=NOT_DONE, why=_superseded_why(act, view))
    if status == "rejected":
        return Verdict(word=NOT_DONE, why=_rejected_why(act, view))
    if status == "awaiting_confirmation":
        return Verdict(word=NOT_YET, why="waiting for a click on the confirmation card")
    if status == "needs_clarification":
        return Verdict(word=NOT_YET, why="needs clarification: " + _short(act.reason))
    if status == "no_change":
        return Verdict(word=NO_CHANGE, why=_no_change_why(act))
    if act.kind == "recall" and any(
        act.index in b.acts and b.code == RECALL_NO_CUE for b in view.blocks
    ):
        return Verdict(word=NO_CHANGE, why="no cue: nothing to look for")
    if act.kind in ("question", "recall"):
        answered = any(
            act.index in b.acts and (b.kind == "answer" or b.code in RECALL_CODES)
            for b in view.blocks
        )
        return Verdict(word=ANSWERED if answered else NOT_ANSWERED, why="")
    return _executed(act, view)


def decided_by(act: ActView, view: ReplayView) -> str:
    """``act 2 (keep travel_date unchanged)``, ``a card's pending act`` or ``itself``."""
    if act.decided_by_interaction is not None:
        return f"a pending act of card {act.decided_by_interaction}"
    if act.decided_by is None:
        return "the click"
    if act.decided_by == act.index:
        return "itself"
    other = view.act(act.decided_by)
    return f"act {act.decided_by}" + ("" if other is None else f" ({other.summary})")


def _superseded_why(act: ActView, view: ReplayView) -> str:
    if act.decided_by is None and act.decided_by_interaction is None:
        return "overridden by the click"
    return "superseded by " + decided_by(act, view)


def _rejected_why(act: ActView, view: ReplayView) -> str:
    rejection = act.rejection if isinstance(act.rejection, dict) else {}
    message = rejection.get("message")
    if message:
        return str(message)
    if act.decided_by is not None and act.decided_by != act.index:
        return f"{_short(act.reason)}, by {decided_by(act, view)}"
    return _short(act.reason)


def _no_change_why(act: ActView) -> str:
    return {
        "keep_unchanged": "kept as it is",
        "constraint": "constraint applied to the whole turn",
        "cancel": "cancellation applied",
        "chitchat": "",
    }.get(act.kind, _short(act.reason))


def _executed(act: ActView, view: ReplayView) -> Verdict:
    commands = [c for c in view.commands if c.command_id in act.command_ids]
    if not commands:
        return Verdict(word=NOT_DONE, why="ready, but no command was journaled")
    statuses = {c.journal_status for c in commands}
    if statuses == {"committed"}:
        return Verdict(word=DONE, why=_events_of(commands, view))
    if "failed" in statuses:
        return Verdict(word=FAILED, why=_outcome_reason(commands))
    listed = ", ".join(sorted(str(s) for s in statuses))
    return Verdict(word=NOT_YET, why=f"journal: {listed}")


def _events_of(commands: list[CommandView], view: ReplayView) -> str:
    ids = {c.command_id for c in commands}
    names = [e.type for e in view.events if e.command_id in ids]
    return ", ".join(names) if names else "committed without an event"


def _outcome_reason(commands: list[CommandView]) -> str:
    for command in commands:
        for outcome in (command.outcome, command.journal_outcome):
            if isinstance(outcome, dict) and outcome.get("reason"):
                return str(outcome["reason"])
    return "the batch failed"


def _short(reason: str | None) -> str:
    """``turnframe.act.unknown_field`` -> ``unknown field``."""
    if not reason:
        return ""
    return reason.rsplit(".", 1)[-1].replace("_", " ")


def compact(value: Any) -> str:
    """A JSON value on one line, for args, outcomes and event data."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


__all__ = [
    "ANSWERED",
    "DONE",
    "FAILED",
    "NOT_ANSWERED",
    "NOT_DONE",
    "NOT_YET",
    "NO_CHANGE",
    "Verdict",
    "compact",
    "decided_by",
    "verdict",
]
