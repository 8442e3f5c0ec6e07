"""Restart intensity, escalation to the parent, and backoff between restarts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorCrashed, handler
from turnframe.supervisors import (
    Backoff,
    ChildSpec,
    EventKind,
    RestartIntensity,
    RestartIntensityExceeded,
    Supervisor,
)

if TYPE_CHECKING:
    from conftest import EventRecorder


@attrs.frozen(kw_only=True)
class Crash:
    pass


@attrs.frozen(kw_only=True)
class Ping:
    pass


class Fragile(Actor):
    @handler
    def crash(self, message: Crash) -> None:
        raise RuntimeError("fragile crashed")

    @handler
    def ping(self, message: Ping) -> str:
        return "pong"


class FakeTime:
    """A monotonic time source that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def fragile(child_id: str = "f") -> ChildSpec:
    return ChildSpec(id=child_id, factory=Fragile)


async def crash(sup: Supervisor, child_id: str = "f") -> None:
    with pytest.raises(ActorCrashed):
        await sup.ref(child_id).ask(Crash())


@pytest.mark.anyio
async def test_restarts_within_the_intensity_are_absorbed(events: EventRecorder) -> None:
    intensity = RestartIntensity(max_restarts=3, within_seconds=5)
    sup = Supervisor(name="root", children=[fragile()], intensity=intensity, on_event=events)
    async with sup:
        for _ in range(3):
            await crash(sup)
        assert await sup.ref("f").ask(Ping()) == "pong"
        assert events.count(EventKind.RESTARTED, "f") == 3


@pytest.mark.anyio
async def test_exceeding_the_intensity_fails_the_root_with_a_typed_error() -> None:
    intensity = RestartIntensity(max_restarts=1, within_seconds=5)
    sup = Supervisor(name="root", children=[fragile()], intensity=intensity)
    with pytest.raises(RestartIntensityExceeded) as caught:
        async with sup:
            await crash(sup)
            await crash(sup)
            await anyio.sleep_forever()  # cancelled by the root's failure
    assert caught.value.code == "turnframe.supervisor.restart_intensity_exceeded"
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert caught.value.child == "f"


@pytest.mark.anyio
async def test_exceeding_the_intensity_escalates_to_the_parent(events: EventRecorder) -> None:
    inner = Supervisor(
        name="inner",
        children=[fragile()],
        intensity=RestartIntensity(max_restarts=1, within_seconds=5),
    )
    root = Supervisor(name="root", children=[inner], on_event=events)
    async with root:
        await crash(inner)
        await crash(inner)
        await events.wait_for(EventKind.RESTARTED, "inner")
        assert events.count(EventKind.ESCALATED, "f") == 1
        assert events.count(EventKind.CRASHED, "inner") == 1
        [crashed] = [e for e in root_events(events, "inner") if e.kind is EventKind.CRASHED]
        assert isinstance(crashed.error, RestartIntensityExceeded)
        assert await inner.ref("f").ask(Ping()) == "pong"


def root_events(events: EventRecorder, child: str) -> list[object]:
    return [e for e in events.events if e.child == child and e.supervisor == "root"]


@pytest.mark.anyio
async def test_restarts_spread_wider_than_the_window_never_escalate(
    events: EventRecorder,
) -> None:
    clock = FakeTime()
    sup = Supervisor(
        name="root",
        children=[fragile()],
        intensity=RestartIntensity(max_restarts=1, within_seconds=5),
        time_source=clock,
        on_event=events,
    )
    async with sup:
        for n in range(1, 5):
            await crash(sup)
            await events.wait_for(EventKind.RESTARTED, "f", count=n)
            clock.now += 5.0
        assert events.count(EventKind.ESCALATED, "f") == 0


@pytest.mark.anyio
async def test_backoff_waits_longer_after_each_recent_restart(events: EventRecorder) -> None:
    slept: list[float] = []

    async def record_sleep(seconds: float) -> None:
        slept.append(seconds)

    sup = Supervisor(
        name="root",
        children=[fragile()],
        intensity=RestartIntensity(max_restarts=10, within_seconds=60),
        backoff=Backoff(initial=0.5, factor=2.0, maximum=1.5),
        sleep=record_sleep,
        time_source=FakeTime(),
        on_event=events,
    )
    async with sup:
        for n in range(1, 5):
            await crash(sup)
            await events.wait_for(EventKind.RESTARTED, "f", count=n)
    assert slept == [0.5, 1.0, 1.5, 1.5]
    assert [e.delay for e in events.events if e.kind is EventKind.RESTARTED] == slept


def test_backoff_delay_grows_exponentially_up_to_its_maximum() -> None:
    backoff = Backoff(initial=0.01, factor=3.0, maximum=0.5)
    assert [backoff.delay(n) for n in (1, 2, 3, 4, 5, 10_000)] == [
        0.01,
        pytest.approx(0.03),
        pytest.approx(0.09),
        pytest.approx(0.27),
        0.5,
        0.5,
    ]
