"""Receipts come only from committed events; failures and effects say what they are."""

from __future__ import annotations

import attrs
from narration_kit import BOB, CARLA, Turn, commit, narrate, snapshots

from turnframe.execution import (
    BATCH_REJECTED_BY_WORKFLOW,
    BATCH_REVISION_CONFLICT,
    BatchStatus,
    ExecutionReport,
)
from turnframe.narration import codes, unbacked_receipts
from turnframe.plan import NewCaseTarget
from turnframe.response import BlockKind
from turnframe.results import Rejection


def _two_fields() -> Turn:
    t = Turn("Set Bob's travel date to Friday and the note to window seat.")
    t.set(BOB, "travel_date", "Friday", "Set Bob's travel date to Friday")
    t.set(BOB, "note", "window seat", "the note to window seat")
    return t


def _failed(
    report: ExecutionReport, *, reason: str, rejection: Rejection | None = None
) -> ExecutionReport:
    outcomes = tuple(
        attrs.evolve(
            o,
            status=BatchStatus.FAILED,
            reason=reason,
            rejection=rejection,
            events=(),
            new_revision=None,
        )
        for o in report.outcomes
    )
    return ExecutionReport(outcomes=outcomes)


def test_several_fields_of_one_batch_make_one_receipt_listing_each_change() -> None:
    (receipt,) = narrate(_two_fields()).of_kind(BlockKind.RECEIPT)
    assert receipt.text == (
        "Trip “Bob”: travel date set to “2026-01-09”; note set to “window seat”."
    )
    assert receipt.acts == (0, 1)
    assert receipt.data["revision"] == 3


def test_a_failed_command_yields_no_receipt_but_a_command_failed_notice() -> None:
    t = _two_fields()
    committed = commit(t.reduce().batches, snapshots())
    n = narrate(t, execution=_failed(committed, reason=BATCH_REVISION_CONFLICT))
    assert n.of_kind(BlockKind.RECEIPT) == []
    (notice,) = n.blocks
    assert (notice.code, notice.acts) == (codes.NOTICE_COMMAND_FAILED, (0, 1))
    assert notice.text == (
        "Not done: travel date to “Friday”; note to “window seat” on Trip “Bob” "
        "(the case changed in the meantime, so nothing was changed)."
    )


def test_a_workflow_refusal_at_commit_shows_the_workflows_message() -> None:
    t = _two_fields()
    refusal = Rejection(code="trip.locked", message="The trip is locked")
    committed = commit(t.reduce().batches, snapshots())
    failed = _failed(committed, reason=BATCH_REJECTED_BY_WORKFLOW, rejection=refusal)
    (notice,) = narrate(t, execution=failed).blocks
    assert notice.text.endswith("on Trip “Bob”. The trip is locked.")


def test_a_failed_batch_with_events_reported_still_yields_no_receipt() -> None:
    t = _two_fields()
    committed = commit(t.reduce().batches, snapshots())
    odd = ExecutionReport(
        outcomes=tuple(attrs.evolve(o, status=BatchStatus.FAILED) for o in committed.outcomes)
    )
    assert narrate(t, execution=odd).of_kind(BlockKind.RECEIPT) == []


def test_a_replayed_outcome_renders_the_same_receipt() -> None:
    t = _two_fields()
    batches = t.reduce().batches
    first = narrate(t, execution=commit(batches, snapshots()))
    again = narrate(t, execution=commit(batches, snapshots(), replayed=True))
    assert again.blocks == first.blocks


def test_a_committed_command_without_events_is_a_no_change_notice_not_a_receipt() -> None:
    t = Turn("Tag Bob's trip as work.")
    t.op(BOB, "tag", "Tag Bob's trip as work", tag="work")
    committed = commit(t.reduce().batches, snapshots())
    empty = ExecutionReport(outcomes=tuple(attrs.evolve(o, events=()) for o in committed.outcomes))
    (block,) = narrate(t, execution=empty).blocks
    assert (block.code, block.text) == (
        codes.NOTICE_NO_CHANGE,
        "Nothing changed: tag on Trip “Bob” (it had no effect).",
    )


def test_an_external_effect_is_reported_as_verification_in_progress() -> None:
    t = Turn("Book Carla's trip.")
    t.op(CARLA, "book", "Book Carla's trip")
    n = narrate(t)
    assert [(b.code, b.text) for b in n.blocks] == [
        (codes.RECEIPT_COMMITTED, "Trip “Carla”: booking requested."),
        (
            codes.NOTICE_VERIFICATION_IN_PROGRESS,
            "In progress: Trip “Carla” was sent to “booking”, which has not confirmed it yet.",
        ),
    ]


def test_a_new_case_is_receipted_under_its_label() -> None:
    t = Turn("New trip for Dora to Lisbon.")
    t.start("Dora", "New trip for Dora")
    t.set(NewCaseTarget(start_act=0), "destination", "Lisbon", "to Lisbon")
    (receipt,) = narrate(t).of_kind(BlockKind.RECEIPT)
    assert receipt.text == "Trip “Dora”: started; destination set to “Lisbon”."
    assert receipt.acts == (0, 1)


def test_every_receipt_is_backed_by_committed_events() -> None:
    n = narrate(_two_fields())
    assert unbacked_receipts(n.blocks, n.execution) == ()


def test_without_snapshots_a_case_is_named_by_the_label_the_user_gave() -> None:
    t = Turn("Set Bob's note to hi.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    (receipt,) = narrate(t, with_snapshots=False).blocks
    assert receipt.text == "Trip “Bob”: note set to “hi”."
