"""The Runtime facade: the supervision tree of DESIGN §2 behind one ``async with``.

::

    async with Runtime(workflows=[desk], store="turns.db", provider=RulesProvider(...)) as rt:
        session = await rt.open_session(account_id="acct-1")
        response = await rt.handle_turn(rt.new_turn(session, "Set the note to window seat"))

Tree: ``runtime`` (one_for_one) → ``gate`` pool, ``stages`` supervisor (interpreter, reducer,
grounding and narrator pools), ``sessions`` (a dynamic supervisor, one transient SessionActor
per live session). On start the runtime recovers every unfinished turn (DESIGN §3's recovery
order: the phase marker says what is left to do).
"""

from __future__ import annotations

import contextlib
import logging
import os
import zlib
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import anyio
import anyio.abc
import attrs

from turnframe.actors.errors import ActorCrashed, ActorStopped
from turnframe.actors.gate import ExecutionGate
from turnframe.actors.grounding import GroundingActor
from turnframe.actors.interpreter import InterpreterActor
from turnframe.actors.narrator import NarratorActor
from turnframe.actors.reduction import ReducerActor
from turnframe.actors.ref import ActorRef
from turnframe.actors.session import (
    SessionActor,
    SessionSettings,
    StageRefs,
    TurnIncomplete,
)
from turnframe.actors.stages import HandleTurn
from turnframe.clock import Clock, SystemClock
from turnframe.config import TurnframeConfig, load_config
from turnframe.converter import converter
from turnframe.corpora import CorpusRegistry, default_registry
from turnframe.errors import ConfigError, TurnframeError
from turnframe.ids import new_id
from turnframe.leasing import SessionLeases
from turnframe.lifecycle import TurnPhase
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.outbox import EffectSender, OutboxDispatcher, Reconciler
from turnframe.pipeline.interpretation import InterpretSetup, resolve_setups
from turnframe.providers.base import Provider
from turnframe.providers.chain import ProviderChain
from turnframe.providers.policy import RetryPolicy
from turnframe.references import ReferenceBinding
from turnframe.response import Block, TurnResponse
from turnframe.stores.errors import StoreError
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import SessionRecord, TurnRecord
from turnframe.stores.sqlite import SqliteStore
from turnframe.supervisors import (
    ChildSpec,
    DynamicSupervisor,
    Restart,
    RestartIntensity,
    Strategy,
    Supervisor,
)
from turnframe.supervisors.errors import DuplicateChild, UnknownChild
from turnframe.workflow import Workflow


class UnknownSession(TurnframeError):
    code = "turnframe.runtime.unknown_session"


class UnknownWorkflow(TurnframeError):
    code = "turnframe.runtime.unknown_workflow"


@attrs.frozen(kw_only=True)
class RuntimeSettings:
    """Sizes and deadlines; every default is conservative."""

    pool_size: int = 4
    ask_timeout: float = 60.0
    resume_attempts: int = 2
    anaphora: bool = False
    include_shipped_corpora: bool = True
    mailbox_size: int = 1000
    #: A session actor idle this long (seconds) is stopped; its state is in the store, so the
    #: next turn starts it again. ``None`` keeps every session actor until the runtime stops.
    session_idle_seconds: float | None = 600.0
    #: With several workers on one database: each session is leased to one worker for this
    #: long (renewed while it serves turns; taken over when it expires). ``None``: one process
    #: serves every session (the embedded default). ``worker_id`` names this worker's leases.
    session_lease_seconds: float | None = None
    worker_id: str | None = None
    #: Restarts allowed per supervisor before it gives up and escalates (OTP intensity).
    intensity: RestartIntensity = attrs.field(
        factory=lambda: RestartIntensity(max_restarts=10, within_seconds=10.0)
    )


@attrs.frozen(kw_only=True)
class RecoveryReport:
    resumed: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # turns of workflows this runtime does not serve


logger = logging.getLogger("turnframe.runtime")


