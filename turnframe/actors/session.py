"""The SessionActor: one per live session, one turn at a time, owner of the phase transitions.

A turn is driven as a phase machine over the durable marker: each step reads the phase the
store holds and does the next thing (interpret, reduce and persist cards, execute through the
gate, ground and narrate). A step that fails (a store error, a crashed stage actor, anything)
is retried from the phase the store then holds, so a resumed turn never repeats a finished
step: interpretation only before the seal, commands only by idempotency key.

No poison (DESIGN §2): a failure that keeps coming the same way ends the turn in a final
phase with a typed reason (:mod:`turnframe.pipeline.failures`), recorded once; a transient one
leaves it to recovery, which parks it after ``park_after`` tries. Nothing a turn brings makes
this actor crash, so one session's input never restarts or stops anything else.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

import attrs

from turnframe._converter import converter
from turnframe._evolve import evolve
from turnframe._retry import retrying
from turnframe._strict import non_text_paths, storable_text
from turnframe.actors.actor import Actor, handler
from turnframe.actors.grounding import GroundingActor
from turnframe.actors.hot_cases import case_guard, seal_hot
from turnframe.actors.interpreter import InterpretationFailed
from turnframe.actors.narrator import NarratorActor
from turnframe.actors.reduction import ReducerActor
from turnframe.actors.ref import ActorRef
from turnframe.actors.stages import (
    Execute,
    Ground,
    Grounded,
    HandleTurn,
    Interpret,
    Interpretation,
    Narrate,
    Narration,
    Reduce,
    SettledReport,
)
from turnframe.corpora import ThreadContext
from turnframe.errors import TurnframeError
from turnframe.execution import ExecutionReport
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.messages import UserTurn
from turnframe.pipeline.directory import build_context
from turnframe.pipeline.failures import (
    TURN_PARKED,
    FailureStreak,
    failure_signature,
    fallback_blocks,
    is_transient,
    parked_record,
)
from turnframe.pipeline.reports import admission_entries, needs_card
from turnframe.plan import Act, UserTurnPlan
from turnframe.providers.attempts import ProviderAttempt
from turnframe.recall.session import SessionRecall
from turnframe.recall.stage import RecallOutcome
from turnframe.response import Block, TurnResponse
from turnframe.results import (
    InteractionKind,
    InteractionToCreate,
    PlannedActResult,
    ReductionPlan,
)
from turnframe.stores.contention import guarding
from turnframe.stores.directory import StoreCaseDirectory
from turnframe.stores.errors import PayloadImmutable, StoreError
from turnframe.stores.inputs import (
    BundleReply,
    CardResolution,
    NewInteraction,
    NewUserTurn,
    PhaseMove,
    TurnSeal,
)
from turnframe.stores.protocol import Store
from turnframe.stores.records import Admission, InteractionStatus, SealReceipt, TurnRecord
from turnframe.telemetry.hooks import observe_stage
from turnframe.workflow import CaseSnapshot, Workflow

logger = logging.getLogger("turnframe.session")
T = TypeVar("T")
M = TypeVar("M")

#: Journal statuses a parked turn's entries leave (an unknown outcome is reconciled instead).
_WITHDRAWABLE = (
    JournalStatus.PENDING,
    JournalStatus.EXECUTING,
    JournalStatus.AWAITING_CONFIRMATION,
)


class TurnIncomplete(TurnframeError):
    """A turn stopped at a boundary and could not go on now; its durable phase is kept."""

    code = "turnframe.turn.incomplete"

    def __init__(self, turn_id: str, phase: TurnPhase, cause: BaseException) -> None:
        super().__init__(
            f"turn {turn_id!r} stopped in phase {phase.value}: {cause}",
            hint="Runtime.recover() (run on every start) finishes it exactly once",
        )
        self.turn_id = turn_id
        self.phase = phase
        self.cause = cause


class WrongSession(TurnframeError):
    code = "turnframe.turn.wrong_session"


class InvalidTurn(TurnframeError):
    """A user turn that cannot be taken as given; nothing of it was recorded."""

    code = "turnframe.turn.invalid"


@attrs.frozen(kw_only=True)
class DirectStages:
    """Stage instances a session calls in its own task instead of asking their actors.

    A stage that is a function of its message (the reducer; grounding, which only reads; the
    template narrator) gains nothing from a mailbox: its failure is a failed step of the turn,
    retried from the durable phase like any other, and no restart would change its next answer
    (these actors are ``stateless``). Calling it directly saves an ask (a mailbox round trip, a
    deadline scope, an Event and a wake-up of another task) per stage per turn. Stages that
    call a model provider or run commands (interpretation, model narration, the gate) are
    always asked, under their supervisors.
    """

    reducer: ReducerActor
    grounding: GroundingActor
    narrator: NarratorActor | None = None  # None: narration calls a provider, so it is asked
    #: Told when a stage called directly fails (stage name, error): the supervisor reports it
    #: as that stage failing on a message, so operators see it as they see an asked stage's.
    on_failure: Callable[[str, BaseException], None] | None = None


@attrs.frozen(kw_only=True)
class StageRefs:
    interpreter: ActorRef
    reducer: ActorRef
    gate: ActorRef
    grounding: ActorRef
    narrator: ActorRef
    recall: ActorRef | None = None  # None: recall acts are answered by grounding alone
    direct: DirectStages | None = None  # None: every stage is asked


@attrs.frozen(kw_only=True)
class SessionSettings:
    ask_timeout: float = 30.0
    #: Failed steps in a row the same way (twice as many in all) before a handling gives up.
    max_step_failures: int = 3
    #: A longer message is not interpreted (a notice says so); interpretation stays bounded.
    max_turn_chars: int = 4_000
    #: Handlings that gave up in a row the same transient way before the turn is parked.
    park_after: int = 3
    index_recall_on_stop: bool = False  # write the session's recall index entry when it stops
    #: Re-reductions of an unsealed turn whose case moved meanwhile (0: none; ADR 0018).
    hot_case_attempts: int = 3


class SessionActor(Actor):
    # A store failure before the turn is recorded is an answer too (typed, retryable by the
    # caller), not a crash of the session.
    expected_errors = (TurnIncomplete, WrongSession, InvalidTurn, StoreError)

    def __init__(
        self,
        *,
        account_id: str,
        session_id: str,
        store: Store,
        workflows: Mapping[str, Workflow[Any]],
        stages: StageRefs,
        settings: SessionSettings | None = None,
    ) -> None:
        self._account = account_id
        self._session = session_id
        self._store = store
        self._workflows = workflows
        self._stages = stages
        self._settings = settings or SessionSettings()
        self._directory = StoreCaseDirectory(store, workflows)
        self._workflow = ""
        self._thread = ThreadContext()
        self._turn_ids = _TurnOrder()
        self._focus: str | None = None
        self._anaphora: bool | None = None  # this session's choice; None: the runtime's
        self._reports: dict[str, ExecutionReport] = {}
        # Objects this actor made on the live path (saved to the store as well): a resumed
        # turn, or one resumed by a restarted actor, rebuilds them from the stored payloads.
        self._plans: dict[str, UserTurnPlan] = {}
        self._plan_payloads: dict[str, dict[str, Any]] = {}  # live plans not stored yet
        self._admissions: dict[str, tuple[Admission, ...]] = {}  # from this actor's seal
        self._reductions: dict[str, ReductionPlan] = {}
        self._contexts: dict[str, Mapping[str, CaseSnapshot]] = {}
        self._open_cards: tuple[InteractionToCreate, ...] | None = None
        # Live turns not recorded yet (payloads): the seal records them (ADR 0022), or a
        # failed step / a failed turn does before it says anything of them.
        self._unrecorded: dict[str, dict[str, Any]] = {}
        # The last delivered turn's acts (kept in memory only: a fresh actor starts without).
        self._previous_acts: tuple[Act, ...] = ()
        self._recall = SessionRecall()

    async def on_start(self) -> None:
        record = await self._store.get_session(self._account, self._session)
        if record is None:
            raise WrongSession(f"session {self._session!r} does not exist for this account")
        self._workflow = record.workflow
        stored = record.thread_context or {}
        self._recall = SessionRecall.of(stored)
        if "thread" in stored or "anaphora" in stored:  # {"thread": ..., "anaphora": ...}
            self._anaphora = stored.get("anaphora")
            stored = stored.get("thread") or {}
        if stored:
            self._thread = converter.structure(stored, ThreadContext)
        turns = await self._store.list_session_turns(self._account, self._session)
        self._turn_ids = _TurnOrder(t.turn_id for t in turns)

    async def on_stop(self) -> None:
        if self._settings.index_recall_on_stop:
            await self._recall.index(self._store, self._account, self._session)

    @handler
    async def handle(self, message: HandleTurn) -> TurnResponse:
        turn = message.turn
        if turn.account_id != self._account or turn.session_id != self._session:
            raise WrongSession(f"turn {turn.turn_id!r} belongs to another session")
        payload = converter.unstructure(turn)
        not_text = non_text_paths(payload)
        if not_text:
            where = ", ".join(".".join(map(str, p)) for p in not_text[:3])
            raise InvalidTurn(
                f"turn {storable_text(turn.turn_id)!r}: {storable_text(where)} holds a lone "
                "surrogate, which is not text; nothing was recorded",
                hint="decode the user's bytes as UTF-8 before building the turn",
            )
        # One read (ADR 0022): the turn as stored (a worker's inbox row, a resumed or re-sent
        # turn; its phase says where it stands) and, when it is to be interpreted, the cases.
        start = await self._store.get_turn_start(self._account, turn.turn_id)
        self._directory.forget()
        if start.cases is not None:
            self._directory.remember(self._account, start.cases)
        record = start.turn
        if record is None:  # a live turn: its seal records it
            record = _unrecorded_record(turn, self._session, payload)
            self._unrecorded[turn.turn_id] = payload
        elif record.session_id != self._session or not _same_payload(record.payload, payload):
            raise PayloadImmutable("user turn", turn.turn_id)
        if turn.turn_id not in self._turn_ids:
            self._turn_ids.append(turn.turn_id)
        try:
            return await self._drive(turn, record)
        finally:
            if self._unrecorded.pop(turn.turn_id, None) is not None:
                # Never recorded: nothing of it is durable, the caller may send it again.
                self._turn_ids.remove(turn.turn_id)

    async def _drive(self, turn: UserTurn, record: TurnRecord) -> TurnResponse:
        """Step through the phases until the turn answers. A failed step (anything) is tried
        again from the phase the store then holds, until the same failure keeps coming
        (``max_step_failures`` in a row, twice as many in all) or the store cannot say where
        the turn stands; then :meth:`_give_up` decides what follows."""
        streak = FailureStreak()
        limit = self._settings.max_step_failures
        latest = record
        counted: Exception | None = None  # the step failure the streak counted last
        again = False  # whether that failure is worth another try
        steps = retrying(retry_on=lambda error: error is counted and again)
        try:
            async for attempt in steps:
                with attempt:
                    try:
                        while True:
                            step = await self._step(turn, latest)
                            if isinstance(step, TurnResponse):
                                return step
                            latest = step
                    except Exception as error:
                        current = await self._after_failure(turn)
                        if current is not None and current.phase.is_terminal:
                            self._forget(turn.turn_id)
                            return await self._reload(turn, current)  # it ended before
                        streak.add(failure_signature((current or latest).phase, error))
                        counted, again = error, current is not None and streak.allows(limit)
                        latest = current or latest
                        raise
        except Exception as error:
            if error is not counted:
                raise  # not a step's failure (the store failed reloading an ended turn)
            return await self._give_up(turn, latest, error, streak)
        raise AssertionError("tenacity either returns the response or re-raises the error")

    async def _after_failure(self, turn: UserTurn) -> TurnRecord | None:
        """What the store now holds of ``turn``, with this actor's caches of it dropped (and
        its live plan stored, when the failure came before the seal)."""
        self._open_cards = None
        self._directory.forget()
        self._admissions.pop(turn.turn_id, None)
        return await self._keep_plan(turn, await self._reread(turn))

    async def _give_up(
        self, turn: UserTurn, record: TurnRecord, error: Exception, streak: FailureStreak
    ) -> TurnResponse:
        """A transient failure leaves the turn to recovery (counted durably) until it has given
        up ``park_after`` times the same way; any other failure parks the turn now."""
        self._forget(turn.turn_id)
        attempts = streak.total
        if is_transient(error):
            try:
                attempts = await self._store.note_turn_failure(
                    self._account, turn.turn_id, signature=streak.signature or ""
                )
            except StoreError:
                raise TurnIncomplete(turn.turn_id, record.phase, error) from error
            if attempts < self._settings.park_after:
                raise TurnIncomplete(turn.turn_id, record.phase, error) from error
        try:
            return await self._park(turn, error, attempts)
        except Exception as park_error:  # the store refuses even that now: recovery tries again
            logger.warning("turn %r could not be parked now: %s", turn.turn_id, park_error)
            raise TurnIncomplete(turn.turn_id, record.phase, error) from park_error

    async def _park(self, turn: UserTurn, error: Exception, attempts: int) -> TurnResponse:
        """End the turn with a typed reason, recorded once: ``failed`` when nothing committed,
        else ``delivered`` with a fallback reply (the narrator may be what failed)."""
        record = await self._get(turn)
        if record.phase.is_terminal:
            return await self._reload(turn, record)
        committed = record.phase in (TurnPhase.COMMITTED, TurnPhase.COMPOSED)
        parked = parked_record(
            turn_id=turn.turn_id,
            session_id=self._session,
            workflow=self._workflow,
            phase=record.phase,
            committed=committed,
            error=error,
            attempts=attempts,
        )
        logger.error(
            "turn %r parked in phase %s after %d attempt(s): %s",
            turn.turn_id,
            record.phase.value,
            attempts,
            parked["error"]["code"],
            extra={"correlation_id": turn.turn_id},
        )
        blocks = fallback_blocks(
            account_id=self._account,
            turn_id=turn.turn_id,
            reduction=record.reduction,
            committed=committed,
            error=error,
        )
        if not committed:
            await self._withdraw_commands(turn)
            if await self._store.get_replay_record(self._account, turn.turn_id) is None:
                await self._store.save_replay_record(self._account, turn.turn_id, parked)
        final = TurnPhase.DELIVERED if committed else TurnPhase.FAILED
        await self._store.save_assistant_turn(
            self._account,
            turn.turn_id,
            [converter.unstructure(b) for b in blocks],
            meta={"failure": parked["outcome"], "parked": parked},
            phase=PhaseMove(expected=record.phase, new=final),
        )
        return TurnResponse(
            session_id=self._session,
            turn_id=turn.turn_id,
            phase=final,
            blocks=blocks,
            results=_results_or_none(record),
        )

    async def _withdraw_commands(self, turn: UserTurn) -> None:
        """Before a turn that committed nothing is parked: its admitted commands fail (they
        never ran: the commit bundle is atomic) and its cards expire, so nothing of it can run
        later and no card of it blocks a case."""
        for entry in await self._store.list_journal(self._account, turn.turn_id):
            if entry.status in _WITHDRAWABLE:
                await self._store.set_journal_status(
                    self._account,
                    entry.idempotency_key,
                    expected=entry.status,
                    new=JournalStatus.FAILED,
                    outcome={"reason": TURN_PARKED},
                )
        cards = await self._store.list_open_interactions(self._account, session_id=self._session)
        for card in cards:
            if card.turn_id == turn.turn_id:
                await self._store.resolve_interaction(
                    self._account,
                    CardResolution(
                        interaction_id=card.interaction_id,
                        status=InteractionStatus.EXPIRED,
                        resolution={"reason": TURN_PARKED},
                    ),
                )

    async def _reread(self, turn: UserTurn) -> TurnRecord | None:
        """What the store holds of ``turn`` (None: it cannot say now). A live turn not
        recorded yet is recorded first: after a failed step it is durable, as it was before
        the seal took its recording (ADR 0022). Recording it failing is what it was when
        turns were recorded on arrival: the caller's answer (a store error, nothing of the
        turn stored) or, for anything else, this actor's crash."""
        if turn.turn_id in self._unrecorded:
            return await self._record(turn)
        try:
            return await self._store.get_turn(self._account, turn.turn_id)
        except StoreError:
            return None

    async def _record(self, turn: UserTurn) -> TurnRecord:
        """Record a live turn outside its seal (a failed step, a turn that fails whole)."""
        record = await self._store.record_user_turn(
            account_id=self._account,
            session_id=self._session,
            payload=self._unrecorded[turn.turn_id],
            turn_id=turn.turn_id,
        )
        self._unrecorded.pop(turn.turn_id, None)
        return record

    async def _recorded(self, turn: UserTurn) -> TurnRecord:
        if turn.turn_id in self._unrecorded:
            return await self._record(turn)
        return await self._get(turn)

    async def _step(self, turn: UserTurn, record: TurnRecord) -> TurnRecord | TurnResponse:
        phase = record.phase
        if phase is TurnPhase.RECEIVED and turn.turn_id not in self._plans:
            return await self._interpret(turn, record)
        if phase in (TurnPhase.RECEIVED, TurnPhase.INTERPRETED):
            return await self._reduce(turn, record)
        if phase in (TurnPhase.REDUCED, TurnPhase.EXECUTING):
            reduction = self._reduction_of(record)
            admitted = self._admissions.pop(turn.turn_id, None)
            if phase is TurnPhase.REDUCED and admitted is None:
                # A resumed turn not sealed yet: the gate admits it, and a hot case is
                # reduced again first (ADR 0018). The live path sealed in _reduce already.
                report = await self._seal(turn, record, reduction)
            else:
                reply = await self._reply_draft(turn, record, reduction)
                report = await self._execute(
                    turn, record, reduction, phase, guarded=False, admitted=admitted, reply=reply
                )
                if reply is not None and report.reply_stored:
                    return await self._delivered(turn, reduction, report, reply)
                if reply is not None and reply.error is not None:
                    # Composing failed inside the bundle, which committed without the reply:
                    # the narrator failed on this message, as an asked stage would have.
                    self._stage_failed("narrator", reply.message, reply.error)
            self._reports[turn.turn_id] = report
            return evolve(record, phase=TurnPhase.COMMITTED)
        if phase in (TurnPhase.COMMITTED, TurnPhase.COMPOSED):
            return await self._respond(turn, record)
        return await self._reload(turn, record)

    # -- the steps ------------------------------------------------------------------------

    async def _interpret(self, turn: UserTurn, record: TurnRecord) -> TurnRecord | TurnResponse:
        """Interpret the turn. The plan is kept live and stored with the seal (one transaction
        for plan, reduction, cards and admission); a step failing before the seal stores it
        on its own (:meth:`_keep_plan`), so a retry or recovery does not interpret again."""
        if len(turn.text) > self._settings.max_turn_chars:
            replay = {
                "turn_id": turn.turn_id,
                "outcome": "input_too_long",
                "chars": len(turn.text),
                "max_turn_chars": self._settings.max_turn_chars,
            }
            failure = "input_too_long"
            return await self._finish_failed(turn, None, None, failure=failure, replay=replay)
        if turn.interaction_response is not None and not turn.text.strip():
            interpretation = None
            plan = UserTurnPlan(acts=(), not_understood=())
        else:
            labels = await self._directory.labels(self._account, self._workflow)
            message = Interpret(
                turn=turn,
                workflow=self._workflow,
                case_labels=tuple(labels),
                case_names=self._directory.other_names(self._workflow),
                previous_acts=self._previous_acts,
                focus_label=self._focus,
                recall_pending=self._recall.pending,
            )
            try:
                interpretation = await self._ask(self._stages.interpreter, message)
            except InterpretationFailed as failure:
                return await self._fail_interpretation(turn, failure)
            plan = interpretation.plan
        payload = _plan_payload(plan, interpretation)
        self._plans[turn.turn_id] = plan
        self._plan_payloads[turn.turn_id] = payload
        return evolve(record, plan=payload)

    async def _keep_plan(self, turn: UserTurn, record: TurnRecord | None) -> TurnRecord | None:
        """After a failed step before the seal: store the live plan (``interpreted``) if it is
        not stored yet, so what follows (a retry, recovery, a parked turn's record) starts from
        the interpretation instead of asking for it again. Best effort: a store that refuses
        now leaves the turn ``received`` and the live plan in this actor."""
        payload = self._plan_payloads.get(turn.turn_id)
        if record is None or record.phase is not TurnPhase.RECEIVED or payload is None:
            return record
        move = PhaseMove(expected=TurnPhase.RECEIVED, new=TurnPhase.INTERPRETED)
        try:
            saved = await self._store.save_plan(self._account, turn.turn_id, payload, phase=move)
        except Exception as error:
            logger.warning("turn %r: its plan could not be stored now: %s", turn.turn_id, error)
            return record
        self._plan_payloads.pop(turn.turn_id, None)
        return saved

    async def _reduce(self, turn: UserTurn, record: TurnRecord) -> TurnRecord | TurnResponse:
        plan = self._plan_of(record)
        open_cards = await self._open_cards_now()
        closed = await self._closed_card(turn, open_cards)

        async def reduce_on_cases_now() -> tuple[ReductionPlan, Mapping[str, CaseSnapshot]]:
            context = await build_context(
                plan,
                turn,
                directory=self._directory,
                workflows=self._workflows,
                open_interactions=open_cards,
                closed_interaction_ids=closed,
            )
            self._directory.forget()
            reduced = await self._reduce_now(Reduce(plan=plan, context=context))
            return reduced, dict(context.cases)

        reduction, cases = await reduce_on_cases_now()
        payload: Any = None  # the stored form of the reduction last sealed (or tried)
        new_phase = record.phase
        plan_payload = None  # stored already, unless the turn is still received
        if record.phase is TurnPhase.RECEIVED:
            plan_payload = self._plan_payloads.get(turn.turn_id) or record.plan
            if plan_payload is None:
                raise LookupError(f"turn {turn.turn_id!r} has no plan to seal")

        async def seal(current: ReductionPlan, guarded: bool) -> SealReceipt:
            """The seal transaction of ``current``; ``guarded``: refused (nothing written)
            while a case of its ready batches moved or another turn writes it (ADR 0018)."""
            nonlocal reduction, payload, new_phase
            reduction, payload = current, converter.unstructure(current)
            entries = admission_entries(current)
            # Admission is the seal: from this transaction on, nothing re-interprets the
            # turn. A card click seals too (its card's commands are admitted already).
            sealed = bool(entries) or current.interaction_outcome is not None
            new_phase = TurnPhase.EXECUTING if sealed else TurnPhase.REDUCED
            arrived = self._unrecorded.get(turn.turn_id)
            user_turn = None
            if arrived is not None:  # a live turn is recorded by its seal (ADR 0022)
                user_turn = NewUserTurn(session_id=self._session, payload=arrived)
            turn_seal = TurnSeal(
                user_turn=user_turn,
                plan=plan_payload,
                reduction=payload,
                interactions=_new_cards(current),
                expired=tuple(current.superseded_interaction_ids),
                entries=tuple(entries),
                phase=PhaseMove(expected=record.phase, new=new_phase),
            )
            guard = None
            if guarded and sealed:
                ready = (b for b in current.batches if not needs_card(b))
                guard = case_guard(self._account, turn.turn_id, ready)
            with guarding(guard):
                receipt = await self._store.seal_turn(self._account, turn.turn_id, turn_seal)
            self._unrecorded.pop(turn.turn_id, None)
            return receipt

        async def reduce_again() -> ReductionPlan:
            """The same plan reduced again on the cases as they are now (hot cases): the
            refused seal wrote nothing, so the next seal takes the new reduction."""
            nonlocal cases
            self._directory.forget()
            again, cases = await reduce_on_cases_now()
            return again

        try:
            receipt = await seal_hot(
                self._store,
                self._account,
                turn.turn_id,
                reduction,
                execute=seal,
                reduce_again=reduce_again,
                attempts=self._settings.hot_case_attempts,
                wait_seconds=self._hot_case_wait(),
            )
        except Exception:
            if not reduction.interactions:
                raise  # a failed step: tried again from the phase the store holds
            current = await self._reread(turn)
            if current is None or current.phase is not record.phase:
                raise
            # Nothing was admitted and no card exists: the turn fails whole, and its answer
            # says nothing about a card that was never persisted.
            await self._keep_plan(turn, current)
            return await self._finish_failed(
                turn, plan, reduction, failure="cards_not_persisted", replay=None
            )
        finally:
            if (
                reduction.interactions
                or reduction.interaction_outcome
                or (reduction.superseded_interaction_ids)
            ):
                self._open_cards = None  # cards change with this turn: read them again next
        self._plan_payloads.pop(turn.turn_id, None)
        self._admissions[turn.turn_id] = receipt.admissions
        self._reductions[turn.turn_id] = reduction
        self._contexts[turn.turn_id] = cases
        plan_json = record.plan if record.plan is not None else plan_payload
        return evolve(record, phase=new_phase, reduction=payload, plan=plan_json)

    def _hot_case_wait(self) -> float:
        """How long one seal waits for a case another turn holds or writes: every wait of a
        turn together stays within half of the turn's own deadline."""
        attempts = self._settings.hot_case_attempts
        return self._settings.ask_timeout / (2 * (attempts + 1))

    async def _seal(
        self, turn: UserTurn, record: TurnRecord, reduction: ReductionPlan
    ) -> ExecutionReport:
        async def execute(current: ReductionPlan, guarded: bool) -> ExecutionReport:
            latest = record if current is reduction else await self._get(turn)
            return await self._execute(turn, latest, current, TurnPhase.REDUCED, guarded=guarded)

        return await seal_hot(
            self._store,
            self._account,
            turn.turn_id,
            reduction,
            execute=execute,
            reduce_again=lambda: self._reduce_again(turn, record),
            attempts=self._settings.hot_case_attempts,
            wait_seconds=self._hot_case_wait(),
        )

    async def _execute(
        self,
        turn: UserTurn,
        record: TurnRecord,
        reduction: ReductionPlan,
        phase: TurnPhase,
        *,
        guarded: bool,
        admitted: tuple[Admission, ...] | None = None,
        reply: _ReplyDraft | None = None,
    ) -> ExecutionReport:
        execute = Execute(
            turn=turn,
            reduction=reduction,
            replay=self._replay_base(record, reduction),
            phase=phase,
            cases=self._contexts.get(turn.turn_id, {}),
            admitted=admitted,
            guarded=guarded,
            reply=reply,
        )
        report: ExecutionReport = await self._ask(self._stages.gate, execute)
        return report

    async def _reply_draft(
        self, turn: UserTurn, record: TurnRecord, reduction: ReductionPlan
    ) -> _ReplyDraft | None:
        """Everything of the reply but the execution report, when the reply can be composed
        and stored inside the commit bundle (ADR 0022): template narration, no recall stage
        at work, and no question whose answer would read what the bundle writes. None: the
        reply is composed and stored after the commit (:meth:`_respond`)."""
        direct = self._stages.direct
        narrator = None if direct is None else direct.narrator
        plan = self._plan_of(record)
        changes = bool(reduction.batches) or reduction.interaction_outcome is not None
        if (
            narrator is None
            or not narrator.templated
            or not self._recall.idle(self._stages.recall, plan)
            or (reduction.grounding and changes)
        ):
            return None
        grounded: Grounded = await self._ground_now(
            Ground(
                turn=turn,
                turn_index=self._turn_ids.index(turn.turn_id),
                plan=plan,
                reduction=reduction,
                thread=self._thread,
                anaphora=self._anaphora,
            ),
        )
        thread = self._thread
        if grounded.summary is not None:
            thread = thread.push(grounded.summary)
        recalled = RecallOutcome(memory=self._recall.memory)
        message = Narrate(
            turn=turn,
            plan=plan,
            reduction=reduction,
            execution=None,
            cards=tuple(reduction.interactions),
            answers=tuple(grounded.answers),
            cases=await self._cases_of(turn, reduction),
            answered=await self._answered_card(turn, reduction),
            recall=recalled.drafts,
        )
        context = self._recall.context(
            {"thread": converter.unstructure(thread), "anaphora": self._anaphora}, recalled
        )
        return _ReplyDraft(narrator, message, thread, recalled, context)

    async def _delivered(
        self,
        turn: UserTurn,
        reduction: ReductionPlan,
        report: ExecutionReport,
        reply: _ReplyDraft,
    ) -> TurnResponse:
        """The turn ended ``delivered`` in its commit bundle: keep what the reply made."""
        narration = reply.narration
        assert narration is not None  # the store stored what the draft composed
        # The narrator's span, recorded as the gate answers: the composing itself ran inside
        # the execute span (in the bundle's transaction), so this one says what it made.
        narrated = evolve(reply.message, execution=report)
        await self._observed("narrator", narrated, _called(lambda _: narration, narrated))
        self._recall = self._recall.after(reply.recalled)
        return self._respond_delivered(
            turn, reply.message.plan, reply.thread, narration, reduction, report
        )

    async def _reduce_again(self, turn: UserTurn, record: TurnRecord) -> ReductionPlan:
        """A resumed turn's stored plan reduced again on the cases as they are now, saved in
        place of its stored, unsealed reduction (hot cases, :mod:`turnframe.actors.hot_cases`)."""
        plan = self._plan_of(record)
        self._directory.forget()
        context = await build_context(
            plan,
            turn,
            directory=self._directory,
            workflows=self._workflows,
            open_interactions=await self._open_cards_now(),
            closed_interaction_ids=(),
        )
        self._directory.forget()
        reduction = await self._reduce_now(Reduce(plan=plan, context=context))
        stored = await self._store.get_turn(self._account, turn.turn_id)
        expected = stored.reduction if stored is not None else record.reduction
        await self._store.renew_reduction(
            self._account,
            turn.turn_id,
            expected=expected,
            reduction=converter.unstructure(reduction),
        )
        self._reductions[turn.turn_id] = reduction
        self._contexts[turn.turn_id] = dict(context.cases)
        return reduction

    async def _respond(self, turn: UserTurn, record: TurnRecord) -> TurnResponse:
        plan = self._plan_of(record)
        reduction = self._reduction_of(record)
        # The live report of this actor's own execution, or (after a restart or a resume)
        # the same report rebuilt from the journal, events and outbox.
        report = self._reports.pop(turn.turn_id, None)
        if report is None:
            report = await self._ask(
                self._stages.gate, SettledReport(turn=turn, reduction=reduction)
            )
        index = self._turn_ids.index(turn.turn_id)
        grounded: Grounded = await self._ground_now(
            Ground(
                turn=turn,
                turn_index=index,
                plan=plan,
                reduction=reduction,
                thread=self._thread,
                anaphora=self._anaphora,
            ),
        )
        recalled = await self._recall.advance(self._stages.recall, self._ask, turn, plan, reduction)
        cards = tuple(reduction.interactions)
        narration: Narration = await self._narrate_now(
            Narrate(
                turn=turn,
                plan=plan,
                reduction=reduction,
                execution=report,
                cards=cards,
                answers=tuple(grounded.answers),
                cases=await self._cases_of(turn, reduction),
                answered=await self._answered_card(turn, reduction),
                recall=recalled.drafts,
            ),
        )
        thread = self._thread
        if grounded.summary is not None:
            thread = thread.push(grounded.summary)
        await self._store.save_assistant_turn(
            self._account,
            turn.turn_id,
            [converter.unstructure(b) for b in narration.blocks],
            meta={"narration_attempts": converter.unstructure(narration.attempts)},
            thread_context=self._recall.context(
                {"thread": converter.unstructure(thread), "anaphora": self._anaphora}, recalled
            ),
            phase=PhaseMove(expected=record.phase, new=TurnPhase.DELIVERED),
            interactions=recalled.cards,
            card_resolutions=recalled.closing,
        )
        self._recall = self._recall.after(recalled)
        if recalled.cards or recalled.closing:
            self._open_cards = None  # the recall stage opened or closed a card: read them again
        return self._respond_delivered(turn, plan, thread, narration, reduction, report)

    def _respond_delivered(
        self,
        turn: UserTurn,
        plan: UserTurnPlan | None,
        thread: ThreadContext,
        narration: Narration,
        reduction: ReductionPlan,
        report: ExecutionReport,
    ) -> TurnResponse:
        """A delivered turn's bookkeeping (the thread, the acts a follow-up continues, the
        turn's caches dropped) and its response, wherever the reply was stored."""
        self._thread = thread
        if plan is not None and plan.acts:
            self._previous_acts = plan.acts
        self._forget(turn.turn_id)
        return TurnResponse(
            session_id=self._session,
            turn_id=turn.turn_id,
            phase=TurnPhase.DELIVERED,
            blocks=tuple(narration.blocks),
            results=_results(reduction),
            events=report.events,
        )

    async def _fail_interpretation(
        self, turn: UserTurn, failure: InterpretationFailed
    ) -> TurnResponse:
        replay = {
            "turn_id": turn.turn_id,
            "outcome": "interpretation_failed",
            "error": {"code": failure.cause.code, "message": failure.cause.message},
            "problems": converter.unstructure(getattr(failure.cause, "problems", ())),
            "raw": failure.raw,
            "provider_attempts": converter.unstructure(failure.attempts),
        }
        reason = "plan_rejected" if failure.raw is not None else "interpretation_failed"
        return await self._finish_failed(turn, None, None, failure=reason, replay=replay)

    async def _finish_failed(
        self,
        turn: UserTurn,
        plan: UserTurnPlan | None,
        reduction: ReductionPlan | None,
        *,
        failure: str,
        replay: dict[str, Any] | None,
    ) -> TurnResponse:
        record = await self._recorded(turn)
        narration: Narration = await self._narrate_now(
            Narrate(
                turn=turn,
                plan=plan,
                reduction=reduction,
                execution=None,
                cards=(),
                answers=(),
                failure=failure,
            ),
        )
        if replay is not None:
            await self._store.save_replay_record(self._account, turn.turn_id, replay)
        stored = await self._store.save_assistant_turn(
            self._account,
            turn.turn_id,
            [converter.unstructure(b) for b in narration.blocks],
            meta={"failure": failure},
            phase=PhaseMove(expected=record.phase, new=TurnPhase.FAILED),
        )
        self._forget(turn.turn_id)
        return TurnResponse(
            session_id=self._session,
            turn_id=turn.turn_id,
            phase=TurnPhase.FAILED,
            blocks=tuple(converter.structure(b, Block) for b in stored.blocks),
            results=_results(reduction) if reduction else (),
        )

    async def _reload(self, turn: UserTurn, record: TurnRecord) -> TurnResponse:
        stored = await self._store.get_assistant_turn(self._account, turn.turn_id)
        blocks = (
            () if stored is None else tuple(converter.structure(b, Block) for b in stored.blocks)
        )
        reduction = (
            converter.structure(record.reduction, ReductionPlan) if record.reduction else None
        )
        return TurnResponse(
            session_id=self._session,
            turn_id=turn.turn_id,
            phase=record.phase,
            blocks=blocks,
            results=_results(reduction) if reduction else (),
        )

    # -- helpers ----------------------------------------------------------------------------

    async def _cases_of(self, turn: UserTurn, reduction: ReductionPlan) -> dict[str, CaseSnapshot]:
        """Snapshots of every case the turn's results name, for wording (labels): the ones read
        before reduction when this actor has them, else read now. The last one named becomes
        the session's focus for the next turn."""
        ids = [r.case_id for r in _results(reduction) if r.case_id is not None]
        ids += [b.case_id for b in reduction.batches]
        outcome = reduction.interaction_outcome
        if outcome is not None and outcome.case_id is not None:
            ids.append(outcome.case_id)
        known = self._contexts.get(turn.turn_id, {})
        cases: dict[str, CaseSnapshot] = dict(known)
        for case_id in dict.fromkeys(ids):
            snapshot = known.get(case_id) or await self._directory.snapshot(self._account, case_id)
            if snapshot is not None:
                cases[case_id] = snapshot
                self._focus = snapshot.label
        return cases

    async def _answered_card(
        self, turn: UserTurn, reduction: ReductionPlan
    ) -> InteractionToCreate | None:
        outcome = reduction.interaction_outcome
        if outcome is None:
            return None
        record = await self._store.get_interaction(self._account, outcome.interaction_id)
        if record is None:
            return None
        card: InteractionToCreate = converter.structure(record.payload, InteractionToCreate)
        return card

    async def _closed_card(
        self, turn: UserTurn, open_cards: tuple[InteractionToCreate, ...]
    ) -> tuple[str, ...]:
        """The clicked card, if it expired (superseded by a newer card): its click is stale."""
        response = turn.interaction_response
        if response is None or any(c.interaction_id == response.interaction_id for c in open_cards):
            return ()
        record = await self._store.get_interaction(self._account, response.interaction_id)
        if record is None or record.status is not InteractionStatus.EXPIRED:
            return ()  # unknown, or answered already: "nothing new was done"
        return (record.interaction_id,)

    async def _open_cards_now(self) -> tuple[InteractionToCreate, ...]:
        """The session's open cards. Only this actor opens or resolves them, so the list is
        kept between turns and read again after a turn that changes cards (or a failure)."""
        if self._open_cards is None:
            records = await self._store.list_open_interactions(
                self._account, session_id=self._session
            )
            self._open_cards = tuple(
                converter.structure(r.payload, InteractionToCreate) for r in records
            )
        return self._open_cards

    def _plan_of(self, record: TurnRecord) -> UserTurnPlan:
        plan = self._plans.get(record.turn_id)
        return plan if plan is not None else _stored_plan(record)

    def _reduction_of(self, record: TurnRecord) -> ReductionPlan:
        reduction = self._reductions.get(record.turn_id)
        if reduction is not None:
            return reduction
        stored: ReductionPlan = converter.structure(record.reduction, ReductionPlan)
        return stored

    def _forget(self, turn_id: str) -> None:
        caches: tuple[dict[str, Any], ...] = (
            self._plans,
            self._plan_payloads,
            self._admissions,
            self._reductions,
            self._contexts,
            self._reports,
        )
        for cache in caches:
            cache.pop(turn_id, None)

    def _replay_base(self, record: TurnRecord, reduction: ReductionPlan) -> dict[str, Any]:
        """The replay record's head: it names the plan by hash (the plan and the reduction are
        the turn's own write-once payloads) and carries what an auditor asks about."""
        plan_payload = record.plan or {}
        stored = record.reduction or {}
        return {
            "turn_id": record.turn_id,
            "session_id": self._session,
            "workflow": self._workflow,
            "plan_hash": reduction.plan_hash,
            "interpretation": {k: v for k, v in plan_payload.items() if k != "plan"},
            "results": stored.get("results", []),
            "interaction_outcome": stored.get("interaction_outcome"),
        }

    async def _get(self, turn: UserTurn) -> TurnRecord:
        record = await self._store.get_turn(self._account, turn.turn_id)
        if record is None:
            raise LookupError(f"turn {turn.turn_id!r} vanished from the store")
        return record

    async def _reduce_now(self, message: Reduce) -> ReductionPlan:
        direct = self._stages.direct
        if direct is None:
            reduction: ReductionPlan = await self._ask(self._stages.reducer, message)
            return reduction
        return await self._observed("reducer", message, _called(direct.reducer.reduce, message))

    async def _ground_now(self, message: Ground) -> Grounded:
        direct = self._stages.direct
        if direct is None:
            grounded: Grounded = await self._ask(self._stages.grounding, message)
            return grounded
        return await self._observed("grounding", message, direct.grounding.ground(message))

    async def _narrate_now(self, message: Narrate) -> Narration:
        direct = self._stages.direct
        if direct is None or direct.narrator is None:
            narration: Narration = await self._ask(self._stages.narrator, message)
            return narration
        return await self._observed("narrator", message, direct.narrator.narrate(message))

    async def _observed(self, stage: str, message: object, work: Awaitable[T]) -> T:
        """A stage called directly, inside the telemetry span an ask would have; its failure is
        logged and reported as the stage's (the step then fails like a failed ask)."""
        turn_id = message_turn(message)
        try:
            return await observe_stage(turn_id, self._workflow, message, work)
        except Exception as error:
            self._stage_failed(stage, message, error)
            raise

    def _stage_failed(self, stage: str, message: object, error: Exception) -> None:
        logger.error(
            "stage %r failed handling %s",
            stage,
            type(message).__name__,
            exc_info=error,
            extra={"correlation_id": message_turn(message), "actor": stage},
        )
        direct = self._stages.direct
        if direct is not None and direct.on_failure is not None:
            direct.on_failure(stage, error)

    async def _ask(self, ref: ActorRef, message: object) -> Any:
        turn_id = message_turn(message)
        asked = ref.ask(message, timeout=self._settings.ask_timeout, correlation_id=turn_id)
        return await observe_stage(turn_id, self._workflow, message, asked)  # telemetry hook


