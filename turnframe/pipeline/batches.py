"""Running command batches on case state: pure, so the gate's only I/O is the store.

A batch commits whole or not at all under one revision bump. The workflow's handlers run on
the case state as it is at execution (the reducer ran them once to validate; state may have
moved since, which the expected revision catches).
"""

from __future__ import annotations

from typing import Any

import attrs

from turnframe._converter import converter
from turnframe.execution import (
    BATCH_REJECTED_BY_WORKFLOW,
    BATCH_REVISION_CONFLICT,
)
from turnframe.outbox import effect_idempotency_key, outbox_effect
from turnframe.results import CommandBatch, Rejection
from turnframe.stores.inputs import NewEvent, NewOutboxEffect
from turnframe.workflow import Workflow, apply_events, external_effect, run_command


@attrs.frozen(kw_only=True)
class BatchRun:
    """What running one batch produced, before it is committed."""

    batch: CommandBatch
    ok: bool
    reason: str
    state_after: Any = None
    new_revision: int | None = None
    events: tuple[NewEvent, ...] = ()
    outbox: tuple[NewOutboxEffect, ...] = ()
    rejection: Rejection | None = None


def run_batch(
    batch: CommandBatch,
    workflow: Workflow[Any],
    state: Any,
    current_revision: int,
) -> BatchRun:
    """Run every command of ``batch`` on ``state`` (the case at ``current_revision``)."""
    if current_revision != batch.expected_revision:
        return BatchRun(batch=batch, ok=False, reason=BATCH_REVISION_CONFLICT)
    new_revision = batch.expected_revision + 1
    events: list[NewEvent] = []
    outbox: list[NewOutboxEffect] = []
    for command in batch.commands:
        produced = run_command(workflow, state, command.name, command.args)
        if isinstance(produced, Rejection):
            return BatchRun(
                batch=batch, ok=False, reason=BATCH_REJECTED_BY_WORKFLOW, rejection=produced
            )
        state = apply_events(workflow, state, produced)
        events.extend(
            NewEvent(
                case_id=batch.case_id,
                revision=new_revision,
                type=event.name,
                payload=event.data,
                command_id=command.command_id,
            )
            for event in produced
        )
        effect = external_effect(workflow, state, command.name, command.args)
        if effect is not None:
            outbox.append(
                outbox_effect(
                    effect,
                    idempotency_key=effect_idempotency_key(command.idempotency_key),
                    case_id=batch.case_id,
                    command_id=command.command_id,
                )
            )
    return BatchRun(
        batch=batch,
        ok=True,
        reason="turnframe.batch.committed",
        state_after=state,
        new_revision=new_revision,
        events=tuple(events),
        outbox=tuple(outbox),
    )


def state_json(workflow: Workflow[Any], state: Any) -> Any:
    return converter.unstructure(state, unstructure_as=workflow.state_type)
