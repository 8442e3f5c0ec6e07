"""The one clock abstraction.

Wall-clock time enters turnframe only through a :class:`Clock`. A turn carries the instant it was
received (``UserTurn.clock``), so interpretation of relative dates and every pure function sees
that instant, never ``datetime.now()``. Timeouts and restart intensity use the event loop's
monotonic time (``anyio.current_time()``), which is not a wall clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

import attrs


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware."""
        ...


class SystemClock:
    """The real wall clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@attrs.define
class ManualClock:
    """A clock that only moves when told to: for tests, demos and replays."""

    at: datetime = attrs.field(factory=lambda: datetime(2026, 1, 1, 9, 0, tzinfo=UTC))

    def now(self) -> datetime:
        return self.at

    def advance(self, delta: timedelta) -> None:
        self.at = self.at + delta
