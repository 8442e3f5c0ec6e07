"""ADR-016 per-unit atomicity: the acts of one atomic unit commit together or not at all.

Within a case, a unit's commands share one batch (so one refusal takes the whole unit with it)
and wait together behind one card when any of them needs confirmation. Across cases, the reducer
checks the outcome: a unit whose acts did not all become ready, or that waits on more than one
card, is *broken*; its acts that would have run or waited are rejected with
``turnframe.act.rejected_with_unit`` (decided by the act that broke it), and the cases are
reduced again without them, so no batch ever holds part of a unit.
"""

from __future__ import annotations

import attrs

from turnframe.plan import UserTurnPlan
from turnframe.reduce.cases import reduce_cases
from turnframe.reduce.work import Work
from turnframe.results import ACT_REJECTED_WITH_UNIT, ActStatus

_PULLED = (ActStatus.READY_TO_EXECUTE, ActStatus.AWAITING_CONFIRMATION)


def assign_units(work: Work, plan: UserTurnPlan) -> None:
    for number, unit in enumerate(plan.units):
        for index in unit.acts:
            work.units[work.offset + index] = number


def reduce_cases_by_unit(work: Work) -> None:
    """:func:`reduce_cases`, repeated without the acts of broken units until none is broken."""
    if not work.units:
        reduce_cases(work)
        return
    results = list(work.results)
    cursors = {k: attrs.evolve(c) for k, c in work.cursors.items()}
    batches, interactions = list(work.batches), list(work.interactions)
    pulled: dict[int, int] = {}
    for _ in range(len(work.units) + 1):
        work.results = list(results)
        work.cursors = {k: attrs.evolve(c) for k, c in cursors.items()}
        work.batches, work.interactions = list(batches), list(interactions)
        for pos, by in pulled.items():
            work.decide(pos, ActStatus.REJECTED, ACT_REJECTED_WITH_UNIT, by)
        reduce_cases(work)
        broken = _broken(work)
        if not broken:
            return
        pulled.update(broken)
    raise AssertionError("atomic units did not settle")  # each round pulls at least one act


def _broken(work: Work) -> dict[int, int]:
    """Acts to pull, each with the act that broke its unit."""
    members: dict[int, list[int]] = {}
    for pos, unit in work.units.items():
        members.setdefault(unit, []).append(pos)
    out: dict[int, int] = {}
    for positions in members.values():
        results = [(p, r) for p in sorted(positions) if (r := work.results[p]) is not None]
        live = [(p, r) for p, r in results if r.status is not ActStatus.NO_CHANGE]
        if all(r.status is ActStatus.READY_TO_EXECUTE for _, r in live):
            continue
        cards = {r.interaction_id for _, r in live}
        if all(r.status is ActStatus.AWAITING_CONFIRMATION for _, r in live) and len(cards) == 1:
            continue  # the whole unit waits behind one card: a click runs all of it
        failing = [p for p, r in live if r.status not in _PULLED]
        by = failing[0] if failing else live[0][0]
        for pos, result in live:
            if result.status in _PULLED:
                out[pos] = by
    return out
