"""DynamicSupervisor: children started and stopped at run time, e.g. one actor per session.

It is a ``one_for_one`` supervisor that starts empty. ``start_child`` adds an actor and returns
its ref; ``stop_child`` drains and removes it; a ``transient`` child that stops itself (its
session ended) is removed too. ``max_children`` bounds how many run at once.

With ``child_intensity`` every child has its own restart budget instead of sharing the
supervisor's: a child that crashes more often than that is stopped for good (``gave_up``; what
it still had queued becomes dead letters) and the supervisor never escalates because of it.
One session that keeps crashing then never restarts, or stops, another session.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import anyio

from turnframe.actors.dead_letters import DeadLetters
from turnframe.actors.ref import ActorRef
from turnframe.supervisors.errors import TooManyChildren
from turnframe.supervisors.events import EventCallback
from turnframe.supervisors.spec import Backoff, ChildSpec, Restart, RestartIntensity, Strategy
from turnframe.supervisors.supervisor import Supervisor


class DynamicSupervisor(Supervisor):
    """A ``one_for_one`` supervisor whose children come and go while it runs."""

    def __init__(
        self,
        *,
        name: str,
        max_children: int | None = None,
        intensity: RestartIntensity | None = None,
        child_intensity: RestartIntensity | None = None,
        backoff: Backoff | None = None,
        restart: Restart = Restart.PERMANENT,
        shutdown: float = math.inf,
        dead_letters: DeadLetters | None = None,
        on_event: EventCallback | None = None,
        time_source: Callable[[], float] = anyio.current_time,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        super().__init__(
            name=name,
            strategy=Strategy.ONE_FOR_ONE,
            intensity=intensity,
            backoff=backoff,
            restart=restart,
            shutdown=shutdown,
            dead_letters=dead_letters,
            on_event=on_event,
            time_source=time_source,
            sleep=sleep,
        )
        self.max_children = max_children
        self.child_intensity = child_intensity

    def count_children(self) -> int:
        return len(self.child_ids())

    async def start_child(self, spec: ChildSpec) -> ActorRef:
        """Start an actor child and return its ref (``TooManyChildren`` past the limit)."""
        return await super().start_child(spec)

    def _check_can_add(self, child_id: str) -> None:
        super()._check_can_add(child_id)
        if self.max_children is not None and self.count_children() >= self.max_children:
            raise TooManyChildren(supervisor=self.name, limit=self.max_children)