class _TurnOrder:
    """The session's turn ids in order (as a list of them answers ``in``, ``append``,
    ``remove`` and ``index``), each one's position looked up instead of searched for: a long
    session asks for it on every turn."""

    __slots__ = ("_at", "_ids")

    def __init__(self, ids: Iterable[str] = ()) -> None:
        self._ids = list(ids)
        self._at: dict[str, int] = {}
        self._index_all()

    def _index_all(self) -> None:
        self._at.clear()
        for position, turn_id in enumerate(self._ids):
            self._at.setdefault(turn_id, position)  # the first, as list.index finds it

    def __contains__(self, turn_id: object) -> bool:
        return turn_id in self._at

    def append(self, turn_id: str) -> None:
        self._at.setdefault(turn_id, len(self._ids))
        self._ids.append(turn_id)

    def remove(self, turn_id: str) -> None:
        self._ids.remove(turn_id)
        self._index_all()

    def index(self, turn_id: str) -> int:
        try:
            return self._at[turn_id]
        except KeyError:
            raise ValueError(f"{turn_id!r} is not in list") from None


class _ReplyDraft:
    """A turn's reply but for its execution report: called inside the commit bundle's
    transaction (possibly on the store's thread) with the report, it composes the template
    blocks (pure) and keeps them for the response."""

    def __init__(
        self,
        narrator: NarratorActor,
        message: Narrate,
        thread: ThreadContext,
        recalled: RecallOutcome,
        context: dict[str, Any],
    ) -> None:
        self.message = message
        self.thread = thread
        self.recalled = recalled
        self.narration: Narration | None = None
        self.error: Exception | None = None
        self._narrator = narrator
        self._context = context

    def __call__(self, report: ExecutionReport) -> BundleReply:
        try:
            narration = self._narrator.compose(evolve(self.message, execution=report))
        except Exception as error:
            self.error = error  # reported by the session once the bundle answered
            raise
        reply = BundleReply(
            blocks=[converter.unstructure(b) for b in narration.blocks],
            meta={"narration_attempts": converter.unstructure(narration.attempts)},
            thread_context=self._context,
        )
        self.narration = narration
        return reply


