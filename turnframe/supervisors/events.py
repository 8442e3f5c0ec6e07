"""Supervision events: what a supervisor did, for a callback and for the log."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable

import attrs

logger = logging.getLogger("turnframe.supervisors")


class EventKind(enum.StrEnum):
    STARTED = "started"
    CRASHED = "crashed"
    RESTARTED = "restarted"
    ESCALATED = "escalated"
    STOPPED = "stopped"
    #: A child that crashed more often than its own budget was stopped for good; its
    #: supervisor and its siblings go on (a dynamic supervisor's ``child_intensity``).
    GAVE_UP = "gave_up"


@attrs.frozen(kw_only=True)
class SupervisionEvent:
    """One thing a supervisor saw or did. ``at`` is the supervisor's monotonic time.

    ``delay`` is the backoff waited before a restart; ``error`` is the crash (``crashed``), the
    last crash (``escalated``, ``gave_up``) or None.
    """

    kind: EventKind
    supervisor: str
    child: str
    at: float
    error: BaseException | None = None
    delay: float = 0.0


EventCallback = Callable[[SupervisionEvent], None]

_LEVELS = {
    EventKind.STARTED: logging.DEBUG,
    EventKind.RESTARTED: logging.INFO,
    EventKind.STOPPED: logging.DEBUG,
    EventKind.CRASHED: logging.WARNING,
    EventKind.ESCALATED: logging.ERROR,
    EventKind.GAVE_UP: logging.ERROR,
}


def publish(event: SupervisionEvent, callback: EventCallback | None) -> None:
    """Log the event, then hand it to ``callback``; a failing callback is logged, not raised."""
    error = f": {type(event.error).__name__}: {event.error}" if event.error is not None else ""
    delay = f" after {event.delay:g}s backoff" if event.delay else ""
    logger.log(
        _LEVELS[event.kind],
        "supervisor %r: child %r %s%s%s",
        event.supervisor,
        event.child,
        event.kind.value,
        delay,
        error,
        extra={"supervisor": event.supervisor, "child": event.child, "event": event.kind.value},
    )
    if callback is None:
        return
    try:
        callback(event)
    except Exception:
        logger.exception("supervision event callback failed on %s", event)
