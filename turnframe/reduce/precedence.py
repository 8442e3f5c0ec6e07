"""Same-turn precedence: the default rules, applied to the whole turn before anything else.

In order, each deciding an act at most once:

1. an explicit cancellation supersedes the act it names and every correction of it;
2. ``keep_unchanged`` supersedes every change to that field on that target, wherever it stands;
3. a later explicit correction supersedes the earlier value (the last one in a chain wins);
4. an act that a structured interaction response already decided is overridden;
5. an action cited inside a hypothetical question is never executed;
6. a constraint blocks every act it forbids, wherever it stands in the turn.

Every pass is one walk over the entries with dictionary look-ups, so the reducer stays linear.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Iterator

from turnframe.plan import (
    CancelAct,
    ConstraintAct,
    ConstraintKind,
    CorrectAct,
    Evidence,
    KeepUnchangedAct,
    OperationAct,
    QuestionAct,
    SetFieldAct,
)
from turnframe.reduce.work import ACTION_KINDS, Work
from turnframe.results import (
    ACT_BLOCKED_BY_CONSTRAINT,
    ACT_CANCELLATION_APPLIED,
    ACT_CANCELLED,
    ACT_CONSTRAINT_APPLIED,
    ACT_INSIDE_HYPOTHETICAL,
    ACT_KEPT_UNCHANGED,
    ACT_OVERRIDDEN_BY_INTERACTION,
    ACT_SUPERSEDED_BY_CORRECTION,
    ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
    ActStatus,
    InteractionKind,
)

__all__ = ["apply_precedence", "link_chains"]


def link_chains(work: Work) -> None:
    """Give every correction the root ``set_field`` it refines; collect each root's chain."""
    for entry in work.entries:
        if isinstance(entry.act, SetFieldAct):
            work.chains[entry.pos] = [entry.pos]
        elif isinstance(entry.act, CorrectAct):
            entry.root = work.entries[work.offset + entry.act.corrects].root
            work.chains[entry.root].append(entry.pos)


def apply_precedence(work: Work) -> None:
    _cancellations(work)
    _keep_unchanged(work)
    _corrections(work)
    _interaction_claims(work)
    _hypotheticals(work)
    _constraints(work)


def _members(work: Work, root: int) -> list[int]:
    return work.chains.get(root, [root])


def _undecided_actions(work: Work) -> Iterator[int]:
    for entry in work.entries:
        if entry.kind in ACTION_KINDS and work.undecided(entry.pos):
            yield entry.pos


def _cancellations(work: Work) -> None:
    cancelled: dict[int, int] = {}
    for entry in work.entries:
        if isinstance(entry.act, CancelAct):
            work.decide(entry.pos, ActStatus.NO_CHANGE, ACT_CANCELLATION_APPLIED, entry.pos)
            root = work.entries[work.offset + entry.act.cancels].root
            cancelled.setdefault(root, entry.pos)
    for root, canceller in cancelled.items():
        for member in _members(work, root):
            if work.undecided(member):
                work.decide(member, ActStatus.SUPERSEDED_BY_CORRECTION, ACT_CANCELLED, canceller)


def _keep_unchanged(work: Work) -> None:
    kept: dict[tuple[Hashable, str], int] = {}
    for entry in work.entries:
        if isinstance(entry.act, KeepUnchangedAct):
            work.decide(entry.pos, ActStatus.NO_CHANGE, ACT_KEPT_UNCHANGED, entry.pos)
            assert entry.place is not None
            for key in entry.place.keys:
                kept.setdefault((key, entry.act.field), entry.pos)
    if not kept:
        return
    for root, members in work.chains.items():
        place, field = work.entries[root].place, work.field_of(root)
        assert place is not None and field is not None
        keeper = min((kept[k, field] for k in place.keys if (k, field) in kept), default=None)
        if keeper is None:
            continue
        for member in members:
            if work.undecided(member):
                reason = ACT_SUPERSEDED_BY_KEEP_UNCHANGED
                work.decide(member, ActStatus.SUPERSEDED_BY_CORRECTION, reason, keeper)


def _corrections(work: Work) -> None:
    for members in work.chains.values():
        final = members[-1]
        for member in members[:-1]:
            if work.undecided(member):
                reason = ACT_SUPERSEDED_BY_CORRECTION
                work.decide(member, ActStatus.SUPERSEDED_BY_CORRECTION, reason, final)


def _interaction_claims(work: Work) -> None:
    """A click binds more strongly than inferred text about the same commands."""
    if not work.claims:
        return
    for pos in list(_undecided_actions(work)):
        place, subject = work.entries[pos].place, work.subject_of(pos)
        if place is None or subject is None:
            continue
        if any((key, subject) in work.claims for key in place.keys):
            reason = ACT_OVERRIDDEN_BY_INTERACTION
            work.decide(pos, ActStatus.SUPERSEDED_BY_CORRECTION, reason, None)