def _unrecorded_record(turn: UserTurn, session_id: str, payload: dict[str, Any]) -> TurnRecord:
    """A live turn as its seal will record it: ``received``, nothing stored yet."""
    return TurnRecord(
        account_id=turn.account_id,
        turn_id=turn.turn_id,
        session_id=session_id,
        payload=payload,
        phase=TurnPhase.RECEIVED,
        plan=None,
        reduction=None,
        created_at=turn.clock,
        phase_changed_at=turn.clock,
    )


def _same_payload(stored: Any, payload: dict[str, Any]) -> bool:
    """Whether a stored user turn is this one (JSON equality: a stored payload was decoded)."""
    def canonical(value: Any) -> str:
        return json.dumps(value, sort_keys=True, default=str)

    return stored == payload or canonical(stored) == canonical(payload)


def _new_cards(reduction: ReductionPlan) -> tuple[NewInteraction, ...]:
    return tuple(
        NewInteraction(
            payload=converter.unstructure(card),
            case_id=card.case_id,
            blocking=card.kind is InteractionKind.CONFIRM_COMMAND,
            interaction_id=card.interaction_id,
        )
        for card in reduction.interactions
    )


async def _called(function: Callable[[M], T], message: M) -> T:
    return function(message)


def message_turn(message: object) -> str | None:
    turn = getattr(message, "turn", None)
    return turn.turn_id if isinstance(turn, UserTurn) else None


