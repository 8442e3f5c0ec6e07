"""Each strategy restarts exactly the right children, in the right order."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorCrashed, handler
from turnframe.supervisors import ChildSpec, EventKind, Strategy, Supervisor

if TYPE_CHECKING:
    from conftest import EventRecorder


@attrs.frozen(kw_only=True)
class Crash:
    pass


@attrs.frozen(kw_only=True)
class Ping:
    pass


@attrs.frozen(kw_only=True)
class Busy:
    entered: anyio.Event
    release: anyio.Event


class Probe(Actor):
    """Logs its lifecycle as (what, child id)."""

    def __init__(self, child_id: str, log: list[tuple[str, str]]) -> None:
        self.child_id = child_id
        self.log = log

    async def on_start(self) -> None:
        self.log.append(("start", self.child_id))

    async def on_stop(self) -> None:
        self.log.append(("stop", self.child_id))

    @handler
    def crash(self, message: Crash) -> None:
        raise RuntimeError(f"{self.child_id} crashed")

    @handler
    def ping(self, message: Ping) -> str:
        return self.child_id

    @handler
    async def busy(self, message: Busy) -> None:
        message.entered.set()
        await message.release.wait()


def probes(log: list[tuple[str, str]], *ids: str) -> list[ChildSpec]:
    return [ChildSpec(id=i, factory=lambda i=i: Probe(i, log)) for i in ids]  # type: ignore[misc]


async def crash_b_and_wait(sup: Supervisor, events: EventRecorder, restarted: list[str]) -> None:
    with pytest.raises(ActorCrashed):
        await sup.ref("b").ask(Crash())
    for child in restarted:
        await events.wait_for(EventKind.RESTARTED, child)


def restarted_children(events: EventRecorder) -> list[str]:
    return [e.child for e in events.events if e.kind is EventKind.RESTARTED]


@pytest.mark.anyio
async def test_one_for_one_restarts_only_the_crashed_child(events: EventRecorder) -> None:
    log: list[tuple[str, str]] = []
    sup = Supervisor(name="root", children=probes(log, "a", "b", "c"), on_event=events)
    async with sup:
        await crash_b_and_wait(sup, events, ["b"])
        assert [await sup.ref(i).ask(Ping()) for i in "abc"] == ["a", "b", "c"]
        assert restarted_children(events) == ["b"]
        assert log[3:] == [("stop", "b"), ("start", "b")]


@pytest.mark.anyio
async def test_one_for_all_restarts_every_child(events: EventRecorder) -> None:
    log: list[tuple[str, str]] = []
    sup = Supervisor(
        name="root",
        children=probes(log, "a", "b", "c"),
        strategy=Strategy.ONE_FOR_ALL,
        on_event=events,
    )
    async with sup:
        await crash_b_and_wait(sup, events, ["a", "b", "c"])
        assert restarted_children(events) == ["a", "b", "c"]
        assert log[3:] == [
            ("stop", "b"),
            ("stop", "c"),
            ("stop", "a"),
            ("start", "a"),
            ("start", "b"),
            ("start", "c"),
        ]


@pytest.mark.anyio
async def test_rest_for_one_restarts_the_crashed_child_and_those_started_after_it(
    events: EventRecorder,
) -> None:
    log: list[tuple[str, str]] = []
    sup = Supervisor(
        name="root",
        children=probes(log, "a", "b", "c"),
        strategy=Strategy.REST_FOR_ONE,
        on_event=events,
    )
    async with sup:
        await crash_b_and_wait(sup, events, ["b", "c"])
        assert restarted_children(events) == ["b", "c"]
        assert log[3:] == [("stop", "b"), ("stop", "c"), ("start", "b"), ("start", "c")]


@pytest.mark.anyio
async def test_children_start_in_order_and_stop_in_reverse_order() -> None:
    log: list[tuple[str, str]] = []
    async with Supervisor(name="root", children=probes(log, "a", "b", "c")):
        assert log == [("start", "a"), ("start", "b"), ("start", "c")]
    assert log[3:] == [("stop", "c"), ("stop", "b"), ("stop", "a")]


@pytest.mark.anyio
async def test_a_sibling_busy_with_a_message_ends_before_its_new_instance_starts(
    events: EventRecorder,
) -> None:
    log: list[tuple[str, str]] = []
    sup = Supervisor(
        name="root",
        children=probes(log, "a", "b"),
        strategy=Strategy.ONE_FOR_ALL,
        on_event=events,
    )
    async with sup:
        entered, release = anyio.Event(), anyio.Event()
        await sup.ref("a").tell(Busy(entered=entered, release=release))
        await entered.wait()
        with pytest.raises(ActorCrashed):
            await sup.ref("b").ask(Crash())
        await anyio.wait_all_tasks_blocked()
        assert log[2:] == [("stop", "b")]  # a is still busy: nothing restarted yet
        release.set()
        await events.wait_for(EventKind.RESTARTED, "b")
        assert log[2:] == [("stop", "b"), ("stop", "a"), ("start", "a"), ("start", "b")]
