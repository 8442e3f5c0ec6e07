"""Graceful shutdown: drain the mailbox within the deadline, then cancel."""

from __future__ import annotations

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorStopped, handler
from turnframe.supervisors import ChildSpec, Supervisor


@attrs.frozen(kw_only=True)
class Note:
    n: int


@attrs.frozen(kw_only=True)
class Block:
    entered: anyio.Event


@attrs.frozen(kw_only=True)
class Hold:
    entered: anyio.Event
    release: anyio.Event


@attrs.frozen(kw_only=True)
class Fail:
    pass


class Scribe(Actor):
    def __init__(self, notes: list[int], stops: list[str]) -> None:
        self.notes = notes
        self.stops = stops

    async def on_stop(self) -> None:
        self.stops.append("on_stop")

    @handler
    def note(self, message: Note) -> None:
        self.notes.append(message.n)

    @handler
    async def block(self, message: Block) -> None:
        message.entered.set()
        await anyio.sleep_forever()

    @handler
    async def hold(self, message: Hold) -> None:
        message.entered.set()
        await message.release.wait()

    @handler
    def fail(self, message: Fail) -> None:
        raise RuntimeError("scribe crashed")


def scribe(notes: list[int], stops: list[str], shutdown: float = 5.0) -> ChildSpec:
    return ChildSpec(id="s", factory=lambda: Scribe(notes, stops), shutdown=shutdown)


@pytest.mark.anyio
async def test_graceful_shutdown_handles_every_queued_message_first() -> None:
    notes: list[int] = []
    stops: list[str] = []
    sup = Supervisor(name="root", children=[scribe(notes, stops)])
    async with sup:
        ref = sup.ref("s")
        for n in range(50):
            ref.tell_nowait(Note(n=n))
    assert notes == list(range(50))
    assert stops == ["on_stop"]
    assert sup.dead_letters.total == 0


@pytest.mark.anyio
async def test_shutdown_cancels_a_child_still_busy_at_its_deadline() -> None:
    notes: list[int] = []
    stops: list[str] = []
    sup = Supervisor(name="root", children=[scribe(notes, stops, shutdown=0.01)])
    outcome: list[BaseException] = []
    async with anyio.create_task_group() as tg, sup:
        ref = sup.ref("s")
        entered = anyio.Event()

        async def ask_block() -> None:
            try:
                await ref.ask(Block(entered=entered))
            except ActorStopped as err:
                outcome.append(err)

        tg.start_soon(ask_block)
        await entered.wait()
        await ref.tell(Note(n=1))
        await ref.tell(Note(n=2))
    assert [type(err) for err in outcome] == [ActorStopped]
    assert notes == []
    assert stops == []  # a cancelled instance skips on_stop
    assert sup.dead_letters.count(Note) == 2
    assert sup.dead_letters.count(Block) == 1  # interrupted mid-message: accounted for too


@pytest.mark.anyio
async def test_messages_sent_while_an_actor_drains_go_to_dead_letters() -> None:
    notes: list[int] = []
    sup = Supervisor(name="root", children=[scribe(notes, [])])
    async with sup:
        ref = sup.ref("s")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        ref.tell_nowait(Note(n=1))
        sup.request_stop(drain=True)
        await anyio.wait_all_tasks_blocked()
        assert ref.stopped
        await ref.tell(Note(n=2))
        release.set()
    assert notes == [1]
    assert sup.dead_letters.count(Note) == 1


@pytest.mark.anyio
async def test_on_stop_runs_after_a_crash_too() -> None:
    stops: list[str] = []
    async with Supervisor(name="root", children=[scribe([], stops)]) as sup:
        await sup.ref("s").tell(Fail())
        await sup.ref("s").ask(Note(n=1))
        assert stops == ["on_stop"]


@pytest.mark.anyio
async def test_an_error_in_the_block_cancels_the_children_and_propagates() -> None:
    notes: list[int] = []
    stops: list[str] = []
    sup = Supervisor(name="root", children=[scribe(notes, stops)])
    with pytest.raises(KeyError):
        async with sup:
            ref = sup.ref("s")
            raise KeyError("boom")
    assert ref.stopped
    await ref.tell(Note(n=1))
    assert sup.dead_letters.total == 1


@pytest.mark.anyio
async def test_cancelling_the_block_stops_the_children() -> None:
    sup = Supervisor(name="root", children=[scribe([], [])])
    with anyio.CancelScope() as scope:
        async with sup:
            ref = sup.ref("s")
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert ref.stopped
    assert not sup.running
