"""The actor layer under pytest-asyncio, the way an asyncio service's own tests drive it."""

from __future__ import annotations

import attrs
import pytest

from turnframe.actors import Actor, ActorCrashed, handler
from turnframe.supervisors import ChildSpec, Supervisor


@attrs.frozen
class Add:
    amount: int


@attrs.frozen
class Boom:
    pass


class Counter(Actor):
    def __init__(self) -> None:
        self.total = 0

    @handler
    def add(self, message: Add) -> int:
        self.total += message.amount
        return self.total

    @handler
    def boom(self, message: Boom) -> None:
        raise RuntimeError("boom")


@pytest.mark.asyncio
async def test_ask_and_tell_work_under_pytest_asyncio() -> None:
    async with Supervisor(name="root", children=[ChildSpec(id="counter", factory=Counter)]) as sup:
        ref = sup.ref("counter")
        await ref.tell(Add(2))
        assert await ref.ask(Add(3), timeout=5) == 5


@pytest.mark.asyncio
async def test_a_crash_answers_the_asker_and_the_restarted_actor_serves_the_next_message() -> None:
    async with Supervisor(name="root", children=[ChildSpec(id="counter", factory=Counter)]) as sup:
        ref = sup.ref("counter")
        with pytest.raises(ActorCrashed):
            await ref.ask(Boom(), timeout=5)
        assert await ref.ask(Add(1), timeout=5) == 1
