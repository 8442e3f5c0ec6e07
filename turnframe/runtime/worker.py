"""A worker: claims sessions with turns in the store's inbox and serves them (ADR 0018).

::

    async with Runtime(workflows=[desk], store=store, provider=..., settings=RuntimeSettings(
            session_lease_seconds=30, serve_orphans=False)) as runtime:
        await Worker(runtime).run()          # until drain(); run(once=True) serves what is there

The loop claims sessions (``Store.claim_sessions``: one transaction, sessions with unfinished
turns and no live lease, each under a new lease epoch), serves each claimed session's pending
turns one at a time in submission order through the normal pipeline (``Runtime.handle_turn``:
a turn left midway by a dead worker resumes from its phase marker), renews the leases it holds,
and gives a session back once it has nothing pending. It sleeps between claims until a wake-up
(PostgreSQL ``LISTEN turnframe_inbox``; a session finished) or a polling pause that doubles up
to ``poll_max`` (the fallback, and the only way on SQLite).

``drain()`` (SIGTERM, SIGINT) stops claiming; each session finishes the turn it is on and is
handed back (its lease released, so another worker takes it at once); after ``grace_seconds``
what is still running is cancelled, its leases released (the turns resume from their phase
markers elsewhere). Every session-scoped write passes the lease fence
(:mod:`turnframe.stores.fencing`), so a worker that lost a lease writes nothing more there.

One structured log line per turn (logger ``turnframe.worker``, JSON, no user text unless
``log_text``) and :class:`WorkerCounters`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import anyio
import attrs

from turnframe._converter import converter
from turnframe.actors.session import TurnIncomplete
from turnframe.errors import ConfigError
from turnframe.lifecycle import TurnPhase
from turnframe.messages import UserTurn
from turnframe.runtime.leasing import SessionLeasedElsewhere
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.errors import StoreError
from turnframe.stores.fencing import SessionLeaseLost
from turnframe.stores.inbox import INBOX_CHANNEL
from turnframe.stores.protocol import Store
from turnframe.stores.records import SessionLease

if TYPE_CHECKING:
    from turnframe.runtime.runtime import Runtime

logger = logging.getLogger("turnframe.worker")

Key = tuple[str, str]


@attrs.frozen(kw_only=True)
class WorkerSettings:
    #: Sessions served at once (each serves its turns one at a time).
    concurrency: int = 16
    #: First pause between claims that found nothing; it doubles up to ``poll_max``.
    poll_initial: float = 0.05
    poll_max: float = 2.0
    #: How long a session with nothing pending is held for its next turn before it is handed
    #: back (its actor and lease kept meanwhile).
    linger_seconds: float = 0.5
    #: How long a drain waits for the turns in flight before cancelling them.
    grace_seconds: float = 30.0
    #: Put the user's text in the per-turn log line (off: only ids, phases, timings).
    log_text: bool = False

    def __attrs_post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigError(
                f"a worker serves at least one session at a time, not {self.concurrency}",
                hint="give --concurrency 1 or more",
            )


@attrs.define
class WorkerCounters:
    """What a worker did, counted since it started."""

    claims: int = 0  # claim transactions that leased at least one session
    sessions: int = 0  # sessions served (a session claimed twice counts twice)
    taken_over: int = 0  # of those, taken from a worker whose lease had expired
    turns: int = 0  # turns taken through the pipeline
    delivered: int = 0
    failed: int = 0
    incomplete: int = 0  # stopped at a boundary; left to the next claim (parked in the end)
    leases_lost: int = 0  # sessions dropped because another worker holds them now
    handed_back: int = 0  # sessions given back with turns still pending (draining)
    wakeups: int = 0  # inbox notifications received

    def as_dict(self) -> dict[str, int]:
        return attrs.asdict(self)


class Worker:
    def __init__(self, runtime: Runtime, settings: WorkerSettings | None = None) -> None:
        self._runtime = runtime
        self.settings = settings or WorkerSettings()
        self.counters = WorkerCounters()
        self._serving: set[Key] = set()
        self._draining = False
        self._wake = anyio.Event()
        self._grace = anyio.CancelScope()
        self._session_wakes: dict[str, anyio.Event] = {}
        self._listening = False

    @property
    def worker_id(self) -> str:
        leases = self._runtime.leases
        return leases.worker_id if leases is not None else ""

    @property
    def draining(self) -> bool:
        return self._draining

    def _stopping(self) -> bool:  # read afresh: it changes while a turn runs
        return self._draining

    def drain(self) -> None:
        """Stop claiming; hand back each session after the turn it is on (see the module)."""
        self._draining = True
        self._wake.set()

    def stop_now(self) -> None:
        """End the drain's grace period at once: what is still running is cancelled."""
        self.drain()
        self._grace.cancel()

    def _kick(self) -> None:
        self._wake.set()

    async def run(self, *, once: bool = False) -> WorkerCounters:
        """Claim and serve until :meth:`drain` (or, with ``once``, until nothing claimable is
        left and every claimed session is done)."""
        runtime = self._runtime
        leases = runtime.leases
        if not runtime.running or leases is None:
            raise ConfigError(
                "a worker needs a running runtime with session leases",
                hint="start it with RuntimeSettings(session_lease_seconds=..., "
                "serve_orphans=False)",
            )
        lease_seconds = runtime.settings.session_lease_seconds or 30.0
        async with anyio.create_task_group() as serving:
            async with anyio.create_task_group() as helpers:
                helpers.start_soon(self._renew, lease_seconds / 3)
                await helpers.start(self._listen)
                await self._claim_loop(serving, once=once, lease_seconds=lease_seconds)
                helpers.cancel_scope.cancel()
            with self._grace:
                self._grace.deadline = anyio.current_time() + self.settings.grace_seconds
                while self._serving:
                    await self._sleep_until_woken(self.settings.poll_max)
            serving.cancel_scope.cancel()  # past the grace period: leases released below
        return self.counters

    async def _claim_loop(self, serving: Any, *, once: bool, lease_seconds: float) -> None:
        store = self._runtime.store
        clock = self._runtime.clock
        workflows = list(self._runtime.workflows)
        pause = self.settings.poll_initial
        while not self.draining:
            free = self.settings.concurrency - len(self._serving)
            claimed: list[SessionLease] = []
            if free > 0:
                now = clock.now()
                try:
                    claimed = await store.claim_sessions(
                        worker_id=self.worker_id,
                        now=now,
                        expires_at=now + timedelta(seconds=lease_seconds),
                        limit=free,
                        workflows=workflows,
                    )
                except StoreError as error:
                    logger.warning(_line("claim_failed", worker=self.worker_id, error=error.code))
            if claimed:
                self.counters.claims += 1
                pause = self.settings.poll_initial
                for lease in claimed:
                    self._start(serving, lease)
                continue
            if once and not self._serving:
                return
            await self._sleep_until_woken(pause)
            pause = min(pause * 2, self.settings.poll_max)

    def _start(self, serving: Any, lease: SessionLease) -> None:
        leases = self._runtime.leases
        assert leases is not None
        leases.adopt(lease)
        key = (lease.account_id, lease.session_id)
        self._serving.add(key)
        self.counters.sessions += 1
        self.counters.taken_over += int(lease.taken_over)
        serving.start_soon(self._serve, lease)

    async def _sleep_until_woken(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            await self._wake.wait()
        self._wake = anyio.Event()

    async def _serve(self, lease: SessionLease) -> None:
        account_id, session_id = key = (lease.account_id, lease.session_id)
        runtime = self._runtime
        lost = False
        try:
            # A live actor of this session would hold what it knew before another worker
            # served it: start from the store.
            await runtime.stop_session(account_id, session_id, lease="keep")
            while not self.draining and not lost:
                pending = await runtime.store.list_pending_turns(account_id, session_id)
                if not pending:
                    pending = await self._linger(key)
                if not pending:
                    break
                for record in pending:
                    if self._stopping():
                        self.counters.handed_back += 1
                        break
                    outcome = await self._serve_turn(lease, record.payload)
                    if outcome == "lost":
                        lost = True
                        break
                    if outcome == "incomplete":
                        # Its successors wait (per-session order): give the session back and
                        # let the next claim try again (the turn is parked after park_after).
                        return
        except (SessionLeaseLost, SessionLeasedElsewhere):
            lost = True
        except StoreError as error:
            logger.warning(_line("session_failed", worker=self.worker_id, error=error.code))
        finally:
            if lost:
                self.counters.leases_lost += 1
            with anyio.CancelScope(shield=True):
                try:
                    await runtime.stop_session(
                        account_id, session_id, lease="forget" if lost else "release"
                    )
                except StoreError as error:  # the lease expires on its own
                    logger.warning(_line("release_failed", worker=self.worker_id, error=error.code))
            self._serving.discard(key)
            self._kick()

    async def _linger(self, key: Key) -> list[Any]:
        """Hold an idle session a moment (``linger_seconds``) for its next turn: a session
        that keeps talking is served on without being claimed and started again. Woken by the
        inbox notification naming it (registered before each look, so none is missed), else
        by a doubling poll."""
        # With inbox notifications a wake-up says when to look; without, a doubling poll.
        pause = self.settings.linger_seconds if self._listening else 0.005
        waited = 0.0
        try:
            while waited < self.settings.linger_seconds and not self.draining:
                woken = self._session_wakes[key[1]] = anyio.Event()
                step = min(pause, self.settings.linger_seconds - waited)
                with anyio.move_on_after(step):
                    await woken.wait()
                waited += step
                pause = min(pause * 2, 0.2) if not self._listening else pause
                pending = await self._runtime.store.list_pending_turns(*key)
                if pending:
                    return pending
        finally:
            self._session_wakes.pop(key[1], None)
        return []

    async def _serve_turn(self, lease: SessionLease, payload: Any) -> str:
        turn = converter.structure(payload, UserTurn)
        started = time.perf_counter()
        self.counters.turns += 1
        phase: TurnPhase | None = None
        outcome = "ok"
        error_code: str | None = None
        try:
            response = await self._runtime.handle_turn(turn)
            phase = response.phase
        except (SessionLeaseLost, SessionLeasedElsewhere) as error:
            outcome, error_code = "lost", error.code
        except TurnIncomplete as error:
            cause = error.cause
            lost = isinstance(cause, SessionLeaseLost | SessionLeasedElsewhere)
            outcome, error_code = ("lost" if lost else "incomplete"), error.code
        if phase is TurnPhase.DELIVERED:
            self.counters.delivered += 1
        elif phase is TurnPhase.FAILED:
            self.counters.failed += 1
        elif outcome == "incomplete":
            self.counters.incomplete += 1
        fields: dict[str, Any] = {
            "worker": self.worker_id,
            "account_id": turn.account_id,
            "session_id": turn.session_id,
            "turn_id": turn.turn_id,
            "epoch": lease.epoch,
            "phase": phase.value if phase is not None else None,
            "outcome": outcome,
            "error": error_code,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
        if self.settings.log_text:
            fields["text"] = turn.text
        logger.info(_line("turn", **fields))
        return outcome

    async def _renew(self, period: float) -> None:
        """Renew the held leases (``SessionLeases.ensure`` renews once half has run out)."""
        leases = self._runtime.leases
        assert leases is not None
        while True:
            await anyio.sleep(period)
            for account_id, session_id in list(self._serving):
                if not leases.holds(account_id, session_id):
                    continue
                try:
                    await leases.ensure(account_id, session_id)
                except SessionLeasedElsewhere:
                    logger.warning(
                        _line("lease_lost", worker=self.worker_id, session_id=session_id)
                    )
                except StoreError as error:
                    logger.warning(_line("renew_failed", worker=self.worker_id, error=error.code))

    async def _listen(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Wake the claim loop on ``NOTIFY turnframe_inbox`` where the store can listen; the
        polling pause is the fallback when it cannot (or its connection drops)."""
        listen = _listener_of(self._runtime.store)
        if listen is None:
            task_status.started()
            return

        def woken(session_id: str) -> None:
            self.counters.wakeups += 1
            lingering = self._session_wakes.get(session_id)
            if lingering is not None:
                lingering.set()  # a session this worker holds: it serves the turn itself
            else:
                self._kick()

        try:
            async with listen(INBOX_CHANNEL, woken):
                self._listening = True
                task_status.started()
                try:
                    await anyio.sleep_forever()
                finally:
                    self._listening = False
        except (OSError, StoreError) as error:
            logger.warning(_line("listen_failed", worker=self.worker_id, error=str(error)))
            task_status.started()


Listen = Callable[[str, Callable[[str], None]], contextlib.AbstractAsyncContextManager[None]]


def _listener_of(store: Store) -> Listen | None:
    while isinstance(store, DelegatingStore):
        store = store.inner
    listen = getattr(store, "listen", None)
    return listen if callable(listen) else None


def _line(event: str, **fields: Any) -> str:
    return json.dumps({"event": event, **fields}, ensure_ascii=False, default=str)


@contextlib.asynccontextmanager
async def draining_on_signals(worker: Worker) -> AsyncIterator[None]:
    """SIGTERM or SIGINT drains ``worker``; a second one cancels what is left at once."""
    import signal

    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    if worker.draining:
                        worker.stop_now()
                        continue
                    logger.info(_line("draining", worker=worker.worker_id))
                    worker.drain()

        group.start_soon(watch)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


__all__ = ["Worker", "WorkerCounters", "WorkerSettings", "draining_on_signals"]
