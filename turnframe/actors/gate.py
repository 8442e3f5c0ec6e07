"""The ExecutionGate: the one authority on retries and the only actor that runs commands.

Per turn the gate is OPEN until the first command is admitted to the journal, then SEALED.
Admission and the phase move to ``executing`` are one transaction, so the seal is durable: the
gate's answer to :class:`MayRetry` comes from the store and survives a crash of any actor,
the gate included. Once sealed, nothing re-interprets or re-reduces the turn; a resumed turn
runs its commands again by idempotency key, and settled entries are never run twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe._evolve import evolve
from turnframe._retry import retrying
from turnframe.actors.actor import Actor, handler
from turnframe.actors.hot_cases import case_guard
from turnframe.actors.stages import Execute, MayRetry, ReplyOfReport, SettledReport
from turnframe.errors import TurnframeError
from turnframe.execution import (
    BATCH_AWAITING_CONFIRMATION,
    BATCH_DECLINED,
    BATCH_KEY_REUSED,
    BATCH_REVISION_CONFLICT,
    BatchOutcome,
    BatchStatus,
    ExecutionReport,
    OutboxNote,
)
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.pipeline.batches import BatchRun, run_batch, state_json
from turnframe.pipeline.reports import (
    Prepared,
    admission_entries,
    failed,
    journal_entry,
    journal_outcome,
    label_of,
    needs_card,
    replayed,
    report_of,
)
from turnframe.providers.base import Purpose
from turnframe.results import (
    CommandBatch,
    InteractionOutcomeStatus,
    InteractionToCreate,
    ReductionPlan,
)
from turnframe.stores.contention import guarding
from turnframe.stores.errors import RevisionConflict, StoreError
from turnframe.stores.inputs import (
    BundleReply,
    CardResolution,
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewCase,
    PhaseMove,
    ReplyComposer,
)
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import (
    AdmissionVerdict,
    BundleReceipt,
    InteractionStatus,
    JournalRecord,
)
from turnframe.workflow import CaseSnapshot, Workflow

_SETTLED = (JournalStatus.COMMITTED, JournalStatus.FAILED)


class TurnContended(TurnframeError):
    """Other turns kept moving this turn's cases while it committed; nothing was written."""

    code = "turnframe.gate.contended"

    def __init__(self, turn_id: str) -> None:
        super().__init__(
            f"turn {turn_id!r}: its cases kept changing during the commit",
            hint="the turn stays executing; recovery resumes it by idempotency key",
        )


@attrs.frozen(kw_only=True)
class _Work:
    """The batches this turn runs now, and those it only journals or settles."""

    ready: tuple[CommandBatch, ...]
    confirmed: tuple[CommandBatch, ...]
    awaiting: tuple[CommandBatch, ...]
    declined: tuple[CommandBatch, ...]
    card_resolutions: tuple[CardResolution, ...]


