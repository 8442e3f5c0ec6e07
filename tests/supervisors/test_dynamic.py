"""The dynamic supervisor: one child per live session, started and stopped at run time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import pytest

from turnframe.actors import Actor, handler
from turnframe.supervisors import (
    ChildSpec,
    ChildStartFailed,
    DuplicateChild,
    DynamicSupervisor,
    EventKind,
    Restart,
    Supervisor,
    SupervisorNotRunning,
    TooManyChildren,
    UnknownChild,
)

if TYPE_CHECKING:
    from conftest import EventRecorder


@attrs.frozen(kw_only=True)
class Say:
    text: str


@attrs.frozen(kw_only=True)
class End:
    pass


class Session(Actor):
    def __init__(self, said: list[str]) -> None:
        self.said = said

    @handler
    def say(self, message: Say) -> str:
        self.said.append(message.text)
        return f"{self.name}: {message.text}"

    @handler
    def end(self, message: End) -> None:
        self.stop()


def session(session_id: str, said: list[str] | None = None) -> ChildSpec:
    log = said if said is not None else []
    return ChildSpec(id=session_id, factory=lambda: Session(log), restart=Restart.TRANSIENT)


@pytest.mark.anyio
async def test_a_child_started_at_run_time_answers_through_the_returned_ref() -> None:
    sessions = DynamicSupervisor(name="sessions")
    async with Supervisor(name="root", children=[sessions]):
        ref = await sessions.start_child(session("s-1"))
        assert await ref.ask(Say(text="hello")) == "s-1: hello"
        assert sessions.ref("s-1") == ref
        assert sessions.count_children() == 1


@pytest.mark.anyio
async def test_stopping_a_child_drains_its_mailbox_and_forgets_it() -> None:
    said: list[str] = []
    async with DynamicSupervisor(name="sessions") as sessions:
        ref = await sessions.start_child(session("s-1", said))
        for text in ("a", "b", "c"):
            ref.tell_nowait(Say(text=text))
        await sessions.stop_child("s-1")
        assert said == ["a", "b", "c"]
        assert ref.stopped
        assert sessions.child_ids() == []


@pytest.mark.anyio
async def test_a_transient_session_that_ends_itself_is_removed(events: EventRecorder) -> None:
    async with DynamicSupervisor(name="sessions", on_event=events) as sessions:
        ref = await sessions.start_child(session("s-1"))
        await ref.tell(End())
        await events.wait_for(EventKind.STOPPED, "s-1")
        assert sessions.count_children() == 0
        # the id is free again for a new session
        again = await sessions.start_child(session("s-1"))
        assert again != ref


@pytest.mark.anyio
async def test_a_second_child_with_a_live_id_is_refused() -> None:
    async with DynamicSupervisor(name="sessions") as sessions:
        await sessions.start_child(session("s-1"))
        with pytest.raises(DuplicateChild):
            await sessions.start_child(session("s-1"))


@pytest.mark.anyio
async def test_max_children_bounds_the_live_children() -> None:
    async with DynamicSupervisor(name="sessions", max_children=2) as sessions:
        await sessions.start_child(session("s-1"))
        await sessions.start_child(session("s-2"))
        with pytest.raises(TooManyChildren) as caught:
            await sessions.start_child(session("s-3"))
        assert caught.value.code == "turnframe.supervisor.too_many_children"


@pytest.mark.anyio
async def test_a_child_that_fails_to_start_is_reported_and_not_kept() -> None:
    class Broken(Actor):
        async def on_start(self) -> None:
            raise OSError("no such session")

    async with DynamicSupervisor(name="sessions") as sessions:
        with pytest.raises(ChildStartFailed) as caught:
            await sessions.start_child(ChildSpec(id="s-1", factory=Broken))
        assert isinstance(caught.value.__cause__, OSError)
        assert sessions.child_ids() == []


@pytest.mark.anyio
async def test_starting_a_child_outside_a_running_supervisor_is_refused() -> None:
    sessions = DynamicSupervisor(name="sessions")
    with pytest.raises(SupervisorNotRunning):
        await sessions.start_child(session("s-1"))


@pytest.mark.anyio
async def test_stopping_an_unknown_child_is_refused() -> None:
    async with DynamicSupervisor(name="sessions") as sessions:
        with pytest.raises(UnknownChild):
            await sessions.stop_child("nobody")


@attrs.frozen(kw_only=True)
class Poison:
    pass


class Fragile(Session):
    @handler
    def poison(self, message: Poison) -> None:
        raise ValueError("this message always crashes the session")


@pytest.mark.anyio
async def test_a_child_over_its_own_restart_budget_is_given_up_and_its_siblings_never_notice(
    events: EventRecorder,
) -> None:
    from turnframe.actors import ActorCrashed, ActorStopped
    from turnframe.supervisors import RestartIntensity

    said: list[str] = []
    sessions = DynamicSupervisor(
        name="sessions",
        intensity=RestartIntensity(max_restarts=1, within_seconds=60),
        child_intensity=RestartIntensity(max_restarts=2, within_seconds=60),
    )
    fragile = ChildSpec(id="poisoned", factory=lambda: Fragile(said), restart=Restart.TRANSIENT)
    async with Supervisor(name="root", children=[sessions], on_event=events):
        healthy = await sessions.start_child(session("healthy", said))
        poisoned = await sessions.start_child(fragile)
        for _ in range(3):  # crashes beyond the supervisor's own intensity (1): no escalation
            with pytest.raises(ActorCrashed):
                await poisoned.ask(Poison())
            assert await healthy.ask(Say(text="still here")) == "healthy: still here"
        await events.wait_for(EventKind.GAVE_UP, "poisoned")
        with pytest.raises(ActorStopped):
            await poisoned.ask(Say(text="anyone?"))
        assert sessions.child_ids() == ["healthy"]
        assert events.count(EventKind.ESCALATED, "poisoned") == 0
        assert events.count(EventKind.RESTARTED, "healthy") == 0
        # The same id starts afresh, with a fresh budget.
        again = await sessions.start_child(session("poisoned", said))
        assert await again.ask(Say(text="back")) == "poisoned: back"
