"""Checks an invariant checker or a test can run on composed blocks."""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.execution import BatchStatus, ExecutionReport
from turnframe.response import Block, BlockKind
from turnframe.results import ActRef, ReductionPlan


def uncovered_acts(blocks: Sequence[Block], reduction: ReductionPlan) -> tuple[ActRef, ...]:
    """The acts of ``reduction`` no block renders (always empty for composed blocks)."""
    covered = {ActRef(index=i) for b in blocks for i in b.acts}
    covered |= {
        ActRef(index=p["index"], interaction_id=p["interaction_id"])
        for b in blocks
        for p in b.data.get("pending_acts", ())
    }
    expected = [ActRef(index=r.act_index) for r in reduction.results]
    decided = reduction.interaction_outcome
    if decided is not None:
        expected += [
            ActRef(index=r.act_index, interaction_id=decided.interaction_id)
            for r in decided.results
        ]
    return tuple(ref for ref in expected if ref not in covered)


def unbacked_receipts(
    blocks: Sequence[Block], execution: ExecutionReport | None
) -> tuple[Block, ...]:
    """Receipts that no committed batch's events back (always empty for composed blocks)."""
    committed = {
        (o.batch_id, e.seq)
        for o in (execution.outcomes if execution is not None else ())
        if o.status is BatchStatus.COMMITTED
        for e in o.events
    }
    return tuple(
        b
        for b in blocks
        if b.kind is BlockKind.RECEIPT
        and (
            not b.data.get("events")
            or any((b.data.get("batch_id"), seq) not in committed for seq in b.data["events"])
        )
    )
