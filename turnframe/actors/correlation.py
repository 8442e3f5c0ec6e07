"""The correlation id (usually the turn id) that travels with every message.

While an actor handles a message, ``current_correlation_id()`` returns the id the message was
sent with. A message sent from inside a handler inherits it unless the sender passes another, so
one turn's id follows it through every stage. ``CorrelationIdFilter`` stamps it on log records.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar

_correlation_id: ContextVar[str | None] = ContextVar("turnframe_correlation_id", default=None)

# The bound methods, taken once: the actor hot paths read or set the id once per message, and
# ``_correlation_id.get()`` in another module builds a bound method per call (Python 3.11
# compiles a method call on an imported name as an attribute load and a call).
_get_correlation_id = _correlation_id.get
_set_correlation_id = _correlation_id.set


def current_correlation_id() -> str | None:
    """The correlation id of the message being handled in this task, if any."""
    return _correlation_id.get()


class CorrelationIdFilter(logging.Filter):
    """Adds ``record.correlation_id`` (from the record's ``extra`` or the current message)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "correlation_id", None) is None:
            record.correlation_id = _correlation_id.get()
        return True
