"""What the HTTP API receives and sends, as attrs types (the one converter reads and writes them).

Requests are checked strictly (exact JSON types, unknown keys refused) before they are built.
A turn is sent as :class:`~turnframe.pipeline.turn_view.TurnView`, the ``chat --json`` form, and
a turn's audit as :class:`~turnframe.pipeline.replay_view.ReplayView`, the ``replay --json``
form; the OpenAPI schema is derived from these same classes (``turnframe.http.schema``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import attrs

from turnframe.pipeline.turn_view import TurnView
from turnframe.results import InteractionKind, OptionAction

# -- requests ---------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class OpenSession:
    """``POST /v1/sessions``: the workflow to talk to (optional when the service runs one)."""

    workflow: str | None = None


@attrs.frozen(kw_only=True)
class PostTurn:
    """``POST /v1/sessions/{id}/turns``: a message, or a click on a card option by its label.

    ``card`` names the card (its ``interaction_id``); without it the click answers the
    session's most recent open card.
    """

    text: str | None = None
    click: str | None = None
    card: str | None = None


# -- responses --------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SessionOpened:
    session_id: str


@attrs.frozen(kw_only=True)
class SessionSummary:
    session_id: str
    workflow: str
    created_at: datetime
    last_turn_id: str | None


@attrs.frozen(kw_only=True)
class SessionList:
    sessions: tuple[SessionSummary, ...]


@attrs.frozen(kw_only=True)
class TurnList:
    turns: tuple[TurnView, ...]


@attrs.frozen(kw_only=True)
class WorkflowSummary:
    name: str


@attrs.frozen(kw_only=True)
class WorkflowList:
    workflows: tuple[WorkflowSummary, ...]


@attrs.frozen(kw_only=True)
class CardOptionView:
    option_id: str
    label: str
    action: OptionAction


@attrs.frozen(kw_only=True)
class CardCommand:
    """A command the card asks to confirm, with its arguments."""

    name: str
    args: dict[str, Any]
    case_id: str


@attrs.frozen(kw_only=True)
class CardView:
    interaction_id: str
    kind: InteractionKind
    turn_id: str
    case_id: str | None
    expected_revision: int | None
    target_label: str | None
    options: tuple[CardOptionView, ...]
    commands: tuple[CardCommand, ...]


@attrs.frozen(kw_only=True)
class OpenCard:
    """``GET /v1/sessions/{id}/card``: the session's most recent open card, or null."""

    session_id: str
    card: CardView | None


@attrs.frozen(kw_only=True)
class ActLine:
    """One act as ``turnframe demo`` explains it: a verdict word and why, read from records."""

    index: int
    summary: str
    word: str
    why: str
    kind: str
    result: str | None
    reason: str | None
    evidence: tuple[str, ...]


@attrs.frozen(kw_only=True)
class TurnActs:
    turn_id: str
    acts: tuple[ActLine, ...]
    click: str | None


@attrs.frozen(kw_only=True)
class Health:
    status: str  # "ok", or "draining" once shutdown began


@attrs.frozen(kw_only=True)
class Problem:
    path: tuple[str | int, ...]
    message: str


@attrs.frozen(kw_only=True)
class ErrorDetail:
    code: str
    message: str
    hint: str | None
    problems: tuple[Problem, ...]


@attrs.frozen(kw_only=True)
class ErrorBody:
    error: ErrorDetail


__all__ = [
    "ActLine",
    "CardCommand",
    "CardOptionView",
    "CardView",
    "ErrorBody",
    "ErrorDetail",
    "Health",
    "OpenCard",
    "OpenSession",
    "PostTurn",
    "Problem",
    "SessionList",
    "SessionOpened",
    "SessionSummary",
    "TurnActs",
    "TurnList",
    "WorkflowList",
    "WorkflowSummary",
]
