"""Supervision trees: nesting, escalation keeping mailboxes, inherited sinks, logged events."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorCrashed, DeadLetters, handler
from turnframe.supervisors import (
    ChildSpec,
    DynamicSupervisor,
    EventKind,
    RestartIntensity,
    Supervisor,
)

if TYPE_CHECKING:
    from conftest import EventRecorder


@attrs.frozen(kw_only=True)
class Hold:
    entered: anyio.Event
    release: anyio.Event


@attrs.frozen(kw_only=True)
class Crash:
    pass


@attrs.frozen(kw_only=True)
class Note:
    n: int


@attrs.frozen(kw_only=True)
class Seen:
    pass


class Worker(Actor):
    starts = 0

    def __init__(self, handled: list[tuple[int, int]]) -> None:
        self.handled = handled
        self.instance = 0

    async def on_start(self) -> None:
        Worker.starts += 1
        self.instance = Worker.starts

    @handler
    async def hold(self, message: Hold) -> None:
        message.entered.set()
        await message.release.wait()

    @handler
    def crash(self, message: Crash) -> None:
        raise RuntimeError("worker crashed")

    @handler
    def note(self, message: Note) -> None:
        self.handled.append((self.instance, message.n))

    @handler
    def seen(self, message: Seen) -> list[tuple[int, int]]:
        return list(self.handled)


@pytest.mark.anyio
async def test_an_escalated_subtree_restarted_by_its_parent_keeps_refs_and_queued_messages(
    events: EventRecorder,
) -> None:
    handled: list[tuple[int, int]] = []
    inner = Supervisor(
        name="inner",
        children=[ChildSpec(id="w", factory=lambda: Worker(handled))],
        intensity=RestartIntensity(max_restarts=0, within_seconds=5),
    )
    async with Supervisor(name="root", children=[inner], on_event=events):
        ref = inner.ref("w")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        for message in (Crash(), Note(n=1), Note(n=2)):
            await ref.tell(message)
        release.set()
        seen = await ref.ask(Seen())
        await events.wait_for(EventKind.RESTARTED, "inner")
        assert events.count(EventKind.ESCALATED, "w") == 1
    assert [n for _, n in seen] == [1, 2]
    assert seen[0][0] == seen[1][0]


@pytest.mark.anyio
async def test_nested_supervisors_inherit_the_parents_dead_letters_and_event_callback(
    events: EventRecorder,
) -> None:
    sink = DeadLetters()
    sessions = DynamicSupervisor(name="sessions")
    inner = Supervisor(name="inner", children=[ChildSpec(id="w", factory=lambda: Worker([]))])
    async with Supervisor(
        name="root", children=[inner, sessions], dead_letters=sink, on_event=events
    ):
        await sessions.start_child(ChildSpec(id="s-1", factory=lambda: Worker([])))
        assert events.count(EventKind.STARTED, "s-1") == 1
        assert events.count(EventKind.STARTED, "w") == 1
        ref = inner.ref("w")
    await ref.tell(Note(n=1))
    assert sessions.dead_letters is sink and sink.total == 1


@pytest.mark.anyio
async def test_supervision_events_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="turnframe.supervisors")
    sup = Supervisor(name="root", children=[ChildSpec(id="w", factory=lambda: Worker([]))])
    async with sup:
        with pytest.raises(ActorCrashed):
            await sup.ref("w").ask(Crash())
        await sup.ref("w").ask(Seen())
    logged = [r.getMessage() for r in caplog.records if r.name == "turnframe.supervisors"]
    assert logged == [
        "supervisor 'root': child 'w' started",
        "supervisor 'root': child 'w' crashed: RuntimeError: worker crashed",
        "supervisor 'root': child 'w' restarted",
        "supervisor 'root': child 'w' stopped",
    ]


@pytest.mark.anyio
async def test_a_failing_event_callback_is_logged_and_does_not_stop_supervision(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(event: object) -> None:
        raise LookupError("callback bug")

    sup = Supervisor(
        name="root", children=[ChildSpec(id="w", factory=lambda: Worker([]))], on_event=broken
    )
    async with sup:
        assert await sup.ref("w").ask(Seen()) == []
    assert any("callback failed" in r.getMessage() for r in caplog.records)