def _plan_payload(plan: UserTurnPlan, interpretation: Interpretation | None) -> dict[str, Any]:
    payload: dict[str, Any] = {"plan": converter.unstructure(plan)}
    if interpretation is not None:
        payload.update(
            raw=interpretation.raw,
            provider=interpretation.provider,
            provider_attempts=converter.unstructure(
                interpretation.attempts, tuple[ProviderAttempt, ...]
            ),
            template_hash=interpretation.template_hash,
            references=interpretation.references,
        )
    return payload


def _results(reduction: ReductionPlan) -> tuple[PlannedActResult, ...]:
    outcome = reduction.interaction_outcome
    extra = outcome.results if outcome is not None else ()
    return tuple(reduction.results) + tuple(extra)


def _results_or_none(record: TurnRecord) -> tuple[PlannedActResult, ...]:
    """The stored reduction's results, or none when it cannot be read (a parked turn's reply
    must not depend on the data that may have failed it)."""
    try:
        return _results(converter.structure(record.reduction, ReductionPlan))
    except Exception:
        return ()


def _stored_plan(record: TurnRecord) -> UserTurnPlan:
    if not record.plan:
        raise LookupError(f"turn {record.turn_id!r} has no stored plan")
    plan: UserTurnPlan = converter.structure(record.plan["plan"], UserTurnPlan)
    return plan
