"""Dead letters: messages for a stopped actor are counted and logged, never dropped silently."""

from __future__ import annotations

import logging

import anyio
import attrs
import pytest

from turnframe.actors import Actor, ActorStopped, DeadLetter, DeadLetters, handler
from turnframe.supervisors import ChildSpec, Restart, Supervisor


@attrs.frozen(kw_only=True)
class Note:
    n: int


@attrs.frozen(kw_only=True)
class Quit:
    pass


@attrs.frozen(kw_only=True)
class Hold:
    entered: anyio.Event
    release: anyio.Event


class Worker(Actor):
    @handler
    def note(self, message: Note) -> int:
        return message.n

    @handler
    def quit(self, message: Quit) -> None:
        self.stop()

    @handler
    async def hold(self, message: Hold) -> None:
        message.entered.set()
        await message.release.wait()


def worker(restart: Restart = Restart.PERMANENT) -> ChildSpec:
    return ChildSpec(id="worker", factory=Worker, restart=restart)


@pytest.mark.anyio
async def test_a_tell_to_a_stopped_actor_is_counted_as_a_dead_letter() -> None:
    sup = Supervisor(name="root", children=[worker()])
    async with sup:
        ref = sup.ref("worker")
    assert ref.stopped
    await ref.tell(Note(n=1))
    ref.tell_nowait(Note(n=2))
    assert sup.dead_letters.total == 2
    assert sup.dead_letters.count(Note) == 2


@pytest.mark.anyio
async def test_an_ask_to_a_stopped_actor_raises_actor_stopped_and_is_counted() -> None:
    sup = Supervisor(name="root", children=[worker()])
    async with sup:
        ref = sup.ref("worker")
    with pytest.raises(ActorStopped) as caught:
        await ref.ask(Note(n=1))
    assert caught.value.code == "turnframe.actor.stopped"
    assert sup.dead_letters.count("Note") == 1


@pytest.mark.anyio
async def test_dead_letters_are_counted_per_message_type() -> None:
    sup = Supervisor(name="root", children=[worker()])
    async with sup:
        ref = sup.ref("worker")
    await ref.tell(Note(n=1))
    await ref.tell(Note(n=2))
    await ref.tell(Quit())
    assert sup.dead_letters.by_type() == {"Note": 2, "Quit": 1}
    assert sup.dead_letters.total == 3


@pytest.mark.anyio
async def test_messages_queued_behind_a_transient_actor_that_stops_itself_become_dead_letters() -> (
    None
):
    letters: list[DeadLetter] = []
    sink = DeadLetters(on_letter=letters.append)
    async with Supervisor(
        name="root", children=[worker(Restart.TRANSIENT)], dead_letters=sink
    ) as sup:
        ref = sup.ref("worker")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        await ref.tell(Quit())
        await ref.tell(Note(n=1), correlation_id="turn-1")
        release.set()
        with pytest.raises(ActorStopped):
            await ref.ask(Note(n=2))
    assert [(letter.message, letter.correlation_id) for letter in letters] == [
        (Note(n=1), "turn-1"),
        (Note(n=2), None),
    ]


@pytest.mark.anyio
async def test_each_dead_letter_is_logged_with_its_correlation_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="turnframe.actors.dead_letters")
    sup = Supervisor(name="root", children=[worker()])
    async with sup:
        ref = sup.ref("worker")
    await ref.tell(Note(n=1), correlation_id="turn-5")
    [record] = caplog.records
    assert "dead letter: Note" in record.getMessage()
    assert getattr(record, "correlation_id", None) == "turn-5"
