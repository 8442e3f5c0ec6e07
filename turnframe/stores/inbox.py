"""What the stores keep for workers (ADR 0018): the lease log's lines.

The turn inbox itself needs no record of its own: a submitted turn is a :class:`TurnRecord` in
phase ``received``, served (in its session's order) by whichever worker holds the session.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import attrs


class LeaseEvent(StrEnum):
    ACQUIRED = "acquired"  # the session was free
    TAKEN_OVER = "taken_over"  # another worker's lease had expired
    RENEWED = "renewed"  # the holder moved its expiry
    RELEASED = "released"  # the holder gave it back


@attrs.frozen(kw_only=True)
class LeaseLogEntry:
    """One line of the append-only lease log: who held a session's lease, under which epoch,
    from when (``at``) until when (``expires_at``; None for a release)."""

    seq: int
    account_id: str
    session_id: str
    worker_id: str
    epoch: int
    event: LeaseEvent
    at: datetime
    expires_at: datetime | None
    previous_worker: str | None


#: The ``LISTEN``/``NOTIFY`` channel a submitted turn is announced on (PostgreSQL).
INBOX_CHANNEL = "turnframe_inbox"

__all__ = ["INBOX_CHANNEL", "LeaseEvent", "LeaseLogEntry"]