def _hypotheticals(work: Work) -> None:
    spans: list[tuple[int, int, int]] = []
    for entry in work.entries:
        if isinstance(entry.act, QuestionAct) and entry.act.hypothetical and entry.from_text:
            spans.extend((ev.start, ev.end, entry.pos) for ev in entry.act.evidence)
    if not spans:
        return
    merged = _merge(spans)
    starts = [start for start, _, _ in merged]
    for pos in list(_undecided_actions(work)):
        if not work.entries[pos].from_text:
            continue
        for member in _members(work, work.entries[pos].root):
            question = _inside(work.entries[member].act.evidence, merged, starts)
            if question is not None:
                work.decide(pos, ActStatus.REJECTED, ACT_INSIDE_HYPOTHETICAL, question)
                break


def _merge(spans: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Disjoint, sorted intervals; each keeps the earliest question that covers it."""
    merged: list[tuple[int, int, int]] = []
    for start, end, pos in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), min(last[2], pos))
        else:
            merged.append((start, end, pos))
    return merged


def _inside(
    evidence: tuple[Evidence, ...], merged: list[tuple[int, int, int]], starts: list[int]
) -> int | None:
    for ev in evidence:
        i = bisect.bisect_left(starts, ev.end) - 1
        if i >= 0 and merged[i][1] > ev.start:
            return merged[i][2]
    return None


def _constraints(work: Work) -> None:
    rules: dict[tuple[Hashable, Hashable], int] = {}  # (scope, rule) -> first constraint
    for entry in work.entries:
        act = entry.act
        if not isinstance(act, ConstraintAct):
            continue
        work.decide(entry.pos, ActStatus.NO_CHANGE, ACT_CONSTRAINT_APPLIED, entry.pos)
        named = act.forbids is ConstraintKind.NO_OPERATION
        rule: Hashable = ("operation", act.operation) if named else act.forbids
        scopes = (None,) if entry.place is None else entry.place.keys
        for scope in scopes:
            rules.setdefault((scope, rule), entry.pos)
    if not rules:
        return
    _expire_forbidden_cards(work, rules)
    for pos in list(_undecided_actions(work)):
        place = work.entries[work.entries[pos].root].place
        scopes = (None,) if place is None else (None, *place.keys)
        blocking = [rules[s, r] for s in scopes for r in _rules_for(work, pos) if (s, r) in rules]
        if blocking:
            work.decide(pos, ActStatus.REJECTED, ACT_BLOCKED_BY_CONSTRAINT, min(blocking))


def _expire_forbidden_cards(work: Work, rules: dict[tuple[Hashable, Hashable], int]) -> None:
    """ "refund 20 on 1001" (a card), then "don't refund it" or "forget it": the request taken
    back in words closes the card that waits for it. A later click on it answers stale, so
    what the user took back can never be confirmed by a click on the old card."""
    for card in work.ctx.open_interactions:
        if card.kind is not InteractionKind.CONFIRM_COMMAND or card.case_id is None:
            continue
        snapshot = work.ctx.cases.get(card.case_id)
        workflow = None if snapshot is None else work.ctx.workflows.get(snapshot.workflow)
        for act in card.pending_acts:
            forbidden: list[Hashable] = [ConstraintKind.NO_CHANGES]
            if isinstance(act, OperationAct):
                forbidden.append(("operation", act.operation))
                op = None if workflow is None else workflow.operation(act.operation)
                if op is not None and op.is_submission:
                    forbidden.append(ConstraintKind.NO_SUBMISSIONS)
                if op is not None and op.is_destructive:
                    forbidden.append(ConstraintKind.NO_DESTRUCTIVE)
            if any((s, r) in rules for s in (None, card.case_id) for r in forbidden):
                work.expired.append(card.interaction_id)
                break


def _rules_for(work: Work, pos: int) -> list[Hashable]:
    """Every constraint rule that forbids the act at ``pos``."""
    out: list[Hashable] = [ConstraintKind.NO_CHANGES]
    act = work.entries[pos].act
    if isinstance(act, OperationAct):
        out.append(("operation", act.operation))
        place = work.entries[pos].place
        assert place is not None
        ops = [w.operation(act.operation) for w in work.possible_workflows(place)]
        if any(op is not None and op.is_submission for op in ops):
            out.append(ConstraintKind.NO_SUBMISSIONS)
        if any(op is not None and op.is_destructive for op in ops):
            out.append(ConstraintKind.NO_DESTRUCTIVE)
    return out
