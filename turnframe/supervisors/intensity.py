"""Restart history: decides when a supervisor has restarted too often and must give up."""

from __future__ import annotations

from collections import deque

from turnframe.supervisors.spec import RestartIntensity


class RestartHistory:
    """The restarts of one supervisor run within the sliding intensity window."""

    def __init__(self, intensity: RestartIntensity) -> None:
        self._intensity = intensity
        self._all: deque[float] = deque()
        self._per_child: dict[str, deque[float]] = {}

    def record_child(
        self, now: float, child: str, budget: RestartIntensity
    ) -> tuple[bool, int]:
        """Record a restart of ``child`` against its own ``budget`` only (not the supervisor's
        window). Returns (its budget exceeded, its restarts within that window)."""
        mine = self._per_child.setdefault(child, deque())
        _forget_before(mine, now - budget.within_seconds)
        mine.append(now)
        return len(mine) > budget.max_restarts, len(mine)

    def forget(self, child: str) -> None:
        """A child gone for good keeps no history."""
        self._per_child.pop(child, None)

    def record(self, now: float, child: str) -> tuple[bool, int]:
        """Record a restart of ``child`` at ``now``.

        Returns (intensity exceeded, restarts of this child within the window including this
        one: the backoff attempt number).
        """
        horizon = now - self._intensity.within_seconds
        _forget_before(self._all, horizon)
        self._all.append(now)
        mine = self._per_child.setdefault(child, deque())
        _forget_before(mine, horizon)
        mine.append(now)
        return len(self._all) > self._intensity.max_restarts, len(mine)


def _forget_before(times: deque[float], horizon: float) -> None:
    while times and times[0] <= horizon:
        times.popleft()
