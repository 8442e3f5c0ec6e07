"""The pipeline's telemetry hooks: small calls at stage and attempt boundaries, no OpenTelemetry.

The runtime registers each turn it is handling as *live* (``turn id -> trace``); the hooks find
their turn's trace by id, so they work across the actors' tasks without passing a context along
every message. A turn nobody traces costs one dict lookup per hook. The hooks never raise into
the pipeline: a telemetry failure is logged and the turn goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import Protocol, TypeVar

from turnframe.actors.correlation import current_correlation_id
from turnframe.providers.attempts import ProviderAttempt

logger = logging.getLogger("turnframe.telemetry")

T = TypeVar("T")


class LiveTurn(Protocol):
    """What a traced turn offers the hooks (``turnframe.telemetry.otel.TurnTrace``)."""

    async def stage(self, name: str, workflow: str, work: Awaitable[T]) -> T: ...

    def attempt(self, attempt: ProviderAttempt, started_ns: int | None) -> None: ...


_LIVE: dict[str, LiveTurn] = {}


def register(turn_id: str, trace: LiveTurn) -> bool:
    """Make ``trace`` the live trace of ``turn_id``; False when the turn is traced already (the
    same turn handled twice at once: the first handling keeps its trace)."""
    if turn_id in _LIVE:
        return False
    _LIVE[turn_id] = trace
    return True


def unregister(turn_id: str, trace: LiveTurn) -> None:
    if _LIVE.get(turn_id) is trace:
        del _LIVE[turn_id]


def observe_stage(
    turn_id: str | None, workflow: str, message: object, work: Awaitable[T]
) -> Awaitable[T]:
    """``work`` (a stage actor's answer to ``message``) to await inside a span of that stage.
    ``turn_id`` None: the turn whose message the asking actor is handling (its correlation).
    A turn nobody traces gets ``work`` itself back: awaiting it costs nothing more."""
    if not _LIVE:
        return work
    turn_id = turn_id if turn_id is not None else current_correlation_id()
    trace = _LIVE.get(turn_id) if turn_id is not None else None
    if trace is None:
        return work
    return trace.stage(type(message).__name__.lower(), workflow, work)


def observe_attempt(attempt: ProviderAttempt, started_ns: int | None) -> None:
    """A provider attempt became final (``started_ns``: when it was sent; None for late ones)."""
    trace = _LIVE.get(attempt.turn_id)
    if trace is None:
        return
    try:
        trace.attempt(attempt, started_ns)
    except Exception:  # telemetry never breaks a turn
        logger.exception("recording a provider attempt failed")


def now_ns() -> int:
    """Wall-clock nanoseconds, the unit OpenTelemetry spans are stamped in."""
    return time.time_ns()


def live_turns() -> int:
    return len(_LIVE)


__all__ = [
    "LiveTurn",
    "live_turns",
    "now_ns",
    "observe_attempt",
    "observe_stage",
    "register",
    "unregister",
]


