"""Journal entries and execution reports: the pure half of the ExecutionGate.

What the gate writes to the journal for a batch, and how a committed bundle (or, for a turn
that already committed, the journal and events alone) becomes the :class:`ExecutionReport`
the narrator may claim from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe.execution import (
    BATCH_ALREADY_SETTLED,
    BATCH_COMMITTED,
    BatchOutcome,
    BatchStatus,
    CommittedEvent,
    ExecutionReport,
    OutboxNote,
)
from turnframe.lifecycle import JournalStatus
from turnframe.pipeline.batches import BatchRun
from turnframe.results import CommandBatch, ReductionPlan, Rejection
from turnframe.stores.inputs import CaseUpdate, JournalOutcome, NewCase, NewJournalEntry
from turnframe.stores.records import BundleReceipt, EventRecord, JournalRecord


def journal_entry(batch: CommandBatch, index: int, status: JournalStatus) -> NewJournalEntry:
    command = batch.commands[index]
    return NewJournalEntry(
        idempotency_key=command.idempotency_key,
        command_id=command.command_id,
        content_digest=command.content_digest,
        payload={"batch_id": batch.batch_id, "command": converter.unstructure(command)},
        case_id=batch.case_id,
        expected_revision=batch.expected_revision,
        status=status,
    )


def journal_entries(
    batches: Sequence[CommandBatch], status: JournalStatus
) -> list[NewJournalEntry]:
    return [journal_entry(b, i, status) for b in batches for i in range(len(b.commands))]


def admission_entries(reduction: ReductionPlan) -> list[NewJournalEntry]:
    """The journal entries a turn admits at its seal: its ready batches (those that need no
    card) pending, and the batches waiting for a card awaiting confirmation."""
    ready = [b for b in reduction.batches if not needs_card(b)]
    return [
        *journal_entries(ready, JournalStatus.PENDING),
        *journal_entries(reduction.awaiting_batches, JournalStatus.AWAITING_CONFIRMATION),
    ]


@attrs.frozen(kw_only=True)
class Prepared:
    runs: tuple[BatchRun, ...]
    outcomes: tuple[BatchOutcome, ...]
    journal: tuple[JournalOutcome, ...]
    new_cases: tuple[NewCase, ...]
    updates: tuple[CaseUpdate, ...]

    @property
    def replay_commands(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for outcome in self.journal:
            rows.append(
                {
                    "idempotency_key": outcome.idempotency_key,
                    "status": outcome.status.value,
                    "outcome": outcome.outcome,
                }
            )
        return rows


def needs_card(batch: CommandBatch) -> bool:
    return any(c.needs_confirmation for c in batch.commands)


def label_of(batch: CommandBatch) -> str:
    for command in batch.commands:
        label = command.args.get("label")
        if isinstance(label, str) and label:
            return label
    return batch.case_id


def journal_outcome(run: BatchRun) -> dict[str, Any]:
    outcome: dict[str, Any] = {"batch_id": run.batch.batch_id, "reason": run.reason}
    if run.new_revision is not None:
        outcome["revision"] = run.new_revision
    if run.rejection is not None:
        outcome["rejection"] = converter.unstructure(run.rejection)
    return outcome


def failed(
    batch: CommandBatch,
    reason: str,
    rejection: Rejection | None = None,
    *,
    status: BatchStatus = BatchStatus.FAILED,
) -> BatchOutcome:
    return BatchOutcome(
        batch_id=batch.batch_id,
        case_id=batch.case_id,
        status=status,
        reason=reason,
        command_ids=tuple(c.command_id for c in batch.commands),
        rejection=rejection,
    )


def committed_event(record: EventRecord) -> CommittedEvent:
    return CommittedEvent(
        seq=record.seq,
        case_id=record.case_id,
        revision=record.revision,
        name=record.type,
        data=record.payload,
        command_id=record.command_id,
    )


def replayed(
    batch: CommandBatch,
    entries: Sequence[JournalRecord | None],
    events: Sequence[EventRecord] = (),
) -> BatchOutcome:
    ids = {c.command_id for c in batch.commands}
    committed = all(e is not None and e.status is JournalStatus.COMMITTED for e in entries)
    outcome = next((e.outcome for e in entries if e is not None and e.outcome), None) or {}
    rejection = outcome.get("rejection")
    return BatchOutcome(
        batch_id=batch.batch_id,
        case_id=batch.case_id,
        status=BatchStatus.COMMITTED if committed else BatchStatus.FAILED,
        reason=BATCH_COMMITTED if committed else outcome.get("reason", BATCH_ALREADY_SETTLED),
        command_ids=tuple(c.command_id for c in batch.commands),
        events=tuple(committed_event(e) for e in events if e.command_id in ids),
        new_revision=outcome.get("revision"),
        rejection=converter.structure(rejection, Rejection) if rejection else None,
        replayed=True,
    )


def report_of(plan: Prepared, receipt: BundleReceipt) -> ExecutionReport:
    by_command: dict[str, list[CommittedEvent]] = {}
    for record in receipt.events:
        by_command.setdefault(record.command_id or "", []).append(committed_event(record))
    effects = {o.command_id: o for o in receipt.outbox}
    outcomes = list(plan.outcomes)
    for run in plan.runs:
        ids = tuple(c.command_id for c in run.batch.commands)
        if not run.ok:
            continue
        notes = tuple(
            OutboxNote(
                effect_id=effects[i].effect_id,
                channel=str(effects[i].payload.get("channel", "")),
                idempotency_key=effects[i].idempotency_key,
            )
            for i in ids
            if i in effects
        )
        outcomes.append(
            BatchOutcome(
                batch_id=run.batch.batch_id,
                case_id=run.batch.case_id,
                status=BatchStatus.COMMITTED,
                reason=BATCH_COMMITTED,
                command_ids=ids,
                events=tuple(e for i in ids for e in by_command.get(i, [])),
                new_revision=run.new_revision,
                effects=notes,
            )
        )
    return ExecutionReport(outcomes=tuple(outcomes))
