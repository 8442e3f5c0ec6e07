"""Supervisors must hold on both anyio backends: every test here runs on each.

``events`` records supervision events and lets a test wait for one without sleeping.
"""

from __future__ import annotations

import anyio
import pytest

from turnframe.supervisors import EventKind, SupervisionEvent


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


class EventRecorder:
    """An ``on_event`` callback that keeps every event and wakes waiters."""

    def __init__(self) -> None:
        self.events: list[SupervisionEvent] = []
        self._changed: anyio.Event | None = None

    def __call__(self, event: SupervisionEvent) -> None:
        self.events.append(event)
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    def count(self, kind: EventKind, child: str) -> int:
        return sum(1 for e in self.events if e.kind is kind and e.child == child)

    def of(self, child: str) -> list[EventKind]:
        return [e.kind for e in self.events if e.child == child]

    async def wait_for(self, kind: EventKind, child: str, count: int = 1) -> None:
        """Wait until ``count`` events of ``kind`` for ``child`` were seen (5 s safety net)."""
        with anyio.fail_after(5):
            while self.count(kind, child) < count:
                if self._changed is None:
                    self._changed = anyio.Event()
                await self._changed.wait()


@pytest.fixture
def events() -> EventRecorder:
    return EventRecorder()
