"""Resolving what an act names, before reduction: the one step that may do I/O.

A :class:`CaseDirectory` answers for one account: which cases carry a label, whether the
account may see a case, and the case's snapshot. :func:`build_context` asks it about every
target of a plan and hands the reducer pure data. A case the account may not see is dropped
before classification, so it answers exactly like one that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from turnframe.messages import UserTurn
from turnframe.plan import LabelTarget, TokenTarget, UserTurnPlan, target_of
from turnframe.reduce.context import ReductionContext, ResolutionOutcome, TargetResolution
from turnframe.results import InteractionKind, InteractionToCreate
from turnframe.workflow import CaseSnapshot, Workflow


class CaseDirectory(Protocol):
    """Where cases are found by label and loaded, always within one account."""

    async def find_by_label(self, account_id: str, label: str) -> Sequence[str]:
        """Ids of the account's cases whose label matches (how loosely is the directory's call)."""
        ...

    async def authorize(self, account_id: str, case_id: str) -> bool:
        """Whether the account may see and change the case."""
        ...

    async def snapshot(self, account_id: str, case_id: str) -> CaseSnapshot | None:
        """The case's current state and revision, or None if there is no such case."""
        ...


def classify(target: LabelTarget | TokenTarget, case_ids: Iterable[str]) -> TargetResolution:
    """Exact, ambiguous or unknown, from the authorized, loaded candidates (sorted by id)."""
    ids = tuple(sorted(set(case_ids)))
    if not ids:
        outcome = ResolutionOutcome.UNKNOWN
    elif len(ids) == 1:
        outcome = ResolutionOutcome.EXACT
    else:
        outcome = ResolutionOutcome.AMBIGUOUS
    return TargetResolution(target=target, outcome=outcome, case_ids=ids)


async def build_context(
    plan: UserTurnPlan,
    turn: UserTurn,
    *,
    directory: CaseDirectory,
    workflows: Mapping[str, Workflow[Any]],
    case_tokens: Mapping[str, str] | None = None,
    open_interactions: Sequence[InteractionToCreate] = (),
    closed_interaction_ids: Iterable[str] = (),
) -> ReductionContext:
    """Resolve every target of ``plan`` and load what the reducer will look at.

    ``case_tokens`` maps the opaque per-turn tokens the interpreter was shown to case ids.
    The cases named by the card the turn answers (if any) are loaded too.
    """
    account = turn.account_id
    cases: dict[str, CaseSnapshot] = {}

    async def load(case_ids: Iterable[str]) -> list[str]:
        loaded = []
        for case_id in sorted(set(case_ids)):
            if case_id not in cases:
                if not await directory.authorize(account, case_id):
                    continue
                snapshot = await directory.snapshot(account, case_id)
                if snapshot is None:
                    continue
                cases[case_id] = snapshot
            loaded.append(case_id)
        return loaded

    resolutions: list[TargetResolution] = []
    seen: set[LabelTarget | TokenTarget] = set()
    for act in plan.acts:
        target = target_of(act)
        if not isinstance(target, LabelTarget | TokenTarget) or target in seen:
            continue
        seen.add(target)
        if isinstance(target, LabelTarget):
            found = await directory.find_by_label(account, target.label)
        else:
            token_case = (case_tokens or {}).get(target.token)
            found = [] if token_case is None else [token_case]
        resolutions.append(classify(target, await load(found)))
    # An open card may be answered or amended by this turn's words: load its case.
    asked = [c.case_id for c in open_interactions if c.kind is not InteractionKind.SELECT_TARGET]
    await load([c for c in asked if c is not None])
    response = turn.interaction_response
    if response is not None:
        for card in open_interactions:
            if card.interaction_id == response.interaction_id:
                named = [o.case_id for o in card.options if o.case_id is not None]
                await load([*named, *([card.case_id] if card.case_id else [])])
    return ReductionContext(
        turn=turn,
        workflows=workflows,
        resolutions=tuple(resolutions),
        cases=cases,
        open_interactions=tuple(open_interactions),
        closed_interaction_ids=frozenset(closed_interaction_ids),
    )
