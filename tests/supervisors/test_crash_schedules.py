"""Property: random crash schedules across a supervision tree never lose a queued message
and never run two instances of one child at once.

Tree: root ── a, inner (── b, c), d, with random strategies, restart types and intensities.
Every message sent is accounted for exactly once: handled, the message that crashed its
actor, or a dead letter (when a child or the whole tree ended for good).
"""

from __future__ import annotations

from collections import Counter

import anyio
import attrs
import pytest
from anyio.lowlevel import checkpoint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.actors import Actor, DeadLetter, DeadLetters, handler
from turnframe.supervisors import (
    ChildSpec,
    Restart,
    RestartIntensity,
    RestartIntensityExceeded,
    Strategy,
    Supervisor,
)

ACTORS = ("a", "b", "c", "d")


@attrs.frozen(kw_only=True)
class Work:
    id: int
    crash: bool
    steps: int  # checkpoints the handler takes, so restarts elsewhere overlap with it


@attrs.define
class Ledger:
    sent: list[int] = attrs.Factory(list)
    handled: list[int] = attrs.Factory(list)
    crashed: list[int] = attrs.Factory(list)
    dead: list[int] = attrs.Factory(list)
    live: Counter[str] = attrs.Factory(Counter)
    current: dict[str, object] = attrs.Factory(dict)
    violations: list[str] = attrs.Factory(list)

    def on_letter(self, letter: DeadLetter) -> None:
        assert isinstance(letter.message, Work)
        self.dead.append(letter.message.id)


class Tracked(Actor):
    def __init__(self, child: str, ledger: Ledger) -> None:
        self.child = child
        self.ledger = ledger

    async def on_start(self) -> None:
        self.ledger.live[self.child] += 1
        if self.ledger.live[self.child] > 1:
            self.ledger.violations.append(f"two instances of {self.child} at once")
        self.ledger.current[self.child] = self

    async def on_stop(self) -> None:
        self.ledger.live[self.child] -= 1

    @handler
    async def work(self, message: Work) -> None:
        if self.ledger.current.get(self.child) is not self:
            self.ledger.violations.append(f"a stale instance of {self.child} handled a message")
        for _ in range(message.steps):
            await checkpoint()
        if message.crash:
            self.ledger.crashed.append(message.id)
            raise RuntimeError(f"{self.child} crashed on {message.id}")
        self.ledger.handled.append(message.id)


@attrs.frozen(kw_only=True)
class Tree:
    root_strategy: Strategy
    inner_strategy: Strategy
    restarts: dict[str, Restart]
    inner_restart: Restart
    root_max: int
    inner_max: int


trees = st.builds(
    Tree,
    root_strategy=st.sampled_from(Strategy),
    inner_strategy=st.sampled_from(Strategy),
    restarts=st.fixed_dictionaries({name: st.sampled_from(Restart) for name in ACTORS}),
    inner_restart=st.sampled_from(Restart),
    root_max=st.integers(0, 8),
    inner_max=st.integers(0, 4),
)
schedules = st.lists(
    # (actor, crash on this message?, checkpoints its handler takes, checkpoints the sender
    # takes after sending it)
    st.tuples(
        st.sampled_from(ACTORS),
        st.booleans() | st.just(False),
        st.integers(0, 8),
        st.sampled_from([0, 0, 0, 1, 3]),
    ),
    min_size=3,
    max_size=40,
)


async def run_schedule(tree: Tree, schedule: list[tuple[str, bool, int, int]]) -> Ledger:
    ledger = Ledger()

    def spec(name: str) -> ChildSpec:
        return ChildSpec(
            id=name, factory=lambda: Tracked(name, ledger), restart=tree.restarts[name]
        )

    def never_moves() -> float:
        return 0.0

    inner = Supervisor(
        name="inner",
        children=[spec("b"), spec("c")],
        strategy=tree.inner_strategy,
        intensity=RestartIntensity(max_restarts=tree.inner_max, within_seconds=5),
        restart=tree.inner_restart,
        time_source=never_moves,
    )
    root = Supervisor(
        name="root",
        children=[spec("a"), inner, spec("d")],
        strategy=tree.root_strategy,
        intensity=RestartIntensity(max_restarts=tree.root_max, within_seconds=5),
        dead_letters=DeadLetters(on_letter=ledger.on_letter),
        time_source=never_moves,
    )
    try:
        with anyio.fail_after(10):  # a hang is a failure too, not a stuck test run
            async with root:
                refs = {"a": root.ref("a"), "b": inner.ref("b"), "c": inner.ref("c")}
                refs["d"] = root.ref("d")
                for message_id, (name, crash, steps, pauses) in enumerate(schedule):
                    refs[name].tell_nowait(Work(id=message_id, crash=crash, steps=steps))
                    ledger.sent.append(message_id)
                    for _ in range(pauses):
                        await checkpoint()
    except RestartIntensityExceeded:
        pass  # the root gave up and cancelled the block: what was queued is now dead letters
    return ledger


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees, schedule=schedules)
def test_random_crash_schedules_never_lose_a_message_nor_run_a_child_twice(
    backend: str, tree: Tree, schedule: list[tuple[str, bool, int, int]]
) -> None:
    ledger = anyio.run(run_schedule, tree, schedule, backend=backend)
    assert ledger.violations == []
    accounted = Counter(ledger.handled) + Counter(ledger.crashed) + Counter(ledger.dead)
    assert accounted == Counter(ledger.sent)
