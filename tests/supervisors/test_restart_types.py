"""permanent, transient and temporary children; what survives a restart."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorCrashed, ActorStopped, handler
from turnframe.supervisors import (
    ChildSpec,
    ChildStartFailed,
    EventKind,
    Restart,
    Strategy,
    Supervisor,
    UnknownChild,
)

if TYPE_CHECKING:
    from conftest import EventRecorder


@attrs.frozen(kw_only=True)
class Crash:
    pass


@attrs.frozen(kw_only=True)
class Quit:
    pass


@attrs.frozen(kw_only=True)
class Hold:
    entered: anyio.Event
    release: anyio.Event


@attrs.frozen(kw_only=True)
class Note:
    n: int


@attrs.frozen(kw_only=True)
class Seen:
    pass


class Worker(Actor):
    """Remembers which instance handled which note."""

    instances = 0

    def __init__(self, handled: list[tuple[int, int]]) -> None:
        self.handled = handled
        self.instance = 0

    async def on_start(self) -> None:
        Worker.instances += 1
        self.instance = Worker.instances

    @handler
    def crash(self, message: Crash) -> None:
        raise RuntimeError("worker crashed")

    @handler
    def quit(self, message: Quit) -> None:
        self.stop()

    @handler
    async def hold(self, message: Hold) -> None:
        message.entered.set()
        await message.release.wait()

    @handler
    def note(self, message: Note) -> int:
        self.handled.append((self.instance, message.n))
        return self.instance

    @handler
    def seen(self, message: Seen) -> list[tuple[int, int]]:
        return list(self.handled)


def worker(
    handled: list[tuple[int, int]], restart: Restart = Restart.PERMANENT, child_id: str = "w"
) -> ChildSpec:
    return ChildSpec(id=child_id, factory=lambda: Worker(handled), restart=restart)


@pytest.mark.anyio
async def test_a_permanent_child_is_restarted_even_after_it_stops_itself(
    events: EventRecorder,
) -> None:
    sup = Supervisor(name="root", children=[worker([])], on_event=events)
    async with sup:
        await sup.ref("w").tell(Quit())
        await events.wait_for(EventKind.RESTARTED, "w")
        assert sup.child_ids() == ["w"]


@pytest.mark.anyio
async def test_a_transient_child_is_restarted_after_a_crash(events: EventRecorder) -> None:
    sup = Supervisor(name="root", children=[worker([], Restart.TRANSIENT)], on_event=events)
    async with sup:
        with pytest.raises(ActorCrashed):
            await sup.ref("w").ask(Crash())
        await events.wait_for(EventKind.RESTARTED, "w")


@pytest.mark.anyio
async def test_a_transient_child_that_stops_itself_is_not_restarted(events: EventRecorder) -> None:
    sup = Supervisor(name="root", children=[worker([], Restart.TRANSIENT)], on_event=events)
    async with sup:
        ref = sup.ref("w")
        await ref.tell(Quit())
        await events.wait_for(EventKind.STOPPED, "w")
        assert ref.stopped
        assert sup.child_ids() == []
        assert events.count(EventKind.RESTARTED, "w") == 0


@pytest.mark.anyio
async def test_a_temporary_child_is_not_restarted_after_a_crash(events: EventRecorder) -> None:
    sup = Supervisor(name="root", children=[worker([], Restart.TEMPORARY)], on_event=events)
    async with sup:
        with pytest.raises(ActorCrashed):
            await sup.ref("w").ask(Crash())
        await events.wait_for(EventKind.STOPPED, "w")
        with pytest.raises(UnknownChild):
            sup.ref("w")
        assert events.of("w") == [EventKind.STARTED, EventKind.CRASHED, EventKind.STOPPED]


@pytest.mark.anyio
async def test_a_temporary_sibling_stopped_by_a_one_for_all_restart_is_not_restarted(
    events: EventRecorder,
) -> None:
    sup = Supervisor(
        name="root",
        children=[worker([], child_id="w"), worker([], Restart.TEMPORARY, child_id="t")],
        strategy=Strategy.ONE_FOR_ALL,
        on_event=events,
    )
    async with sup:
        with pytest.raises(ActorCrashed):
            await sup.ref("w").ask(Crash())
        await events.wait_for(EventKind.RESTARTED, "w")
        assert sup.child_ids() == ["w"]


@pytest.mark.anyio
async def test_messages_queued_behind_a_crash_survive_the_restart() -> None:
    handled: list[tuple[int, int]] = []
    async with Supervisor(name="root", children=[worker(handled)]) as sup:
        ref = sup.ref("w")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        await ref.tell(Note(n=1))
        await ref.tell(Crash())
        for n in (2, 3, 4):
            await ref.tell(Note(n=n))
        release.set()
        seen = await ref.ask(Seen())
    first = seen[0][0]
    assert seen == [(first, 1), (first + 1, 2), (first + 1, 3), (first + 1, 4)]


@pytest.mark.anyio
async def test_a_ref_taken_before_a_restart_reaches_the_fresh_instance() -> None:
    async with Supervisor(name="root", children=[worker([])]) as sup:
        ref = sup.ref("w")
        before = await ref.ask(Note(n=0))
        with pytest.raises(ActorCrashed):
            await ref.ask(Crash())
        after = await ref.ask(Note(n=1))
        assert after == before + 1
        assert sup.ref("w") == ref


@pytest.mark.anyio
async def test_an_asker_interrupted_by_a_sibling_restart_deadline_gets_actor_stopped() -> None:
    spec_w = worker([], child_id="w")
    spec_slow = attrs.evolve(worker([], child_id="slow"), shutdown=0.0)
    sup = Supervisor(name="root", children=[spec_slow, spec_w], strategy=Strategy.ONE_FOR_ALL)
    async with sup, anyio.create_task_group() as tg:
        entered, release = anyio.Event(), anyio.Event()
        outcome: list[BaseException] = []

        async def ask_slow() -> None:
            try:
                await sup.ref("slow").ask(Hold(entered=entered, release=release))
            except ActorStopped as err:
                outcome.append(err)

        tg.start_soon(ask_slow)
        await entered.wait()
        with pytest.raises(ActorCrashed):
            await sup.ref("w").ask(Crash())
    assert len(outcome) == 1 and outcome[0].code == "turnframe.actor.stopped"


@pytest.mark.anyio
async def test_a_child_that_cannot_start_at_boot_fails_the_supervisor() -> None:
    class Broken(Actor):
        async def on_start(self) -> None:
            raise OSError("store unreachable")

    with pytest.raises(ChildStartFailed) as caught:
        async with Supervisor(name="root", children=[ChildSpec(id="b", factory=Broken)]):
            pytest.fail("the block must not run")
    assert caught.value.code == "turnframe.supervisor.child_start_failed"
    assert isinstance(caught.value.__cause__, OSError)