class ExecutionGate(Actor):
    """Admits, runs and commits command batches; answers whether a turn may be retried.

    A store error is an answer, not a crash: the asker (the session) sees it and resumes the
    turn from the phase the store holds.
    """

    expected_errors = (StoreError, TurnContended)
    stateless = True  # every answer comes from the store

    def __init__(
        self,
        *,
        store: Store,
        workflows: Mapping[str, Workflow[Any]],
        on_outbox: Callable[[], None] | None = None,
        inside_commit: InsideTransactionHook | None = None,
    ) -> None:
        self._store = store
        self._workflows = workflows
        self._on_outbox = on_outbox
        self._inside_commit = inside_commit

    @handler
    async def may_retry(self, message: MayRetry) -> bool:
        if message.purpose is Purpose.NARRATE:
            return True  # narration executes nothing
        turn = await self._store.get_turn(message.account_id, message.turn_id)
        if turn is not None and turn.phase.is_sealed:
            return False
        return not await self._store.list_journal(message.account_id, message.turn_id)

    @handler
    async def execute(self, message: Execute) -> ExecutionReport:
        turn, reduction = message.turn, message.reduction
        account = turn.account_id
        if message.phase not in (TurnPhase.REDUCED, TurnPhase.EXECUTING):
            return await self.settled_report(account, turn.turn_id, reduction)
        work = await self._work(account, reduction)
        phase = message.phase
        admitted: dict[str, JournalRecord] = {}
        refused: set[str] = set()
        admissions = message.admitted
        # The live path's seal admitted the entries already: they are built only to admit.
        entries = admission_entries(reduction) if admissions is None else []
        if admissions is None and (entries or work.confirmed or work.declined):
            # Admission is the seal: from this transaction on, nothing re-interprets the turn.
            # (On the live path the session's seal transaction admitted the entries already.)
            seal = None
            if phase is TurnPhase.REDUCED:
                seal = PhaseMove(expected=TurnPhase.REDUCED, new=TurnPhase.EXECUTING)
                phase = TurnPhase.EXECUTING
            guard = None
            if message.guarded and seal is not None and work.ready:
                guard = case_guard(account, turn.turn_id, work.ready)
            with guarding(guard):  # hot cases (ADR 0018)
                admitted_now = await self._store.admit(account, turn.turn_id, entries, phase=seal)
            admissions = tuple(admitted_now)
        for admission in admissions or ():
            key = admission.entry.idempotency_key
            admitted[key] = admission.entry
            if admission.verdict is AdmissionVerdict.REFUSED_DIFFERENT_COMMAND:
                refused.add(key)
        for batch in work.confirmed + work.declined:
            for command in batch.commands:
                entry = await self._store.get_journal_entry(account, command.idempotency_key)
                if entry is not None:
                    admitted[command.idempotency_key] = entry
        return await self._commit(
            turn.turn_id,
            account,
            phase,
            work,
            admitted,
            refused,
            message.replay,
            message.cases,
            message.reply,
        )

    async def _work(self, account: str, reduction: ReductionPlan) -> _Work:
        confirmed: tuple[CommandBatch, ...] = ()
        declined: tuple[CommandBatch, ...] = ()
        resolutions: list[CardResolution] = []
        outcome = reduction.interaction_outcome
        if outcome is not None:
            card = await self._card(account, outcome.interaction_id)
            resolution = {"option_id": outcome.option_id, "status": outcome.status.value}
            if card is not None:
                if outcome.status is InteractionOutcomeStatus.CONFIRMED:
                    wanted = set(outcome.authorized_command_ids)
                    confirmed = tuple(
                        b for b in card.awaiting_batches if b.commands[0].command_id in wanted
                    )
                    resolutions.append(
                        CardResolution(interaction_id=outcome.interaction_id, resolution=resolution)
                    )
                elif outcome.status is InteractionOutcomeStatus.DECLINED:
                    declined = card.awaiting_batches
                    resolutions.append(
                        CardResolution(interaction_id=outcome.interaction_id, resolution=resolution)
                    )
                elif outcome.status in (
                    InteractionOutcomeStatus.TARGET_SELECTED,
                    InteractionOutcomeStatus.ARGUMENT_PROVIDED,
                    InteractionOutcomeStatus.CHANGE_CHOSEN,
                ):
                    resolutions.append(
                        CardResolution(interaction_id=outcome.interaction_id, resolution=resolution)
                    )
                elif outcome.status is InteractionOutcomeStatus.STALE:
                    declined = card.awaiting_batches
                    resolutions.append(
                        CardResolution(
                            interaction_id=outcome.interaction_id,
                            status=InteractionStatus.EXPIRED,
                            resolution=resolution,
                        )
                    )
        for interaction_id in reduction.superseded_interaction_ids:
            if await self._card(account, interaction_id) is not None:
                resolutions.append(
                    CardResolution(interaction_id=interaction_id, status=InteractionStatus.EXPIRED)
                )
        return _Work(
            ready=tuple(b for b in reduction.batches if not needs_card(b)),
            confirmed=confirmed,
            awaiting=reduction.awaiting_batches,
            declined=declined,
            card_resolutions=tuple(resolutions),
        )

    async def _card(self, account: str, interaction_id: str) -> InteractionToCreate | None:
        record = await self._store.get_interaction(account, interaction_id)
        if record is None or record.status is not InteractionStatus.OPEN:
            return None
        card: InteractionToCreate = converter.structure(record.payload, InteractionToCreate)
        return card

    async def _commit(
        self,
        turn_id: str,
        account: str,
        phase: TurnPhase,
        work: _Work,
        admitted: Mapping[str, JournalRecord],
        refused: set[str],
        replay: dict[str, Any],
        snapshots: Mapping[str, CaseSnapshot],
        reply: ReplyOfReport | None = None,
    ) -> ExecutionReport:
        # A stale revision found at commit (another turn moved the case) fails that batch; the
        # rest commit. Two passes at most: the second one sees the revisions that won.
        passes = retrying(retry_on=lambda error: isinstance(error, RevisionConflict), attempts=2)
        try:
            async for attempt in passes:
                with attempt:
                    return await self._commit_pass(
                        turn_id,
                        account,
                        phase,
                        work,
                        admitted,
                        refused,
                        replay,
                        # The first pass runs on the snapshots read before reduction; the
                        # commit's revision check catches a case that moved since, and the
                        # second pass reloads.
                        snapshots if attempt.retry_state.attempt_number == 1 else {},
                        reply,
                    )
        except RevisionConflict:
            raise TurnContended(turn_id) from None
        raise AssertionError("tenacity either returns the report or re-raises the error")

    async def _commit_pass(
        self,
        turn_id: str,
        account: str,
        phase: TurnPhase,
        work: _Work,
        admitted: Mapping[str, JournalRecord],
        refused: set[str],
        replay: dict[str, Any],
        known: Mapping[str, CaseSnapshot],
        reply: ReplyOfReport | None = None,
    ) -> ExecutionReport:
        """One pass: prepare every batch on ``known`` snapshots (reloading the others) and
        commit them in one bundle; a stale revision raises :class:`RevisionConflict`."""
        plan = await self._prepare(account, work, admitted, refused, known)
        bundle = CommitBundle(
            account_id=account,
            turn_id=turn_id,
            new_cases=plan.new_cases,
            journal_outcomes=plan.journal,
            case_updates=plan.updates,
            events=tuple(e for run in plan.runs if run.ok for e in run.events),
            card_resolutions=work.card_resolutions,
            outbox=tuple(o for run in plan.runs if run.ok for o in run.outbox),
            replay_record={**replay, "commands": plan.replay_commands},
            phase=PhaseMove(expected=phase, new=TurnPhase.COMMITTED),
            reply=None if reply is None else _composing(plan, reply),
        )
        receipt = await self._store.commit_bundle(bundle, inside_transaction=self._inside_commit)
        if bundle.outbox and self._on_outbox is not None:
            self._on_outbox()
        report = report_of(plan, receipt)
        if receipt.phase is TurnPhase.DELIVERED:
            return evolve(report, reply_stored=True)
        return report

    async def _prepare(
        self,
        account: str,
        work: _Work,
        admitted: Mapping[str, JournalRecord],
        refused: set[str],
        snapshots: Mapping[str, CaseSnapshot],
    ) -> Prepared:
        runs: list[BatchRun] = []
        outcomes: list[BatchOutcome] = []
        journal: list[JournalOutcome] = []
        new_cases: list[NewCase] = []
        updates: list[CaseUpdate] = []
        states: dict[str, tuple[Any, int]] = {}
        for batch in work.ready + work.confirmed:
            keys = [c.idempotency_key for c in batch.commands]
            entries = [admitted.get(k) for k in keys]
            if any(k in refused for k in keys):
                outcomes.append(failed(batch, BATCH_KEY_REUSED))
                continue
            if entries and all(e is not None and e.status in _SETTLED for e in entries):
                outcomes.append(replayed(batch, entries))
                continue
            workflow = self._workflows[batch.workflow]
            if batch.case_id not in states:
                known = snapshots.get(batch.case_id)
                if known is not None and known.revision == batch.expected_revision:
                    states[batch.case_id] = (known.state, known.revision)
                else:
                    states[batch.case_id] = await self._load(account, batch, workflow)
            state, revision = states[batch.case_id]
            run = run_batch(batch, workflow, state, revision)
            runs.append(run)
            status = JournalStatus.COMMITTED if run.ok else JournalStatus.FAILED
            for entry in entries:
                if entry is not None and entry.status not in _SETTLED:
                    journal.append(
                        JournalOutcome(
                            idempotency_key=entry.idempotency_key,
                            expected=entry.status,
                            status=status,
                            outcome=journal_outcome(run),
                        )
                    )
            if not run.ok:
                outcomes.append(failed(batch, run.reason, run.rejection))
                continue
            assert run.new_revision is not None
            states[batch.case_id] = (run.state_after, run.new_revision)
            if batch.creates_case:
                label = label_of(batch)
                new_cases.append(
                    NewCase(
                        case_id=batch.case_id,
                        workflow=batch.workflow,
                        label=label,
                        state=state_json(workflow, run.state_after),
                        revision=run.new_revision,
                    )
                )
            else:
                updates.append(
                    CaseUpdate(
                        case_id=batch.case_id,
                        expected_revision=batch.expected_revision,
                        new_revision=run.new_revision,
                        state=state_json(workflow, run.state_after),
                    )
                )
        for batch in work.awaiting:
            outcomes.append(
                BatchOutcome(
                    batch_id=batch.batch_id,
                    case_id=batch.case_id,
                    status=BatchStatus.AWAITING_CONFIRMATION,
                    reason=BATCH_AWAITING_CONFIRMATION,
                    command_ids=tuple(c.command_id for c in batch.commands),
                )
            )
        for batch in work.declined:
            for command in batch.commands:
                entry = admitted.get(command.idempotency_key)
                if entry is not None and entry.status is JournalStatus.AWAITING_CONFIRMATION:
                    journal.append(
                        JournalOutcome(
                            idempotency_key=entry.idempotency_key,
                            expected=entry.status,
                            status=JournalStatus.FAILED,
                            outcome={"reason": BATCH_DECLINED},
                        )
                    )
            outcomes.append(failed(batch, BATCH_DECLINED, status=BatchStatus.DECLINED))
        return Prepared(
            runs=tuple(runs),
            outcomes=tuple(outcomes),
            journal=tuple(journal),
            new_cases=tuple(new_cases),
            updates=tuple(updates),
        )

    async def _load(
        self, account: str, batch: CommandBatch, workflow: Workflow[Any]
    ) -> tuple[Any, int]:
        record = await self._store.get_case(account, batch.case_id)
        if record is None:
            return workflow.initial_state(), 0
        return converter.structure(record.state, workflow.state_type), record.revision

    @handler
    async def report(self, message: SettledReport) -> ExecutionReport:
        turn = message.turn
        return await self.settled_report(turn.account_id, turn.turn_id, message.reduction)

    async def settled_report(
        self, account: str, turn_id: str, reduction: ReductionPlan
    ) -> ExecutionReport:
        """The report of a committed turn, rebuilt from the journal and events alone."""
        events = await self._store.list_events(account, turn_id=turn_id)
        effects = {
            row.command_id: OutboxNote(
                effect_id=row.effect_id,
                channel=str(row.payload.get("channel", "")),
                idempotency_key=row.idempotency_key,
            )
            for row in await self._store.list_outbox(account, turn_id=turn_id)
        }
        outcomes: list[BatchOutcome] = []
        batches = [*reduction.batches]
        outcome = reduction.interaction_outcome
        if outcome is not None and outcome.status is InteractionOutcomeStatus.CONFIRMED:
            record = await self._store.get_interaction(account, outcome.interaction_id)
            if record is not None:
                card = converter.structure(record.payload, InteractionToCreate)
                wanted = set(outcome.authorized_command_ids)
                batches += [b for b in card.awaiting_batches if b.commands[0].command_id in wanted]
        for batch in batches:
            entries = [
                await self._store.get_journal_entry(account, c.idempotency_key)
                for c in batch.commands
            ]
            if needs_card(batch) and all(
                e is not None and e.status is JournalStatus.AWAITING_CONFIRMATION for e in entries
            ):
                outcomes.append(
                    BatchOutcome(
                        batch_id=batch.batch_id,
                        case_id=batch.case_id,
                        status=BatchStatus.AWAITING_CONFIRMATION,
                        reason=BATCH_AWAITING_CONFIRMATION,
                        command_ids=tuple(c.command_id for c in batch.commands),
                    )
                )
                continue
            settled = replayed(batch, entries, events)
            notes = tuple(effects[c] for c in settled.command_ids if c in effects)
            outcomes.append(attrs.evolve(settled, effects=notes) if notes else settled)
        return ExecutionReport(outcomes=tuple(outcomes))


def _composing(plan: Prepared, reply: ReplyOfReport) -> ReplyComposer:
    """The session's reply, as the store calls it inside the bundle: on the report the receipt
    makes (its events with their sequence numbers)."""

    def compose(receipt: BundleReceipt) -> BundleReply | None:
        return reply(report_of(plan, receipt))

    return compose


__all__ = ["BATCH_REVISION_CONFLICT", "ExecutionGate", "journal_entry"]
