"""Delivery on the fast paths: stops between two messages, crashes delivered once, refusals.

The serving loop tests one flag between messages and a tell that finds room costs no await;
these tests pin what a user sees of that: a stop lands between two messages and keeps the
rest in order, a message that crashes the actor is never delivered again (no crash loop), a
closed mailbox refuses at once, and ``tell`` takes its correlation id either way.
"""

from __future__ import annotations

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorCrashed, ActorStopped, current_correlation_id, handler
from turnframe.actors.mailbox import CHECKPOINT_EVERY
from turnframe.supervisors import (
    ChildSpec,
    EventKind,
    RestartIntensity,
    Strategy,
    SupervisionEvent,
    Supervisor,
)


@attrs.frozen(kw_only=True)
class Hold:
    entered: anyio.Event
    release: anyio.Event


@attrs.frozen(kw_only=True)
class Note:
    n: int


@attrs.frozen(kw_only=True)
class Poison:
    pass


@attrs.frozen(kw_only=True)
class Seen:
    pass


class Log:
    """What every instance of a ``Worker`` handled, across restarts."""

    def __init__(self) -> None:
        self.notes: list[tuple[int, int]] = []  # (instance number, note)
        self.correlations: list[str | None] = []
        self.instances = 0


class Worker(Actor):
    def __init__(self, log: Log) -> None:
        log.instances += 1
        self.number = log.instances
        self.log = log

    @handler
    async def hold(self, message: Hold) -> None:
        message.entered.set()
        await message.release.wait()

    @handler
    def note(self, message: Note) -> None:
        self.log.notes.append((self.number, message.n))
        self.log.correlations.append(current_correlation_id())

    @handler
    def poison(self, message: Poison) -> None:
        raise ValueError("this message always crashes the worker")

    @handler
    def seen(self, message: Seen) -> list[tuple[int, int]]:
        return list(self.log.notes)


@attrs.frozen(kw_only=True)
class Crash:
    pass


class Crasher(Actor):
    @handler
    def crash(self, message: Crash) -> None:
        raise RuntimeError("a sibling crashes")


def worker(log: Log, capacity: int = 100) -> ChildSpec:
    return ChildSpec(id="w", factory=lambda: Worker(log), mailbox_size=capacity)


@pytest.mark.anyio
async def test_a_restart_mid_queue_stops_after_the_current_message_keeping_the_rest_in_order() -> (
    None
):
    log = Log()
    restarted = anyio.Event()

    def on_event(event: SupervisionEvent) -> None:
        if event.kind is EventKind.RESTARTED and event.child == "w":
            restarted.set()

    children = [worker(log), ChildSpec(id="crasher", factory=Crasher)]
    async with Supervisor(
        name="root", children=children, strategy=Strategy.ONE_FOR_ALL, on_event=on_event
    ) as sup:
        ref = sup.ref("w")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        for n in range(3):
            await ref.tell(Note(n=n))
        with pytest.raises(ActorCrashed):
            await sup.ref("crasher").ask(Crash())  # one_for_all: the worker is stopped too
        release.set()
        await restarted.wait()
        assert await ref.ask(Seen()) == [(2, 0), (2, 1), (2, 2)]


@pytest.mark.anyio
async def test_a_message_that_crashes_the_actor_is_delivered_once_and_never_again() -> None:
    log = Log()
    crashes: list[str] = []

    def on_event(event: SupervisionEvent) -> None:
        if event.kind is EventKind.CRASHED:
            crashes.append(event.child)

    # One restart allowed: a message delivered again after its crash would use up the budget
    # and fail the supervisor.
    intensity = RestartIntensity(max_restarts=1, within_seconds=3600)
    async with Supervisor(
        name="root", children=[worker(log)], intensity=intensity, on_event=on_event
    ) as sup:
        ref = sup.ref("w")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        await ref.tell(Poison())
        await ref.tell(Note(n=1))
        await ref.tell(Note(n=2))
        release.set()
        assert await ref.ask(Seen()) == [(2, 1), (2, 2)]
    assert crashes == ["w"]
    assert log.instances == 2


@pytest.mark.anyio
async def test_a_tell_to_a_stopped_actor_is_a_dead_letter_before_it_is_awaited() -> None:
    log = Log()
    sup = Supervisor(name="root", children=[worker(log)])
    async with sup:
        ref = sup.ref("w")
    sent = ref.tell(Note(n=1))
    assert sup.dead_letters.count(Note) == 1
    await sent
    with pytest.raises(ActorStopped):
        await ref.ask(Seen())
    assert sup.dead_letters.total == 2


@pytest.mark.anyio
async def test_tell_takes_the_correlation_id_by_keyword_or_by_position() -> None:
    log = Log()
    async with Supervisor(name="root", children=[worker(log)]) as sup:
        ref = sup.ref("w")
        await ref.tell(Note(n=1), correlation_id="turn-1")
        await ref.tell(Note(n=2), "turn-2")
        await ref.tell(Note(n=3))
        await ref.ask(Seen())
    assert log.correlations == ["turn-1", "turn-2", None]


@pytest.mark.anyio
async def test_a_long_burst_of_tells_arrives_whole_and_in_order() -> None:
    log = Log()
    count = 5 * CHECKPOINT_EVERY + 3
    async with Supervisor(name="root", children=[worker(log, capacity=7)]) as sup:
        ref = sup.ref("w")
        for n in range(count):
            await ref.tell(Note(n=n))
        seen = await ref.ask(Seen())
    assert [n for _, n in seen] == list(range(count))
