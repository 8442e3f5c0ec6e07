"""Properties over random execution reports: receipts only from committed events, every act
rendered, and the same report always gives the same blocks."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from narration_kit import ANNA, BOB, CARLA, Turn, answer_all, commit, snapshots

from turnframe.execution import BATCH_STORE_FAILURE, BatchStatus, ExecutionReport
from turnframe.narration import compose_blocks, unbacked_receipts, uncovered_acts
from turnframe.response import Block, BlockKind


def _turn() -> Turn:
    t = Turn(
        "Set Bob's note to hi and his passengers to three. Tag Bob's trip as work and as fun. "
        "Book Carla's trip. Withdraw Anna's trip. What's Bob's status?"
    )
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    t.set(BOB, "passengers", "three", "his passengers to three")
    t.op(BOB, "tag", "Tag Bob's trip as work", tag="work")
    t.op(BOB, "tag", "as fun", tag="fun")
    t.op(CARLA, "book", "Book Carla's trip")
    t.op(ANNA, "withdraw", "Withdraw Anna's trip")
    t.ask("What's Bob's status?", target=BOB, question="status")
    return t


TURN = _turn()
REDUCTION = TURN.reduce()
CASES = snapshots()
COMMITTED = commit(REDUCTION.batches, CASES)
ANSWERS = answer_all(TURN, REDUCTION, CASES)


@st.composite
def reports(draw: st.DrawFn) -> ExecutionReport:
    """Each batch: committed, failed (sometimes with stray events), awaiting or absent."""
    outcomes = []
    for outcome in COMMITTED.outcomes:
        fate = draw(st.sampled_from(["committed", "failed", "awaiting", "absent", "no_events"]))
        keep_events = draw(st.booleans())
        replayed = draw(st.booleans())
        if fate == "absent":
            continue
        if fate == "committed":
            outcomes.append(attrs.evolve(outcome, replayed=replayed))
        elif fate == "no_events":
            outcomes.append(attrs.evolve(outcome, events=(), effects=()))
        else:
            status = BatchStatus.FAILED if fate == "failed" else BatchStatus.AWAITING_CONFIRMATION
            events = outcome.events if keep_events else ()
            outcomes.append(
                attrs.evolve(outcome, status=status, reason=BATCH_STORE_FAILURE, events=events)
            )
    return ExecutionReport(outcomes=tuple(draw(st.permutations(outcomes))))


def _compose(report: ExecutionReport, *, persisted: bool) -> tuple[Block, ...]:
    return compose_blocks(
        turn=TURN.turn,
        plan=TURN.plan,
        reduction=REDUCTION,
        execution=report,
        cards=REDUCTION.interactions if persisted else (),
        answers=ANSWERS,
        cases=CASES,
    )


@settings(max_examples=200, deadline=None)
@given(reports(), st.booleans())
def test_no_receipt_without_a_committed_event(report: ExecutionReport, persisted: bool) -> None:
    blocks = _compose(report, persisted=persisted)
    assert unbacked_receipts(blocks, report) == ()
    receipted = {b.data["batch_id"] for b in blocks if b.kind is BlockKind.RECEIPT}
    committed = {
        o.batch_id for o in report.outcomes if o.status is BatchStatus.COMMITTED and o.events
    }
    assert receipted == committed


@settings(max_examples=200, deadline=None)
@given(reports(), st.booleans())
def test_every_act_is_rendered_whatever_execution_did(
    report: ExecutionReport, persisted: bool
) -> None:
    blocks = _compose(report, persisted=persisted)
    assert uncovered_acts(blocks, REDUCTION) == ()
    if not persisted:
        assert not any(b.kind is BlockKind.CARD or "card" in b.text for b in blocks)


@settings(max_examples=50, deadline=None)
@given(reports())
def test_the_same_report_gives_the_same_blocks(report: ExecutionReport) -> None:
    assert _compose(report, persisted=True) == _compose(report, persisted=True)