def _pool(refs: Sequence[ActorRef], key: str) -> ActorRef:
    return refs[zlib.crc32(key.encode()) % len(refs)]


class Runtime:
    def __init__(
        self,
        *,
        workflows: Sequence[Workflow[Any]],
        store: Store | str | os.PathLike[str] = ":memory:",
        provider: Provider | Sequence[Provider] | ProviderChain,
        retry_policy: RetryPolicy | None = None,
        corpora: CorpusRegistry | None = None,
        clock: Clock | None = None,
        settings: RuntimeSettings | None = None,
        inside_commit: InsideTransactionHook | None = None,
        senders: Mapping[str, EffectSender] | None = None,
        reconciler: Reconciler | None = None,
        config: TurnframeConfig | str | os.PathLike[str] | None = None,
        references: Mapping[str, Any] | None = None,
        cli_references: Sequence[ReferenceBinding] = (),
        narration_provider: Provider | Sequence[Provider] | ProviderChain | None = None,
        outbox_options: Mapping[str, Any] | None = None,
    ) -> None:
        if not workflows:
            raise UnknownWorkflow("a runtime needs at least one workflow")
        self.workflows: Mapping[str, Workflow[Any]] = {w.name: w for w in workflows}
        self._store_arg = store
        chain = _chain_of(provider, retry_policy)
        if chain is None:
            raise ConfigError("a runtime needs a provider", hint="e.g. the offline RulesProvider")
        self._chain = chain
        self._budget = self._chain.providers[0].context_budget_tokens
        self._narration_chain = _chain_of(narration_provider, retry_policy)
        self._config_arg = config
        self._api_references = references
        self._cli_references = tuple(cli_references)
        self.setups: dict[str, InterpretSetup] = {}
        self.settings = settings or RuntimeSettings()
        self.clock: Clock = clock or SystemClock()
        self.corpora = corpora or default_registry(
            include_shipped=self.settings.include_shipped_corpora
        )
        self._inside_commit = inside_commit
        self._senders = dict(senders or {})
        self._reconciler = reconciler
        self._outbox_options = dict(outbox_options or {})
        self.dispatcher: OutboxDispatcher | None = None
        self._store: Store | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._root: Supervisor | None = None
        self._sessions: DynamicSupervisor | None = None
        self._pools: dict[str, list[ActorRef]] = {}
        self._last_used: dict[tuple[str, str], float] = {}
        self._leases: SessionLeases | None = None

    # -- lifetime ---------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        if self._store is None:
            raise TurnframeError("the runtime is not running", hint="use `async with Runtime(...)`")
        return self._store

    async def __aenter__(self) -> Self:
        # References are resolved before anything runs: a bad binding fails the start.
        self.setups = await anyio.to_thread.run_sync(self._resolve_setups)
        stack = contextlib.AsyncExitStack()
        await stack.__aenter__()
        try:
            if isinstance(self._store_arg, str | os.PathLike):
                self._store = await stack.enter_async_context(
                    SqliteStore.open(os.fspath(self._store_arg))
                )
            else:
                self._store = self._store_arg
            lease_seconds = self.settings.session_lease_seconds
            if lease_seconds is not None:
                self._leases = SessionLeases(
                    self._store,
                    self.clock,
                    worker_id=self.settings.worker_id or new_id("wrk-"),
                    seconds=lease_seconds,
                )
                # Unwinds after the supervision tree has stopped, before the store closes.
                stack.push_async_callback(self._release_leases)
            if self._senders:
                self.dispatcher = OutboxDispatcher(
                    self._store, self._senders, self.clock, **self._outbox_options
                )
                group = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(group.cancel_scope.cancel)
                await group.start(self._drive_outbox, self.dispatcher)
            self._root = self._build_tree()
            await stack.enter_async_context(self._root)
            idle = self.settings.session_idle_seconds
            if idle is not None or lease_seconds is not None:
                sweeper = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(sweeper.cancel_scope.cancel)
                if idle is not None:
                    sweeper.start_soon(self._sweep_idle_sessions, idle)
                if lease_seconds is not None:
                    sweeper.start_soon(self._take_over_orphans, lease_seconds / 2)
            self._stack = stack
            await self.recover()
        except BaseException:
            await stack.aclose()
            raise
        return self

    async def _drive_outbox(
        self,
        dispatcher: OutboxDispatcher,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Run the dispatcher loop, restarting it after a crash (with a growing pause), the
        way a supervisor restarts a permanent child: an outbox row is never lost, only retried
        by key, so a crashed pass must not take the runtime down."""
        task_status.started()
        pause = 0.05
        while True:
            try:
                await dispatcher.run(reconciler=self._reconciler)
                return
            except Exception:
                logger.exception("outbox dispatcher crashed; restarting in %.2fs", pause)
            await anyio.sleep(pause)
            pause = min(pause * 2, 5.0)

    async def _sweep_idle_sessions(self, idle: float) -> None:
        while True:
            await anyio.sleep(max(idle / 2, 0.01))
            await self.evict_idle_sessions(idle_for=idle)

    async def _take_over_orphans(self, period: float) -> None:
        """Sessions whose worker died (their lease expired) are taken over and recovered."""
        while True:
            await anyio.sleep(period)
            try:
                await self.recover()
            except StoreError as error:
                logger.warning("taking over orphaned sessions failed: %s", error)

    async def _release_leases(self) -> None:
        if self._leases is not None:
            try:
                await self._leases.release_all()
            except StoreError as error:  # they expire on their own
                logger.warning("releasing session leases failed: %s", error)

    async def evict_idle_sessions(self, *, idle_for: float) -> int:
        """Stop the session actors that handled nothing for ``idle_for`` seconds (monotonic);
        returns how many. A turn for an evicted session starts its actor again from the store."""
        sessions = self._sessions
        if sessions is None:
            return 0
        now = anyio.current_time()
        stale = [key for key, used in self._last_used.items() if now - used >= idle_for]
        for account_id, session_id in stale:
            del self._last_used[(account_id, session_id)]
            with contextlib.suppress(UnknownChild):
                await sessions.stop_child(f"{account_id}/{session_id}")
            if self._leases is not None:
                await self._leases.release(account_id, session_id)
        return len(stale)

    def _resolve_setups(self) -> dict[str, InterpretSetup]:
        config = self._config_arg
        if isinstance(config, str | os.PathLike):
            config = load_config(Path(config))
        return resolve_setups(
            list(self.workflows.values()),
            config=config,
            references=self._api_references,
            cli_bindings=self._cli_references,
            cwd=Path.cwd(),
        )

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.__aexit__(exc_type, exc, tb)
        self._store = None

    def _build_tree(self) -> Supervisor:
        store = self.store
        n = self.settings.pool_size
        size = self.settings.mailbox_size

        def specs(name: str, factory: Any) -> list[ChildSpec]:
            return [
                ChildSpec(id=f"{name}-{i}", factory=factory, mailbox_size=size) for i in range(n)
            ]

        gate_specs = specs(
            "gate",
            lambda: ExecutionGate(
                store=store,
                workflows=self.workflows,
                inside_commit=self._inside_commit,
                on_outbox=self.dispatcher.notify if self.dispatcher else None,
            ),
        )
        intensity = self.settings.intensity
        gates = Supervisor(
            name="gates", children=gate_specs, strategy=Strategy.ONE_FOR_ONE, intensity=intensity
        )
        self._gate_ids = [s.id for s in gate_specs]

        def interpreter() -> InterpreterActor:
            gate = self._root_ref("gates", self._gate_ids[0])
            return InterpreterActor(
                chain=self._chain,
                gate=gate,
                workflows=self.workflows,
                setups=self.setups,
                context_budget_tokens=self._budget,
            )

        stage_specs = {
            "interpreter": specs("interpreter", interpreter),
            "reducer": specs("reducer", ReducerActor),
            "grounding": specs(
                "grounding",
                lambda: GroundingActor(
                    store=store,
                    workflows=self.workflows,
                    registry=self.corpora,
                    anaphora=self.settings.anaphora,
                ),
            ),
            "narrator": specs(
                "narrator",
                lambda: NarratorActor(
                    chain=self._narration_chain,
                    gate=self._root_ref("gates", self._gate_ids[0]),
                ),
            ),
        }
        stages = Supervisor(
            name="stages",
            children=[s for group in stage_specs.values() for s in group],
            strategy=Strategy.ONE_FOR_ONE,
            intensity=intensity,
        )
        self._stage_ids = {k: [s.id for s in v] for k, v in stage_specs.items()}
        self._sessions = DynamicSupervisor(name="sessions", intensity=intensity)
        self._gates, self._stages = gates, stages
        return Supervisor(
            name="runtime", children=[gates, stages, self._sessions], strategy=Strategy.ONE_FOR_ONE
        )

    def _root_ref(self, supervisor: str, child: str) -> ActorRef:
        sup = self._gates if supervisor == "gates" else self._stages
        return sup.ref(child)

    def _stage_refs(self, session_id: str) -> StageRefs:
        def pick(name: str) -> ActorRef:
            refs = [self._stages.ref(i) for i in self._stage_ids[name]]
            return _pool(refs, session_id)

        gate = _pool([self._gates.ref(i) for i in self._gate_ids], session_id)
        return StageRefs(
            interpreter=pick("interpreter"),
            reducer=pick("reducer"),
            gate=gate,
            grounding=pick("grounding"),
            narrator=pick("narrator"),
        )

    # -- sessions and turns -------------------------------------------------------------------

    async def open_session(
        self, *, account_id: str, workflow: str | None = None, session_id: str | None = None
    ) -> SessionRecord:
        """Start a session on ``workflow`` (the only one, if there is one), or resume one."""
        if session_id is not None:
            existing = await self.store.get_session(account_id, session_id)
            if existing is not None:
                return existing
        name = workflow or (next(iter(self.workflows)) if len(self.workflows) == 1 else None)
        if name is None or name not in self.workflows:
            known = ", ".join(sorted(self.workflows))
            raise UnknownWorkflow(
                f"unknown workflow {workflow!r}", hint=f"this runtime knows: {known}"
            )
        return await self.store.create_session(
            account_id=account_id, workflow=name, session_id=session_id
        )

    def new_turn(
        self,
        session: SessionRecord,
        text: str,
        *,
        interaction_response: InteractionResponse | None = None,
        at: datetime | None = None,
        locale: str = "en",
    ) -> UserTurn:
        """A turn for ``session`` received now (the runtime's clock) with a time-ordered id."""
        return UserTurn(
            session_id=session.session_id,
            account_id=session.account_id,
            turn_id=new_id("turn-"),
            text=text,
            clock=at or self.clock.now(),
            locale=locale,
            interaction_response=interaction_response,
        )

    async def handle_turn(self, turn: UserTurn) -> TurnResponse:
        """Take ``turn`` through every phase; sending the same turn again is idempotent."""
        attempts = self.settings.resume_attempts + 1
        for attempt in range(attempts):
            if self._leases is not None:
                await self._leases.ensure(turn.account_id, turn.session_id)
            ref = await self._session_ref(turn.account_id, turn.session_id)
            self._last_used[(turn.account_id, turn.session_id)] = anyio.current_time()
            try:
                response: TurnResponse = await ref.ask(
                    HandleTurn(turn=turn),
                    timeout=self.settings.ask_timeout,
                    correlation_id=turn.turn_id,
                )
                return response
            except (ActorCrashed, ActorStopped, TurnIncomplete):
                # The session actor is restarted by its supervisor; the turn resumes from the
                # phase the store holds, so nothing finished is done twice.
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    async def respond(
        self,
        *,
        session: SessionRecord,
        interaction_id: str,
        option_id: str,
        expected_revision: int,
        text: str = "",
        at: datetime | None = None,
    ) -> TurnResponse:
        """A card click (ids only), optionally with text, as one turn."""
        response = InteractionResponse(
            interaction_id=interaction_id, option_id=option_id, expected_revision=expected_revision
        )
        turn = self.new_turn(session, text, interaction_response=response, at=at)
        return await self.handle_turn(turn)

    async def reload(self, *, account_id: str, turn_id: str) -> TurnResponse | None:
        """The stored response of a turn, byte-identical to what was delivered."""
        record = await self.store.get_turn(account_id, turn_id)
        if record is None:
            return None
        stored = await self.store.get_assistant_turn(account_id, turn_id)
        blocks = (
            () if stored is None else tuple(converter.structure(b, Block) for b in stored.blocks)
        )
        return TurnResponse(
            session_id=record.session_id, turn_id=turn_id, phase=record.phase, blocks=blocks
        )

    async def recover(self) -> RecoveryReport:
        """Finish every unfinished turn from its phase marker (run on every start)."""
        resumed: list[str] = []
        incomplete: list[str] = []
        skipped: list[str] = []
        for record in await self._unfinished_turns_to_recover():
            session = await self.store.get_session(record.account_id, record.session_id)
            if session is None or session.workflow not in self.workflows:
                # Another runtime (serving that workflow) sharing this store recovers it.
                skipped.append(record.turn_id)
                continue
            turn = converter.structure(record.payload, UserTurn)
            try:
                response = await self.handle_turn(turn)
            except TurnIncomplete:
                incomplete.append(record.turn_id)
                continue
            if response.phase in (TurnPhase.DELIVERED, TurnPhase.FAILED):
                resumed.append(record.turn_id)
        return RecoveryReport(
            resumed=tuple(resumed), incomplete=tuple(incomplete), skipped=tuple(skipped)
        )

    async def _unfinished_turns_to_recover(self) -> list[TurnRecord]:
        if self._leases is None:
            return await self.store.list_unfinished_turns(account_id=None)
        # With leases: only sessions no live worker serves, leased to this one first.
        turns: list[TurnRecord] = []
        for session in await self._leases.claim_orphans():
            records = await self.store.list_session_turns(session.account_id, session.session_id)
            turns += [r for r in records if not r.phase.is_terminal]
        return turns

    async def _session_ref(self, account_id: str, session_id: str) -> ActorRef:
        sessions = self._sessions
        if sessions is None:
            raise TurnframeError("the runtime is not running", hint="use `async with Runtime(...)`")
        child_id = f"{account_id}/{session_id}"
        try:
            return sessions.ref(child_id)
        except UnknownChild:
            pass  # not live yet: start it below
        if await self.store.get_session(account_id, session_id) is None:
            raise UnknownSession(
                f"session {session_id!r} does not exist",
                hint="open it with Runtime.open_session() first",
            )
        spec = ChildSpec(
            id=child_id,
            factory=lambda: SessionActor(
                account_id=account_id,
                session_id=session_id,
                store=self.store,
                workflows=self.workflows,
                stages=self._stage_refs(session_id),
                settings=SessionSettings(ask_timeout=self.settings.ask_timeout),
            ),
            restart=Restart.TRANSIENT,
            mailbox_size=self.settings.mailbox_size,
        )
        try:
            return await sessions.start_child(spec)
        except DuplicateChild:
            return sessions.ref(child_id)


def _chain_of(
    provider: Provider | Sequence[Provider] | ProviderChain | None, policy: RetryPolicy | None
) -> ProviderChain | None:
    if provider is None or isinstance(provider, ProviderChain):
        return provider
    providers = [provider] if not isinstance(provider, Sequence) else list(provider)
    return ProviderChain(providers, policy=policy)


def _blocks(stored: Sequence[Any]) -> tuple[Block, ...]:
    return tuple(converter.structure(b, Block) for b in stored)


__all__ = ["RecoveryReport", "Runtime", "RuntimeSettings", "UnknownSession", "UnknownWorkflow"]
