"""The runtime's delivered-turn feed: never waits on a watcher, ends watches when it closes."""

from __future__ import annotations

import anyio
import pytest

from turnframe.lifecycle import TurnPhase
from turnframe.runtime.feed import DeliveredTurn, TurnFeed

pytestmark = pytest.mark.anyio


def _note(turn_id: str, session_id: str = "s1") -> DeliveredTurn:
    return DeliveredTurn(
        account_id="a", session_id=session_id, turn_id=turn_id, phase=TurnPhase.DELIVERED
    )


async def test_a_watcher_gets_its_sessions_turns_in_order_and_no_others() -> None:
    feed = TurnFeed()
    async with feed.watch("a", "s1") as watch:
        feed.publish(_note("t1"))
        feed.publish(_note("x", session_id="s2"))
        feed.publish(_note("t2"))
        got = [(await watch.receive.receive()).turn_id for _ in range(2)]
    assert got == ["t1", "t2"]
    assert feed.watchers == 0


async def test_a_watcher_that_falls_behind_is_ended_and_publishing_never_waits() -> None:
    feed = TurnFeed(buffer=2)
    async with feed.watch("a", "s1") as watch:
        for n in range(5):
            feed.publish(_note(f"t{n}"))
        got = [note.turn_id async for note in watch.receive]
    assert got == ["t0", "t1"]


async def test_closing_the_feed_ends_every_watch() -> None:
    feed = TurnFeed()
    async with feed.watch("a", "s1") as watch:
        feed.close()
        with pytest.raises(anyio.EndOfStream):
            await watch.receive.receive()
    async with feed.watch("a", "s1") as late:  # a watch begun after the close ends at once
        with pytest.raises(anyio.EndOfStream):
            await late.receive.receive()
