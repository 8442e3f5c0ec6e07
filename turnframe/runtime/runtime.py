"""The Runtime facade: the supervision tree of DESIGN §2 behind one ``async with``.

::

    async with Runtime(workflows=[desk], store="turns.db", provider=RulesProvider(...)) as rt:
        session = await rt.open_session(account_id="acct-1")
        response = await rt.handle_turn(rt.new_turn(session, "Set the note to window seat"))

The tree is built in :mod:`turnframe.runtime.tree`. On start the runtime recovers every
unfinished turn (DESIGN §3's recovery order: the phase marker says what is left to do).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Literal, Self

import anyio
import anyio.abc
import attrs
from tenacity import RetryCallState

from turnframe._converter import converter
from turnframe._ids import new_id
from turnframe._retry import exponential_wait, retrying
from turnframe._strict import non_text_paths
from turnframe.actors.dead_letters import DeadLetters
from turnframe.actors.errors import ActorCrashed, ActorStopped
from turnframe.actors.narrator import NarratorActor
from turnframe.actors.ref import ActorRef
from turnframe.actors.session import (
    SessionActor,
    SessionSettings,
)
from turnframe.actors.stages import HandleTurn
from turnframe.clock import Clock, SystemClock
from turnframe.config import TurnframeConfig, load_config
from turnframe.corpora import CorpusRegistry, default_registry
from turnframe.corpora.sources import CorpusSources, load_corpora
from turnframe.errors import ConfigError, TurnframeError
from turnframe.lifecycle import TurnPhase
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.outbox import EffectSender, OutboxDispatcher, Reconciler
from turnframe.pipeline.interpretation import InterpretSetup, resolve_setups
from turnframe.providers.base import Provider
from turnframe.providers.chain import ProviderChain
from turnframe.providers.policy import RetryPolicy
from turnframe.references import ReferenceBinding, check_every_budget
from turnframe.response import Block, TurnResponse
from turnframe.runtime import inbox
from turnframe.runtime.feed import DeliveredTurn, TurnFeed
from turnframe.runtime.leasing import SessionLeases
from turnframe.runtime.settings import (
    RecoveryReport,
    RuntimeSettings,
    UnknownSession,
    UnknownWorkflow,
)
from turnframe.runtime.tree import StageTree, build_tree
from turnframe.stores.errors import StoreError
from turnframe.stores.fencing import FencedStore
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import SessionRecord, TurnRecord
from turnframe.stores.sqlite import SqliteStore
from turnframe.supervisors import (
    ChildSpec,
    Restart,
)
from turnframe.supervisors.errors import DuplicateChild, UnknownChild
from turnframe.supervisors.events import EventCallback
from turnframe.telemetry import Telemetry
from turnframe.workflow import Workflow

logger = logging.getLogger("turnframe.runtime")


def _log_dispatcher_crash(state: RetryCallState) -> None:
    error = state.outcome.exception() if state.outcome is not None else None
    pause = state.upcoming_sleep
    logger.error("outbox dispatcher crashed; restarting in %.2fs", pause, exc_info=error)


class Runtime:
    # The actor classes the tree is built from. Only the chaos kit swaps them, for the
    # deliberately broken components that prove its checker catches a violation.
    _session_class: ClassVar[type[SessionActor]] = SessionActor
    _narrator_class: ClassVar[type[NarratorActor]] = NarratorActor

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
        on_supervision_event: EventCallback | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        if not workflows:
            raise UnknownWorkflow("a runtime needs at least one workflow")
        self.workflows: Mapping[str, Workflow[Any]] = {w.name: w for w in workflows}
        self._store_arg = store
        chain = _chain_of(provider, retry_policy)
        if chain is None:
            raise ConfigError("a runtime needs a provider", hint="e.g. the offline RulesProvider")
        self._chain = chain
        self._narration_chain = _chain_of(narration_provider, retry_policy)
        self._config_arg = config
        self._api_references = references
        self._cli_references = tuple(cli_references)
        self.setups: dict[str, InterpretSetup] = {}
        self.settings = settings or RuntimeSettings()
        self.clock: Clock = clock or SystemClock()
        # The runtime's own registry: the shipped corpora (unless turned off) and every
        # workflow's own; a config file's [corpora], when it has one, replaces it at start. A
        # registry passed in is used as given.
        self._own_corpora = corpora is None
        self.corpora = corpora if corpora is not None else self._registry(None)
        self._inside_commit = inside_commit
        self._senders = dict(senders or {})
        self._reconciler = reconciler
        self._outbox_options = dict(outbox_options or {})
        self.dispatcher: OutboxDispatcher | None = None
        self._store: Store | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._tree: StageTree | None = None
        self._on_event = on_supervision_event
        self._last_used: dict[tuple[str, str], float] = {}
        self._leases: SessionLeases | None = None
        self.feed = TurnFeed()
        #: Spans and metrics through the OpenTelemetry API (on when the API is installed).
        self.telemetry = telemetry if telemetry is not None else Telemetry()

    # -- lifetime ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Between ``__aenter__`` and ``__aexit__``: turns can be handled."""
        return self._stack is not None

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
        self.feed.reopen()
        try:
            if isinstance(self._store_arg, str | os.PathLike):
                self._store = await stack.enter_async_context(
                    SqliteStore.open(
                        os.fspath(self._store_arg),
                        group_commit_size=self.settings.group_commit_size,
                        group_commit_window=self.settings.group_commit_window,
                    )
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
                # Every session-scoped write passes the lease fence (ADR 0018).
                self._store = FencedStore(self._store, self._leases.holder)
            if self._senders:
                self.dispatcher = OutboxDispatcher(
                    self._store, self._senders, self.clock, **self._outbox_options
                )
                group = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(group.cancel_scope.cancel)
                await group.start(self._drive_outbox, self.dispatcher)
            self._tree = build_tree(
                store=self._store,
                workflows=self.workflows,
                settings=self.settings,
                chain=self._chain,
                narration_chain=self._narration_chain,
                setups=self.setups,
                corpora=self.corpora,
                context_budgets=self.context_budgets,
                inside_commit=self._inside_commit,
                on_outbox=self.dispatcher.notify if self.dispatcher else None,
                on_event=self._on_event,
                narrator_class=self._narrator_class,
                recall_location=self._recall_location(),
            )
            await stack.enter_async_context(self._tree.root)
            idle = self.settings.session_idle_seconds
            sample_outbox = self.telemetry.enabled and self.telemetry.outbox_interval is not None
            if idle is not None or lease_seconds is not None or sample_outbox:
                sweeper = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(sweeper.cancel_scope.cancel)
                if idle is not None:
                    sweeper.start_soon(self._sweep_idle_sessions, idle)
                if lease_seconds is not None and self.settings.serve_orphans:
                    sweeper.start_soon(self._take_over_orphans, lease_seconds / 2)
                if sample_outbox:
                    sweeper.start_soon(self.telemetry.run_outbox_sampler, self._store)
            self._stack = stack
            if lease_seconds is None or self.settings.serve_orphans:
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
        restarts = retrying(
            retry_on=lambda error: True,
            wait=exponential_wait(initial=0.05, factor=2.0, maximum=5.0),
            before_sleep=_log_dispatcher_crash,
        )
        async for attempt in restarts:
            with attempt:
                await dispatcher.run(reconciler=self._reconciler)

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

    @property
    def leases(self) -> SessionLeases | None:
        """This runtime's session leases (None without ``session_lease_seconds``)."""
        return self._leases

    async def stop_session(
        self,
        account_id: str,
        session_id: str,
        *,
        lease: Literal["release", "forget", "keep"] = "release",
    ) -> None:
        """Stop the session's actor (its next turn starts a fresh one from the store), then
        ``release`` its lease, ``forget`` it (lost to another worker) or ``keep`` it."""
        self._last_used.pop((account_id, session_id), None)
        if self._tree is not None:
            with contextlib.suppress(UnknownChild):
                await self._tree.sessions.stop_child(f"{account_id}/{session_id}")
        if self._leases is not None:
            if lease == "release":
                await self._leases.release(account_id, session_id)
            elif lease == "forget":
                self._leases.forget(account_id, session_id)

    async def evict_idle_sessions(self, *, idle_for: float) -> int:
        """Stop the session actors that handled nothing for ``idle_for`` seconds (monotonic);
        returns how many. A turn for an evicted session starts its actor again from the store."""
        if self._tree is None:
            return 0
        sessions = self._tree.sessions
        now = anyio.current_time()
        stale = [key for key, used in self._last_used.items() if now - used >= idle_for]
        for account_id, session_id in stale:
            del self._last_used[(account_id, session_id)]
            with contextlib.suppress(UnknownChild):
                await sessions.stop_child(f"{account_id}/{session_id}")
            if self._leases is not None:
                await self._leases.release(account_id, session_id)
        return len(stale)

    def _registry(self, sources: CorpusSources | None) -> CorpusRegistry:
        shipped = self.settings.include_shipped_corpora
        if sources is None:
            registry = default_registry(include_shipped=shipped)
        else:
            if sources.shipped is None and not sources.names_any:  # only settings changed
                sources = attrs.evolve(sources, shipped=shipped)
            registry = load_corpora(sources).registry
        for workflow in self.workflows.values():
            for register in workflow.corpora:
                register(registry)
        return registry

    @property
    def context_budgets(self) -> tuple[tuple[str, int | None], ...]:
        """Every interpreting provider's declared context budget: a fallback may be reached, so
        bound references must fit each of them, not only the first."""
        return tuple((p.name, p.context_budget_tokens) for p in self._chain.providers)

    def _recall_location(self) -> str:
        """The store path recall's resume handles name (``turnframe chat --store …``)."""
        if self.settings.recall.store_location is not None:
            return self.settings.recall.store_location
        if isinstance(self._store_arg, str | os.PathLike):
            return os.fspath(self._store_arg)
        location = getattr(self._store, "location", None)
        return location if isinstance(location, str) else "turnframe.db"

    def _resolve_setups(self) -> dict[str, InterpretSetup]:
        config = self._config_arg
        if isinstance(config, str | os.PathLike):
            config = load_config(Path(config))
        if self._own_corpora and config is not None and config.corpora != CorpusSources():
            self.corpora = self._registry(config.corpora)
        setups = resolve_setups(
            list(self.workflows.values()),
            config=config,
            references=self._api_references,
            cli_bindings=self._cli_references,
            cwd=Path.cwd(),
        )
        # Load time: the bound material alone must fit every provider of the chain; each turn
        # checks again with its own text (the interpreter, at bind time).
        for setup in setups.values():
            check_every_budget(setup.references, setup.template, "", budgets=self.context_budgets)
        return setups

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.feed.close()  # watchers' streams end first: nothing more is delivered
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.__aexit__(exc_type, exc, tb)
        self._store = None

    @property
    def dead_letters(self) -> DeadLetters:
        """Messages sent to stopped actors, counted in total and per message type."""
        return self._running_tree().root.dead_letters

    def _running_tree(self) -> StageTree:
        if self._tree is None:
            raise TurnframeError("the runtime is not running", hint="use `async with Runtime(...)`")
        return self._tree

    # -- sessions and turns -------------------------------------------------------------------

    async def open_session(
        self,
        *,
        account_id: str,
        workflow: str | None = None,
        session_id: str | None = None,
        anaphora: bool | None = None,
        fork_of: str | None = None,
    ) -> SessionRecord:
        """Start a session on ``workflow`` (the only one, if there is one), or resume one.

        ``anaphora`` turns thread back-references on or off for this session only (``None``:
        the runtime's setting); it is stored with the session. ``fork_of`` marks the session as
        a fork of another one (a side conversation): recall resumes a fork through its parent."""
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
        context: dict[str, Any] | None = None
        if anaphora is not None or fork_of is not None:
            context = {"thread": None, "anaphora": anaphora}
            if fork_of is not None:
                context["fork_of"] = fork_of
        return await self.store.create_session(
            account_id=account_id, workflow=name, session_id=session_id, thread_context=context
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

    async def handle_turn(self, turn: UserTurn, *, record_first: bool = False) -> TurnResponse:
        """Take ``turn`` through every phase; sending the same turn again is idempotent.

        A turn ends ``delivered`` or ``failed`` (with a typed reason), or raises a typed
        error; :class:`TurnIncomplete` means it stopped at a boundary and recovery finishes it.
        The turn is stored with its seal (ADR 0022): until then it is the caller's, who sends it
        again if the call raised. ``record_first`` stores it on arrival instead (one more write
        transaction), so that a process that dies before the seal leaves it to recovery: what
        a client that cannot send again wants (the chat CLI does; the inbox does it for workers).
        """
        with self.telemetry.turn(turn) as observed:  # telemetry: the turn's span and metrics
            try:
                if record_first:
                    await self._record_arrival(turn)
                response = await self._handle_turn(turn)
            except BaseException as error:
                observed.fail(error)
                raise
            observed.finish(response)
            return response

    async def _record_arrival(self, turn: UserTurn) -> None:
        payload = converter.unstructure(turn)
        if non_text_paths(payload):
            return  # not text: the session refuses it (InvalidTurn), nothing is stored
        await self.store.record_user_turn(
            account_id=turn.account_id,
            session_id=turn.session_id,
            payload=payload,
            turn_id=turn.turn_id,
        )

    async def _handle_turn(self, turn: UserTurn) -> TurnResponse:
        # The session actor itself died: its supervisor restarts it (within the session's own
        # budget) and the turn resumes from the phase the store holds, so trying again does
        # nothing twice. A TurnIncomplete is not asked again here: the session already retried
        # its step, counted the failure durably, and recovery finishes (or parks) the turn.
        resumes = retrying(
            retry_on=lambda error: isinstance(error, ActorCrashed | ActorStopped),
            attempts=self.settings.resume_attempts + 1,
        )
        async for attempt in resumes:
            with attempt:
                if self._leases is not None:
                    await self._leases.ensure(turn.account_id, turn.session_id)
                ref = await self._session_ref(turn.account_id, turn.session_id)
                self._last_used[(turn.account_id, turn.session_id)] = anyio.current_time()
                response: TurnResponse = await ref.ask(
                    HandleTurn(turn=turn),
                    timeout=self.settings.ask_timeout,
                    correlation_id=turn.turn_id,
                )
                if response.phase.is_terminal:
                    self.feed.publish(
                        DeliveredTurn(
                            account_id=turn.account_id,
                            session_id=turn.session_id,
                            turn_id=turn.turn_id,
                            phase=response.phase,
                        )
                    )
                return response
        raise AssertionError("tenacity either returns the response or re-raises the error")

    async def submit(
        self,
        session_id: str,
        message: str | InteractionResponse,
        *,
        account: str,
        client_turn_id: str | None = None,
        text: str = "",
    ) -> str:
        """Put a turn (text, or a card click with optional ``text``) in the store's durable
        inbox and return its turn id at once; a worker serves it in the session's order
        (``turnframe worker``). The same ``client_turn_id`` twice is one turn."""
        return await inbox.submit(
            self, session_id, message, account=account, client_turn_id=client_turn_id, text=text
        )

    async def wait(
        self,
        turn_id: str,
        *,
        account: str,
        timeout: float = 60.0,  # noqa: ASYNC109 (the issue's API)
    ) -> TurnResponse:
        """The response of a submitted turn once it ended (``delivered`` or ``failed``);
        :class:`~turnframe.runtime.inbox.TurnNotDelivered` after ``timeout`` seconds."""
        return await inbox.wait(self.store, turn_id, account=account, timeout=timeout)

    async def respond(
        self,
        *,
        session: SessionRecord,
        interaction_id: str,
        option_id: str,
        expected_revision: int,
        text: str = "",
        at: datetime | None = None,
        record_first: bool = False,
    ) -> TurnResponse:
        """A card click (ids only), optionally with text, as one turn (``record_first``: as in
        :meth:`handle_turn`)."""
        response = InteractionResponse(
            interaction_id=interaction_id, option_id=option_id, expected_revision=expected_revision
        )
        turn = self.new_turn(session, text, interaction_response=response, at=at)
        return await self.handle_turn(turn, record_first=record_first)

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
        """Finish every unfinished turn from its phase marker (run on every start).

        One turn that cannot be finished now never stops the others (nor the start): it is
        reported ``incomplete`` and tried again by the next recovery, which parks it as
        ``failed`` once it has given up the same way ``park_after`` times."""
        resumed: list[str] = []
        incomplete: list[str] = []
        skipped: list[str] = []
        for record in await self._unfinished_turns_to_recover():
            session = await self.store.get_session(record.account_id, record.session_id)
            if session is None or session.workflow not in self.workflows:
                # Another runtime (serving that workflow) sharing this store recovers it.
                skipped.append(record.turn_id)
                continue
            try:
                turn = converter.structure(record.payload, UserTurn)
                response = await self.handle_turn(turn)
            except Exception as error:
                logger.warning("recovery left turn %r unfinished: %s", record.turn_id, error)
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
        sessions = self._running_tree().sessions
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
            factory=lambda: self._session_class(
                account_id=account_id,
                session_id=session_id,
                store=self.store,
                workflows=self.workflows,
                stages=self._running_tree().refs_for(session_id),
                settings=SessionSettings(
                    ask_timeout=self.settings.ask_timeout,
                    max_turn_chars=self.settings.max_turn_chars,
                    park_after=self.settings.park_after,
                    index_recall_on_stop=self.settings.recall.index_on_idle,
                    hot_case_attempts=self.settings.hot_case_attempts,
                ),
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


__all__ = ["Runtime"]
