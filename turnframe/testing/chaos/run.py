"""One chaos run: play a conversation under a fault schedule, restart, recover, check.

Everything is in process and on virtual time: an in-memory SQLite store, a manual clock, provider
deadlines that expire when a fault says so, backoff that does not wait. A run is decided by its
seed alone (which conversation, which faults), so ``--runs 1 --seed S`` replays run ``S``.
With ``transport=Transport.HTTP`` the provider faults travel over real HTTP on 127.0.0.1,
from the fake provider server to the official SDK adapters (:mod:`.over_http`).

1. A runtime on the faulty store and the faulty providers plays the conversation; after each line
   the outbox is dispatched once (through the faulty store, to the outbox adapter).
2. The runtime stops (a crash or a deploy), and a new one starts on the same records without
   faults: recovery finishes what was left. The outbox is then drained: expired claims reaped,
   unknown outcomes reconciled with the receiver, every row sent.
3. The invariants are read off the records (:mod:`turnframe.testing.chaos.checks`).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import anyio.lowlevel
import attrs

from turnframe.clock import ManualClock
from turnframe.corpora import CorpusRegistry, default_registry
from turnframe.errors import TurnframeError
from turnframe.outbox import OutboxDispatcher
from turnframe.providers.base import Provider
from turnframe.providers.chain import ProviderChain
from turnframe.providers.policy import RetryPolicy
from turnframe.response import TurnResponse
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.stores.protocol import Store
from turnframe.stores.records import SessionRecord
from turnframe.testing.chaos.checks import Played, check_run
from turnframe.testing.chaos.injectors import (
    ChaosSender,
    FaultyProvider,
    LeadWriter,
    ProviderFaultBook,
    Recorder,
    SealMonitor,
    Violation,
    Witness,
)
from turnframe.testing.chaos.over_http import HttpFaultyProvider, Lane, LanePool, Transport
from turnframe.testing.chaos.sabotage import (
    Sabotage,
    exposing_faults,
    runtime_class,
    sabotaged_store,
)
from turnframe.testing.chaos.schedule import (
    ActorFault,
    ActorTarget,
    FaultKind,
    ProviderFault,
    Schedule,
    SenderFault,
    StoreFault,
    draw_schedule,
)
from turnframe.testing.chaos.target import ChaosTarget
from turnframe.testing.faults import Fault, FaultMode, FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.scripted import ManualDeadline

ACCOUNT = "chaos"
SESSION = "chaos-session"
#: The option a card click picks when the line names none (the demo's confirm).
_CONFIRM = "confirm"


@attrs.frozen(kw_only=True)
class RunResult:
    """What one run did and found. ``seed`` alone reproduces it."""

    seed: int
    conversation: int
    schedule: Schedule
    fired: dict[str, int]
    violations: tuple[Violation, ...]
    lines: int

    @property
    def ok(self) -> bool:
        return not self.violations


class ChaosRunner:
    """Plays runs of one target; what is the same for every run is built once."""

    def __init__(
        self,
        target: ChaosTarget,
        *,
        sabotage: Sabotage | None = None,
        transport: Transport = Transport.IN_PROCESS,
    ) -> None:
        self.target = target
        self.sabotage = sabotage
        self.transport = Transport(transport)
        self._lanes: LanePool | None = None
        self._runtime = runtime_class(sabotage)
        registry: CorpusRegistry = default_registry(include_shipped=True)
        for register in target.workflow.corpora:
            register(registry)
        self._registry = registry

    def schedule_for(self, seed: int) -> tuple[int, Schedule]:
        """The conversation (its index) and the faults the run with ``seed`` plays."""
        rng = random.Random(seed)
        index = rng.randrange(len(self.target.conversations))
        steps = len(self.target.conversations[index])
        if self.target.confirm_cards:
            steps += 2  # the clicks the player may add
        schedule = draw_schedule(rng, steps=steps)
        return index, schedule.plus(exposing_faults(self.sabotage))

    @contextlib.asynccontextmanager
    async def serving(self, *, concurrency: int = 1) -> AsyncIterator[ChaosRunner]:
        """Keep what runs share across them until the block ends (over HTTP: a set of servers
        and adapters for each of ``concurrency`` runs at once); runs outside it set up their
        own."""
        if self.transport is not Transport.HTTP:
            yield self
            return
        async with LanePool.open(concurrency) as lanes:
            self._lanes = lanes
            try:
                yield self
            finally:
                self._lanes = None

    @contextlib.asynccontextmanager
    async def _lane(self) -> AsyncIterator[Lane | None]:
        if self.transport is not Transport.HTTP:
            yield None
        elif self._lanes is not None:
            async with self._lanes.borrow() as lane:
                yield lane
        else:
            async with Lane.open() as lane:
                yield lane

    async def run(self, seed: int) -> RunResult:
        async with self._lane() as lane:
            return await self._run(seed, lane)

    async def _run(self, seed: int, lane: Lane | None) -> RunResult:
        index, schedule = self.schedule_for(seed)
        lines = self.target.conversations[index]
        witness = Witness()
        played: list[Played] = []
        clock = ManualClock(at=self.target.clock)
        async with SqliteStore.open(":memory:", clock=clock, driver="inline") as sqlite:
            for case in self.target.seed(ACCOUNT):
                await sqlite.create_case(account_id=ACCOUNT, case=case)
            recorder = Recorder(sqlite)
            base = sabotaged_store(self.sabotage, recorder)
            faulty = FaultyStore(base, _store_plan(schedule))
            sender = ChaosSender(schedule.of_type(SenderFault), recorder, witness)
            monitor = SealMonitor(sqlite, ACCOUNT, witness)
            book = ProviderFaultBook(
                schedule.of_type(ProviderFault), schedule.of_type(ActorFault), witness
            )
            try:
                async with self._start(faulty, book, monitor, clock, lane) as rt:
                    session = await rt.open_session(
                        account_id=ACCOUNT, workflow=self.target.name, session_id=SESSION
                    )
                    player = _Player(rt, session, sqlite, clock, self.target, witness, played)
                    for number, line in enumerate(lines):
                        following = lines[number + 1] if number + 1 < len(lines) else None
                        await player.play(line, following)
                        await _dispatch(faulty, sqlite, sender, clock)
            except Exception as error:
                witness.violated("runtime_stopped", f"{type(error).__name__}: {error}")
            _count_store_faults(faulty, witness)
            calm = ProviderFaultBook((), (), witness)
            clock.advance(timedelta(minutes=10))
            try:
                async with self._start(base, calm, monitor, clock, lane):
                    pass  # recovery runs on start
                await _drain_outbox(base, sqlite, sender, clock)
            except Exception as error:
                witness.violated("runtime_stopped", f"recovery: {type(error).__name__}: {error}")
            await check_run(
                sqlite, ACCOUNT, played=played, recorder=recorder, sender=sender, witness=witness
            )
        return RunResult(
            seed=seed,
            conversation=index,
            schedule=schedule,
            fired=dict(witness.fired),
            violations=tuple(witness.violations),
            lines=len(played),
        )

    def _start(
        self,
        store: Store,
        book: ProviderFaultBook,
        monitor: SealMonitor,
        clock: ManualClock,
        lane: Lane | None,
    ) -> Runtime:
        interpret = ManualDeadline()
        narrate = ManualDeadline()
        primary = self.target.interpreter()
        fallback = self.target.interpreter()

        def faulty(
            inner: Provider, name: str, deadline: ManualDeadline, role: str
        ) -> FaultyProvider:
            if lane is None:
                return FaultyProvider(
                    inner, name=name, book=book, monitor=monitor, deadline=deadline
                )
            return HttpFaultyProvider(
                inner,
                name=name,
                book=book,
                monitor=monitor,
                deadline=deadline,
                server=lane.servers[role],
                adapter=lane.adapters[role],
            )

        interpreters = [
            faulty(primary, primary.name, interpret, "primary"),
            faulty(fallback, f"{fallback.name}-fallback", interpret, "fallback"),
        ]
        narrator = faulty(LeadWriter(), LeadWriter.name, narrate, "narrator")
        for provider in (*interpreters, narrator):  # redacted from what the run reports
            book.witness.secrets.update(provider.secrets)
        policy = RetryPolicy(attempts_per_provider=2, backoff_initial=0.1, late_answer_grace=0)
        chain = ProviderChain(interpreters, policy=policy, sleep=_no_wait, deadline=interpret)
        narration = ProviderChain(
            [narrator],
            policy=policy,
            sleep=_no_wait,
            deadline=narrate,
        )
        return self._runtime(
            workflows=[self.target.workflow],
            store=store,
            provider=chain,
            narration_provider=narration,
            corpora=self._registry,
            clock=clock,
            settings=RuntimeSettings(
                pool_size=1, ask_timeout=60.0, session_idle_seconds=None, resume_attempts=2
            ),
        )


async def _no_wait(_: float) -> None:
    await anyio.lowlevel.checkpoint()


def _store_plan(schedule: Schedule) -> FaultPlan:
    faults = [
        Fault(
            point=f.point,
            mode=FaultMode.TIMEOUT if f.kind is FaultKind.STORE_TIMEOUT else FaultMode.CRASH,
            occurrence=f.occurrence,
            times=f.times,
        )
        for f in schedule.of_type(StoreFault)
    ]
    faults += [
        Fault(point=FaultPoint.BEFORE_TURN_RECORDED, occurrence=f.occurrence)
        for f in schedule.of_type(ActorFault)
        if f.target is ActorTarget.SESSION
    ]
    return FaultPlan(faults=faults)


def _count_store_faults(store: FaultyStore, witness: Witness) -> None:
    for hit in store.fired:
        if hit.point is FaultPoint.BEFORE_TURN_RECORDED:
            witness.fired[FaultKind.ACTOR_CRASH.value] += 1
        elif hit.fired is FaultMode.TIMEOUT:
            witness.fired[FaultKind.STORE_TIMEOUT.value] += 1
        else:
            witness.fired[FaultKind.STORE_CRASH.value] += 1


class _Player:
    """The chaos client: says each line, clicks cards, and keeps what it was answered."""

    def __init__(
        self,
        rt: Runtime,
        session: SessionRecord,
        store: Store,
        clock: ManualClock,
        target: ChaosTarget,
        witness: Witness,
        played: list[Played],
    ) -> None:
        self._rt = rt
        self._session = session
        self._store = store
        self._clock = clock
        self._target = target
        self._witness = witness
        self._played = played

    async def play(self, line: str, following: str | None) -> None:
        self._clock.advance(timedelta(seconds=1))
        if line.startswith("/click"):
            await self._click(line.partition(" ")[2].strip() or _CONFIRM, line)
            return
        response = await self._send(line)
        next_is_click = following is not None and following.startswith("/click")
        shows_card = response is not None and any(
            b.code == "turnframe.card.confirm_command" for b in response.blocks
        )
        if self._target.confirm_cards and shows_card and not next_is_click:
            await self._click(_CONFIRM, "/click confirm")

    async def _click(self, label: str, line: str) -> None:
        cards = await self._store.list_open_interactions(
            ACCOUNT, session_id=self._session.session_id
        )
        if not cards:
            return  # the card this click answers never showed (its turn failed): nothing to do
        card = max(cards, key=lambda c: c.created_at)
        payload: dict[str, Any] = card.payload if isinstance(card.payload, dict) else {}
        option = _pick(payload.get("options", []), label)
        if option is None:
            return
        expected = int(payload.get("expected_revision") or 0)

        async def respond() -> TurnResponse:
            return await self._rt.respond(
                session=self._session,
                interaction_id=card.interaction_id,
                option_id=option,
                expected_revision=expected,
                at=self._clock.now(),
            )

        await self._call(line, None, respond)

    async def _send(self, line: str) -> TurnResponse | None:
        turn = self._rt.new_turn(self._session, line)  # received now, on the run's clock

        async def handle() -> TurnResponse:
            return await self._rt.handle_turn(turn)

        return await self._call(line, turn.turn_id, handle)

    async def _call(
        self, line: str, turn_id: str | None, call: Callable[[], Awaitable[TurnResponse]]
    ) -> TurnResponse | None:
        try:
            response: TurnResponse = await call()
        except TurnframeError as error:
            self._played.append(Played(line=line, turn_id=turn_id, error=error.code))
            return None
        except Exception as error:
            self._witness.violated(
                "untyped_error", f"{line!r}: the caller got {type(error).__name__}: {error}"
            )
            self._played.append(Played(line=line, turn_id=turn_id, error=type(error).__name__))
            return None
        self._played.append(Played(line=line, turn_id=response.turn_id, response=response))
        return response


def _pick(options: Sequence[Any], label: str) -> str | None:
    """The option labelled ``label`` (ignoring case), else the one whose action or id it is."""
    wanted = label.casefold()
    for key in ("label", "action", "option_id"):
        for option in options:
            if isinstance(option, dict) and str(option.get(key, "")).casefold() == wanted:
                return str(option.get("option_id"))
    return None


async def _dispatch(store: Store, sqlite: Store, sender: ChaosSender, clock: ManualClock) -> None:
    """One outbox pass through ``store`` (it may fail: a fault is a fault, not a violation)."""
    dispatcher = await _dispatcher(store, sqlite, sender, clock)
    if dispatcher is None:
        return
    # A claim or settle that failed is a fault, not a violation: the reaper and reconciliation
    # finish it after recovery.
    with contextlib.suppress(Exception):
        await dispatcher.dispatch_once(account_id=ACCOUNT)


async def _drain_outbox(
    store: Store, sqlite: Store, sender: ChaosSender, clock: ManualClock
) -> None:
    """After recovery: reap expired claims, reconcile unknown outcomes, send everything left."""
    dispatcher = await _dispatcher(store, sqlite, sender, clock)
    if dispatcher is None:
        return
    for _ in range(3):
        await dispatcher.reap()
        await dispatcher.reconcile(sender, account_id=ACCOUNT)
        while (await dispatcher.dispatch_once(account_id=ACCOUNT)).claimed:
            pass
        clock.advance(timedelta(minutes=10))


async def _dispatcher(
    store: Store, sqlite: Store, sender: ChaosSender, clock: ManualClock
) -> OutboxDispatcher | None:
    rows = await sqlite.list_outbox(ACCOUNT)
    channels = {
        str(r.payload.get("channel")) for r in rows if isinstance(r.payload, dict)
    }
    if not channels:
        return None
    return OutboxDispatcher(store, {c: sender for c in channels}, clock, deadline=_never_late)


async def _never_late(_: float) -> None:
    """Sends answer at once in a chaos run: their deadline never passes."""
    await anyio.sleep_forever()


__all__ = ["ACCOUNT", "ChaosRunner", "RunResult"]
