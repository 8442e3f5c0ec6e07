"""``compose_blocks(…) -> tuple[Block, ...]``: the pure half of the NarratorActor.

Blocks follow the turn: a turn-level failure first, then what the answered card decided, then
the acts in the user's order, each block at the first act it covers (a receipt where its
batch's first act stands). At one act: receipt, notice, card, answer, text. Block ids are
digests of (account, turn, position, kind, code, acts), so the same inputs give the same bytes.
Every act of the reduction is covered by at least one block; a response is never empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from turnframe._hashing import digest
from turnframe.execution import ExecutionReport
from turnframe.grounding import Answer
from turnframe.grounding.wording import quote
from turnframe.messages import UserTurn
from turnframe.narration import codes
from turnframe.narration.acts import answer_draft, render_units
from turnframe.narration.decision import TURN_LEVEL_FAILURES, render_decision, render_failure
from turnframe.narration.draft import Draft
from turnframe.narration.facts import gather
from turnframe.narration.failure import (
    NarrationError,
    TurnFailure,
    TurnFailureKind,
    as_failure,
)
from turnframe.narration.outcomes import render_outcomes
from turnframe.plan import Evidence, UserTurnPlan
from turnframe.response import Block, BlockKind
from turnframe.results import ActRef, InteractionKind, InteractionToCreate, ReductionPlan
from turnframe.workflow import CaseSnapshot, EventDescriber

BLOCK_ID_DOMAIN = "response-block/1"

_KIND_ORDER = {
    BlockKind.RECEIPT: 0,
    BlockKind.NOTICE: 1,
    BlockKind.CARD: 2,
    BlockKind.ANSWER: 3,
    BlockKind.TEXT: 4,
}
_NO_CASES: Mapping[str, CaseSnapshot] = MappingProxyType({})


def compose_blocks(
    *,
    turn: UserTurn,
    plan: UserTurnPlan | None,
    reduction: ReductionPlan | None,
    execution: ExecutionReport | None,
    cards: Sequence[InteractionToCreate],
    answers: Sequence[Answer],
    failure: TurnFailure | TurnFailureKind | str | None = None,
    cases: Mapping[str, CaseSnapshot] = _NO_CASES,
    answered: InteractionToCreate | None = None,
    describers: Mapping[str, EventDescriber] | None = None,
    recall: Sequence[Draft] = (),
) -> tuple[Block, ...]:
    """The turn's ordered response blocks.

    ``cards`` are the interactions actually persisted for this turn; ``cases`` the snapshots the
    turn read (for labels); ``answered`` the card this turn's click answered, if any (for naming
    its pending acts). ``failure`` may be a :class:`TurnFailure`, a :class:`TurnFailureKind` or
    its value (``"cards_not_persisted"``). ``recall`` are the recall stage's drafts: they answer
    the recall acts they name (and stand first when they name none). After a turn-level
    failure (``interpretation_failed``, ``plan_rejected``) only the failure is said, with
    receipts for any committed batch. Raises :class:`NarrationError` when a plan is given
    without its reduction and no failure explains why, or for an unknown failure name.
    """
    failure = as_failure(failure)
    drafts = render_failure(failure)
    if reduction is None and plan is not None and failure is None:
        raise NarrationError(
            f"turn {turn.turn_id!r}: a plan without its reduction and without a failure",
            hint="pass the reduction, or the TurnFailure that stopped the turn before it",
        )
    turn_level = failure is not None and failure.kind in TURN_LEVEL_FAILURES
    empty = ReductionPlan(
        account_id=turn.account_id,
        session_id=turn.session_id,
        turn_id=turn.turn_id,
        plan_hash="",
        results=(),
        batches=(),
        interactions=(),
        grounding=(),
        notices=(),
    )
    decided_plan = reduction if reduction is not None and not turn_level else empty
    facts = gather(
        plan=plan,
        reduction=decided_plan,
        execution=execution,
        cases=cases,
        answered=answered,
        describers=describers,
    )
    outcome_drafts, covered = render_outcomes(facts, decided_plan, execution)
    if answered is None or answered.kind is not InteractionKind.RECALL_EXPANSION:
        drafts += render_decision(facts, decided_plan.interaction_outcome, execution)
    drafts += outcome_drafts
    recalled = {ref for draft in recall for ref in draft.refs}
    if not turn_level:
        drafts += recall
        covered = covered | recalled
        cards_failed = failure is not None and failure.kind is TurnFailureKind.CARDS_NOT_PERSISTED
        persisted = {} if cards_failed else {c.interaction_id: c for c in cards}
        by_ref = {ActRef(index=a.act_index, interaction_id=a.interaction_id): a for a in answers}
        by_ref = {ref: a for ref, a in by_ref.items() if ref not in recalled}
        drafts += render_units(
            facts,
            covered=covered,
            answers=by_ref,
            persisted=persisted,
            planned={i.interaction_id: i for i in decided_plan.interactions},
        )
        shown = {r for d in drafts if d.kind is BlockKind.ANSWER for r in d.refs}
        drafts += [answer_draft(a) for ref, a in by_ref.items() if ref not in shown]
        drafts += _reduction_notices(plan, decided_plan)
    if not drafts:
        drafts.append(_not_understood(turn.text, at=0.0))
    return _blocks(turn, drafts)


def _reduction_notices(plan: UserTurnPlan | None, reduction: ReductionPlan) -> list[Draft]:
    starts = sorted(min(ev.start for ev in act.evidence) for act in (plan.acts if plan else ()))
    drafts = []
    for notice in reduction.notices:
        first = min((ev.start for ev in notice.evidence), default=0)
        at = sum(1 for s in starts if s < first) - 0.5
        if notice.code == codes.NOTICE_NOT_UNDERSTOOD:
            drafts.append(_not_understood(_spans(notice.evidence), at=at))
        else:
            text = f"Notice: {notice.code}."
            drafts.append(Draft(kind=BlockKind.NOTICE, code=notice.code, text=text, at=at))
    return drafts


def _spans(evidence: Sequence[Evidence]) -> str:
    return " ".join(ev.text.strip() for ev in evidence)


def _not_understood(text: str, *, at: float) -> Draft:
    return Draft(
        kind=BlockKind.NOTICE,
        code=codes.NOTICE_NOT_UNDERSTOOD,
        text=f"Not understood: {quote(text.strip())}.",
        at=at,
    )


def _blocks(turn: UserTurn, drafts: Sequence[Draft]) -> tuple[Block, ...]:
    order = sorted(
        range(len(drafts)),
        key=lambda i: (drafts[i].position, _KIND_ORDER[drafts[i].kind], i),
    )
    return tuple(_block(turn, position, drafts[i]) for position, i in enumerate(order))


def _block(turn: UserTurn, position: int, draft: Draft) -> Block:
    acts = tuple(sorted({r.index for r in draft.refs if r.interaction_id is None}))
    pending = sorted({(r.interaction_id or "", r.index) for r in draft.refs if r.interaction_id})
    data: dict[str, Any] = dict(draft.data)
    if pending:
        data["pending_acts"] = [{"interaction_id": i, "index": n} for i, n in pending]
    identity = {
        "account_id": turn.account_id,
        "turn_id": turn.turn_id,
        "position": position,
        "kind": draft.kind.value,
        "code": draft.code,
        "acts": list(acts),
    }
    return Block(
        block_id="blk_" + digest(BLOCK_ID_DOMAIN, identity)[:32],
        kind=draft.kind,
        code=draft.code,
        text=draft.text,
        acts=acts,
        data=data,
    )
