"""Supervisor: runs children in a task group and restarts them the OTP way.

A supervisor is an async context manager at the root (``async with Supervisor(...) as sup:``)
and a child of another supervisor when nested. Each run owns a task group holding one task per
running child and a control loop; everything that changes the set of running children (an
exit, a restart, a stop, a dynamic start) goes through that loop, one at a time, so a child's
next instance is started only after the previous one has fully ended.

Children keep their mailboxes across restarts of themselves and of their supervisors, so refs
stay valid. Only a final stop (the root leaving its block, a child not restarted, a dynamic
child stopped) disposes a mailbox; what is still queued then goes to dead letters.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Any, Self

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from turnframe.actors.cell import ActorCell
from turnframe.actors.dead_letters import DeadLetters
from turnframe.actors.ref import ActorRef
from turnframe.supervisors.children import (
    Exited,
    Instance,
    Request,
    Runnable,
    Signal,
    Slot,
    StopSignal,
    refuse_pending,
)
from turnframe.supervisors.errors import (
    ChildStartFailed,
    DuplicateChild,
    RestartIntensityExceeded,
    SupervisorNotRunning,
    UnknownChild,
)
from turnframe.supervisors.events import EventCallback, EventKind, SupervisionEvent, publish
from turnframe.supervisors.intensity import RestartHistory
from turnframe.supervisors.scope import leave_task_group
from turnframe.supervisors.spec import Backoff, ChildSpec, Restart, RestartIntensity, Strategy


def _noop() -> None:
    return None


def _child_id(child: ChildSpec | Supervisor) -> str:
    return child.name if isinstance(child, Supervisor) else child.id


class Supervisor:
    """Starts children in order, restarts them per strategy, stops them in reverse order.

    ``children`` are ``ChildSpec``s (actors) and nested supervisors. ``restart`` and
    ``shutdown`` apply to this supervisor when it is itself a child. ``dead_letters`` and
    ``on_event`` are inherited by nested supervisors that do not set their own.
    ``time_source`` (monotonic seconds, default ``anyio.current_time``) and ``sleep``
    (default ``anyio.sleep``) are injectable so tests never depend on the wall clock.
    """

    def __init__(
        self,
        *,
        name: str,
        children: Sequence[ChildSpec | Supervisor] = (),
        strategy: Strategy = Strategy.ONE_FOR_ONE,
        intensity: RestartIntensity | None = None,
        backoff: Backoff | None = None,
        restart: Restart = Restart.PERMANENT,
        shutdown: float = math.inf,
        dead_letters: DeadLetters | None = None,
        on_event: EventCallback | None = None,
        time_source: Callable[[], float] = anyio.current_time,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        self.name = name
        self.strategy = strategy
        self.intensity = intensity or RestartIntensity()
        self.backoff = backoff
        self.restart = restart
        self.shutdown = shutdown
        self._own_dead_letters = dead_letters is not None
        self._dead_letters = dead_letters or DeadLetters()
        self._own_on_event = on_event is not None
        self._on_event = on_event
        self._time = time_source
        self._sleep = sleep
        #: Set by a dynamic supervisor: each child's own restart budget (see _on_exit).
        self.child_intensity: RestartIntensity | None = None
        self._history: RestartHistory | None = None
        self._slots: dict[str, Slot] = {}
        self._running = False
        self._disposed = False
        self._task_group: TaskGroup | None = None
        self._signals: MemoryObjectSendStream[Signal] | None = None
        self._root: TaskGroup | None = None
        ids = [_child_id(child) for child in children]
        for child_id in ids:
            if ids.count(child_id) > 1:  # refuse before any mailbox exists
                raise DuplicateChild(supervisor=name, child=child_id)
        for child in children:
            self._add_slot(child)

    # -- what adopters use -------------------------------------------------------------------

    @property
    def dead_letters(self) -> DeadLetters:
        return self._dead_letters

    @property
    def running(self) -> bool:
        return self._running

    def child_ids(self) -> list[str]:
        """Ids of the children this supervisor holds, in start order."""
        return list(self._slots)

    def ref(self, child_id: str) -> ActorRef:
        """The ref of the actor child ``child_id``; valid across its restarts."""
        slot = self._slots.get(child_id)
        if slot is None or not isinstance(slot.runnable, ActorCell):
            raise UnknownChild(supervisor=self.name, child=child_id)
        return slot.runnable.ref

    def report_failure(self, child_id: str, error: BaseException) -> None:
        """Report that the stateless child ``child_id`` failed on one message its asker handed
        it directly (not through its mailbox): a ``crashed`` event, and no restart, as for a
        stateless child's failed message."""
        slot = self._slots.get(child_id)
        if slot is not None:
            self._emit(EventKind.CRASHED, slot, error=error)

    async def start_child(self, spec: ChildSpec) -> ActorRef:
        """Start a new actor child now (after the existing ones) and return its ref.

        Raises ``ChildStartFailed`` if its factory or ``on_start`` raises (the child is then
        not kept), ``DuplicateChild``, or ``SupervisorNotRunning``.
        """
        ref: ActorRef = await self._call(lambda: self._start_new_child(spec))
        return ref

    async def stop_child(self, child_id: str, *, drain: bool = True) -> None:
        """Stop a child for good (draining its mailbox first by default) and forget it."""
        await self._call(lambda: self._stop_and_forget(child_id, drain=drain))

    async def __aenter__(self) -> Self:
        if self._root is not None or self._running:
            raise RuntimeError(f"supervisor {self.name!r} is already running")
        root = anyio.create_task_group()
        await root.__aenter__()
        try:
            await root.start(self._run_as_root)
        except BaseException as err:
            await leave_task_group(root, err)
            raise
        self._root = root
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        root, self._root = self._root, None
        assert root is not None, "__aexit__ without __aenter__"
        if exc is None:
            self.request_stop(drain=True)
        return await leave_task_group(root, exc)

    # -- what a parent supervisor uses -------------------------------------------------------

    async def run(self, started: Callable[[], None] = _noop) -> None:
        """One run: start the children, supervise them until asked to stop, stop them.

        Raises ``ChildStartFailed`` (before ``started``) if a child cannot start, and
        ``RestartIntensityExceeded`` when it gives up; children are stopped either way and
        keep their mailboxes, so a parent may run this supervisor again.
        """
        if self._running or self._disposed:
            raise RuntimeError(f"supervisor {self.name!r} is running or was stopped for good")
        send, receive = anyio.create_memory_object_stream[Signal](math.inf)
        self._signals = send
        history = RestartHistory(self.intensity)
        self._history = history
        self._running = True
        failure: Exception | None = None
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                failure = await self._start_all()
                drain = False
                if failure is None:
                    started()
                    failure, drain = await self._supervise(receive, history)
                for slot in reversed(list(self._slots.values())):
                    await self._stop(slot, drain=drain)
                    if drain:
                        self._forget(slot, "its supervisor stopped")
                if drain:
                    self._disposed = True
        finally:
            self._running = False
            self._history = None
            self._task_group = None
            self._signals = None
            send.close()
            refuse_pending(receive, SupervisorNotRunning(supervisor=self.name))
            receive.close()
        if failure is not None:
            raise failure

    def request_stop(self, *, drain: bool) -> None:
        """Ask the running supervisor to stop its children (draining them if ``drain``)."""
        if self._signals is not None:
            self._signals.send_nowait(StopSignal(drain))

    def dispose(self, reason: str) -> None:
        """Gone for good: dispose every child (queued messages become dead letters)."""
        self._disposed = True
        for slot in list(self._slots.values()):
            slot.runnable.dispose(reason)

    def adopt_dead_letters(self, sink: DeadLetters) -> None:
        if self._own_dead_letters:
            return
        self._dead_letters = sink
        for slot in self._slots.values():
            slot.runnable.adopt_dead_letters(sink)

    def adopt_on_event(self, callback: EventCallback | None) -> None:
        if self._own_on_event:
            return
        self._on_event = callback
        for slot in self._slots.values():
            if isinstance(slot.runnable, Supervisor):
                slot.runnable.adopt_on_event(callback)

    # -- the control loop --------------------------------------------------------------------

    async def _run_as_root(self, *, task_status: TaskStatus[None]) -> None:
        try:
            await self.run(task_status.started)
        finally:
            self.dispose("the root supervisor stopped")

    async def _start_all(self) -> Exception | None:
        for slot in list(self._slots.values()):
            instance = await self._start(slot, restarted=False)
            if not instance.started:
                instance.stopping = True
                slot.instance = None
                return ChildStartFailed(supervisor=self.name, child=slot.id, cause=instance.error)
        return None

    async def _supervise(
        self, signals: MemoryObjectReceiveStream[Signal], history: RestartHistory
    ) -> tuple[Exception | None, bool]:
        while True:
            signal = await signals.receive()
            if isinstance(signal, StopSignal):
                return None, signal.drain
            if isinstance(signal, Request):
                try:
                    signal.finish(await signal.operation())
                except Exception as err:
                    signal.finish(error=err)
                finally:
                    signal.finish(error=SupervisorNotRunning(supervisor=self.name))
                continue
            failure = await self._on_exit(signal.slot, signal.instance, history)
            if failure is not None:
                return failure, False

    async def _on_exit(
        self, slot: Slot, instance: Instance, history: RestartHistory
    ) -> Exception | None:
        if instance.stopping or slot.instance is not instance:
            return None  # stopped on purpose, or an instance already replaced
        slot.instance = None
        error = instance.error
        if error is not None:
            self._emit(EventKind.CRASHED, slot, error=error)
        if not slot.restart.restarts_after(crashed=error is not None):
            self._emit(EventKind.STOPPED, slot)
            self._forget(slot, f"{slot.restart.value} child {slot.id!r} ended")
            return None
        if self.child_intensity is not None:
            # Each child has its own budget: one that keeps crashing is stopped for good and
            # never escalates, so its siblings (other sessions) are never restarted with it.
            exceeded, attempt = history.record_child(self._time(), slot.id, self.child_intensity)
            if exceeded:
                self._emit(EventKind.GAVE_UP, slot, error=error)
                self._forget(slot, f"child {slot.id!r} crashed more often than its budget")
                return None
        else:
            exceeded, attempt = history.record(self._time(), slot.id)
        if exceeded:
            self._emit(EventKind.ESCALATED, slot, error=error)
            return RestartIntensityExceeded(
                supervisor=self.name,
                child=slot.id,
                max_restarts=self.intensity.max_restarts,
                within_seconds=self.intensity.within_seconds,
                last_error=error,
            )
        delay = self.backoff.delay(attempt) if self.backoff is not None else 0.0
        if delay > 0:
            await self._sleep(delay)
        await self._restart(slot, delay)
        return None

    async def _restart(self, failed: Slot, delay: float) -> None:
        order = list(self._slots.values())
        if self.strategy is Strategy.ONE_FOR_ONE:
            group = [failed]
        elif self.strategy is Strategy.ONE_FOR_ALL:
            group = order
        else:
            group = order[order.index(failed) :]
        for slot in reversed(group):
            if slot is not failed:
                await self._stop(slot, drain=False)
        for slot in group:
            if slot is not failed and slot.restart is Restart.TEMPORARY:
                self._forget(slot, f"temporary child {slot.id!r} is not restarted")
        for slot in group:
            if self._slots.get(slot.id) is slot:
                # A restart whose on_start fails is a crash like any other: its exit is queued.
                await self._start(slot, restarted=True, delay=delay if slot is failed else 0.0)

    # -- starting and stopping one child -----------------------------------------------------

    async def _start(self, slot: Slot, *, restarted: bool, delay: float = 0.0) -> Instance:
        assert self._task_group is not None and self._signals is not None
        instance = Instance()
        slot.instance = instance
        kind = EventKind.RESTARTED if restarted else EventKind.STARTED
        await self._task_group.start(self._run_child, slot, instance, self._signals, kind, delay)
        return instance

    async def _run_child(
        self,
        slot: Slot,
        instance: Instance,
        signals: MemoryObjectSendStream[Signal],
        kind: EventKind,
        delay: float,
        *,
        task_status: TaskStatus[None],
    ) -> None:
        def started() -> None:
            # Published before the instance handles its first message.
            instance.started = True
            self._emit(kind, slot, delay=delay)
            task_status.started()

        try:
            with anyio.CancelScope() as scope:
                instance.scope = scope
                try:
                    await slot.runnable.run(started)
                except Exception as err:
                    instance.error = err
            if not instance.started:
                task_status.started()
        finally:
            instance.exited.set()
            signals.send_nowait(Exited(slot, instance))

    async def _stop(self, slot: Slot, *, drain: bool) -> None:
        """Stop the child's running instance: ask, wait up to its deadline, then cancel."""
        instance = slot.instance
        if instance is None:
            return
        slot.instance = None
        instance.stopping = True
        if not instance.exited.is_set():
            slot.runnable.request_stop(drain=drain)
            with anyio.move_on_after(slot.shutdown):
                await instance.exited.wait()
            if not instance.exited.is_set():
                assert instance.scope is not None
                instance.scope.cancel()
                await instance.exited.wait()
        if instance.error is not None:
            self._emit(EventKind.CRASHED, slot, error=instance.error)
        self._emit(EventKind.STOPPED, slot)

    def _forget(self, slot: Slot, reason: str) -> None:
        if self._slots.get(slot.id) is slot:
            del self._slots[slot.id]
            if self._history is not None:
                self._history.forget(slot.id)
        slot.runnable.dispose(reason)

    # -- dynamic children --------------------------------------------------------------------

    async def _call(self, operation: Callable[[], Awaitable[Any]]) -> Any:
        if self._signals is None:
            raise SupervisorNotRunning(supervisor=self.name)
        request = Request(operation)
        self._signals.send_nowait(request)
        await request.done.wait()
        if request.error is not None:
            raise request.error
        return request.result

    def _check_can_add(self, child_id: str) -> None:
        if child_id in self._slots:
            raise DuplicateChild(supervisor=self.name, child=child_id)

    async def _start_new_child(self, spec: ChildSpec) -> ActorRef:
        self._check_can_add(spec.id)
        slot = self._add_slot(spec)
        instance = await self._start(slot, restarted=False)
        if not instance.started:
            instance.stopping = True
            slot.instance = None
            self._forget(slot, f"child {spec.id!r} failed to start")
            raise ChildStartFailed(supervisor=self.name, child=spec.id, cause=instance.error)
        assert isinstance(slot.runnable, ActorCell)
        return slot.runnable.ref

    async def _stop_and_forget(self, child_id: str, *, drain: bool) -> None:
        slot = self._slots.get(child_id)
        if slot is None:
            raise UnknownChild(supervisor=self.name, child=child_id)
        await self._stop(slot, drain=drain)
        self._forget(slot, f"child {child_id!r} was stopped")

    # -- helpers -----------------------------------------------------------------------------

    def _add_slot(self, child: ChildSpec | Supervisor) -> Slot:
        child_id = _child_id(child)
        if child_id in self._slots:
            raise DuplicateChild(supervisor=self.name, child=child_id)
        runnable: Runnable
        if isinstance(child, Supervisor):
            child.adopt_dead_letters(self._dead_letters)
            child.adopt_on_event(self._on_event)
            runnable = child
            slot = Slot(child_id, child.restart, child.shutdown, runnable)
        else:
            runnable = ActorCell(
                child.id,
                child.factory,
                capacity=child.mailbox_size,
                dead_letters=self._dead_letters,
            )
            slot = Slot(child.id, child.restart, child.shutdown, runnable)
            # A stateless actor's failed message is reported like a crash, without a restart.
            runnable.on_message_failure = lambda err: self._emit(
                EventKind.CRASHED, slot, error=err
            )
        self._slots[child_id] = slot
        return slot

    def _emit(
        self,
        kind: EventKind,
        slot: Slot,
        *,
        error: BaseException | None = None,
        delay: float = 0.0,
    ) -> None:
        event = SupervisionEvent(
            kind=kind,
            supervisor=self.name,
            child=slot.id,
            at=self._time(),
            error=error,
            delay=delay,
        )
        publish(event, self._on_event)
