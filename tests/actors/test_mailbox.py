"""Bounded mailboxes: backpressure, MailboxFull, and staying cancellable on the fast path."""

from __future__ import annotations

import anyio
import attrs
import pytest

from turnframe.actors import Actor, MailboxFull, handler
from turnframe.actors.mailbox import CHECKPOINT_EVERY
from turnframe.supervisors import ChildSpec, Supervisor


@attrs.frozen(kw_only=True)
class Hold:
    entered: anyio.Event
    release: anyio.Event


@attrs.frozen(kw_only=True)
class Note:
    n: int


@attrs.frozen(kw_only=True)
class Notes:
    pass


class Recorder(Actor):
    def __init__(self) -> None:
        self.notes: list[int] = []

    @handler
    async def hold(self, message: Hold) -> None:
        message.entered.set()
        await message.release.wait()

    @handler
    def note(self, message: Note) -> None:
        self.notes.append(message.n)

    @handler
    def all_notes(self, message: Notes) -> list[int]:
        return list(self.notes)


def recorder(capacity: int) -> ChildSpec:
    return ChildSpec(id="rec", factory=Recorder, mailbox_size=capacity)


@pytest.mark.anyio
async def test_tell_waits_while_the_mailbox_is_full_and_resumes_when_room_frees() -> None:
    async with Supervisor(name="root", children=[recorder(2)]) as sup:
        ref = sup.ref("rec")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        await ref.tell(Note(n=1))
        await ref.tell(Note(n=2))
        third_sent = anyio.Event()

        async def send_third() -> None:
            await ref.tell(Note(n=3))
            third_sent.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(send_third)
            await anyio.wait_all_tasks_blocked()
            assert not third_sent.is_set()
            assert ref.queued == 2
            release.set()
            await third_sent.wait()
        assert await ref.ask(Notes()) == [1, 2, 3]


@pytest.mark.anyio
async def test_tell_nowait_raises_mailbox_full_instead_of_waiting() -> None:
    async with Supervisor(name="root", children=[recorder(1)]) as sup:
        ref = sup.ref("rec")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        ref.tell_nowait(Note(n=1))
        with pytest.raises(MailboxFull) as caught:
            ref.tell_nowait(Note(n=2))
        assert caught.value.code == "turnframe.actor.mailbox_full"
        assert caught.value.capacity == 1
        release.set()
        assert await ref.ask(Notes()) == [1]


@pytest.mark.anyio
async def test_an_ask_waiting_for_room_in_a_full_mailbox_times_out() -> None:
    from turnframe.actors import AskTimeout

    async with Supervisor(name="root", children=[recorder(1)]) as sup:
        ref = sup.ref("rec")
        entered, release = anyio.Event(), anyio.Event()
        await ref.tell(Hold(entered=entered, release=release))
        await entered.wait()
        ref.tell_nowait(Note(n=1))
        with pytest.raises(AskTimeout):
            await ref.ask(Notes(), timeout=0.01)
        release.set()
        assert await ref.ask(Notes()) == [1]


@pytest.mark.anyio
async def test_a_sender_that_never_finds_the_mailbox_full_still_reaches_a_checkpoint() -> None:
    async with Supervisor(name="root", children=[recorder(10_000)]) as sup:
        ref = sup.ref("rec")
        sent = 0
        with anyio.CancelScope() as scope:
            scope.cancel()
            for n in range(5 * CHECKPOINT_EVERY):
                await ref.tell(Note(n=n))
                sent += 1
        assert scope.cancelled_caught
        assert sent < CHECKPOINT_EVERY


@pytest.mark.anyio
async def test_an_actor_working_through_a_long_queue_lets_other_tasks_run() -> None:
    async with Supervisor(name="root", children=[recorder(10_000)]) as sup:
        ref = sup.ref("rec")
        for n in range(20 * CHECKPOINT_EVERY):
            ref.tell_nowait(Note(n=n))
        handled_when_probed: list[int] = []

        async def probe() -> None:
            handled_when_probed.append(20 * CHECKPOINT_EVERY - ref.queued)

        async with anyio.create_task_group() as tg:
            tg.start_soon(probe)
        notes = await ref.ask(Notes())
        assert len(notes) == 20 * CHECKPOINT_EVERY
        assert handled_when_probed[0] < 20 * CHECKPOINT_EVERY
