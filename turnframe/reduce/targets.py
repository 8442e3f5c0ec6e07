"""Where each act's target points, and what happens when it points nowhere or twice.

An ambiguous target blocks only the acts that depend on it: they need clarification and wait on
one select-target card per ambiguous target, with the acts stored already resolved for
corrections. An unknown target needs clarification too; it is never guessed from recency.
"""

from __future__ import annotations

from turnframe._identity import interaction_id, new_case_id
from turnframe.plan import (
    Act,
    LabelTarget,
    NewCaseTarget,
    SetFieldAct,
    StartCaseAct,
    Target,
    TokenTarget,
    target_of,
)
from turnframe.reduce.context import ResolutionOutcome, TargetResolution
from turnframe.reduce.work import AMBIGUOUS, EXACT, NEW, UNKNOWN, Place, Work
from turnframe.results import (
    ACT_AMBIGUOUS_TARGET,
    ACT_UNKNOWN_TARGET,
    ActStatus,
    InteractionKind,
    InteractionOption,
    InteractionToCreate,
    OptionAction,
)

_TARGETED = frozenset({"set_field", "correct", "operation", "question", "unnamed_change"})


def place_entries(work: Work, selected_case: str | None) -> None:
    """Resolve every entry's target from the context (pending acts go to the selected case)."""
    index: dict[LabelTarget | TokenTarget, TargetResolution] = {
        r.target: r for r in work.ctx.resolutions
    }
    for entry in work.entries:
        act = entry.act
        if not entry.from_text:
            entry.place = Place(outcome=EXACT, case_id=selected_case, raw=target_of(act))
        elif entry.root != entry.pos:
            entry.place = work.entries[entry.root].place
        elif isinstance(act, StartCaseAct):
            entry.place = _new_case(work, entry.ref.index)
        else:
            target = target_of(act)
            entry.place = None if target is None else _place(work, target, index)


def _new_case(work: Work, start_act: int) -> Place:
    case_id = new_case_id(account_id=work.account_id, turn_id=work.turn_id, start_act=start_act)
    return Place(outcome=NEW, case_id=case_id, start_pos=work.offset + start_act)


def _place(
    work: Work, target: Target, index: dict[LabelTarget | TokenTarget, TargetResolution]
) -> Place:
    if isinstance(target, NewCaseTarget):
        return _new_case(work, target.start_act)
    resolution = index.get(target)
    if resolution is None or resolution.outcome is ResolutionOutcome.UNKNOWN:
        return Place(outcome=UNKNOWN, raw=target)
    if resolution.outcome is ResolutionOutcome.AMBIGUOUS:
        return Place(outcome=AMBIGUOUS, candidates=resolution.case_ids, raw=target)
    case_id = resolution.case_ids[0]
    if case_id not in work.ctx.cases:  # resolved but not loaded: never act on a guess
        return Place(outcome=UNKNOWN, raw=target)
    return Place(outcome=EXACT, case_id=case_id, raw=target)


def clarify_targets(work: Work) -> None:
    waiting: dict[Target, list[int]] = {}
    for entry in work.entries:
        if entry.kind not in _TARGETED or not work.undecided(entry.pos) or entry.place is None:
            continue
        if entry.place.outcome == UNKNOWN:
            work.decide(entry.pos, ActStatus.NEEDS_CLARIFICATION, ACT_UNKNOWN_TARGET, entry.pos)
        elif entry.place.outcome == AMBIGUOUS:
            assert entry.place.raw is not None
            waiting.setdefault(entry.place.raw, []).append(entry.pos)
    for target, positions in waiting.items():
        card = _select_card(work, target, positions)
        work.interactions.append(card)
        for pos in positions:
            work.decide(
                pos,
                ActStatus.NEEDS_CLARIFICATION,
                ACT_AMBIGUOUS_TARGET,
                pos,
                interaction_id=card.interaction_id,
            )


def _select_card(work: Work, target: Target, positions: list[int]) -> InteractionToCreate:
    place = work.entries[positions[0]].place
    assert place is not None
    refs = tuple(work.entries[p].ref for p in positions)
    label = target.label if isinstance(target, LabelTarget) else getattr(target, "token", None)
    options = tuple(
        InteractionOption(
            option_id=f"case-{n}",
            action=OptionAction.SELECT_CASE,
            case_id=case_id,
            label=work.ctx.cases[case_id].label if case_id in work.ctx.cases else None,
        )
        for n, case_id in enumerate(place.candidates, start=1)
    )
    subject = {"target_label": label, "acts": [r.index for r in refs]}
    return InteractionToCreate(
        interaction_id=interaction_id(
            account_id=work.account_id,
            turn_id=work.turn_id,
            kind=InteractionKind.SELECT_TARGET.value,
            subject=subject,
        ),
        kind=InteractionKind.SELECT_TARGET,
        turn_id=work.turn_id,
        acts=refs,
        options=options,
        pending_acts=tuple(effective_act(work, p) for p in positions),
        target_label=label,
    )


def effective_act(work: Work, pos: int) -> Act:
    """The act as it stands after corrections: what the user finally asked for."""
    entry = work.entries[pos]
    root = work.entries[entry.root].act
    if entry.root == pos or not isinstance(root, SetFieldAct):
        return entry.act
    return SetFieldAct(
        target=root.target,
        field=root.field,
        value=work.value_of(pos),
        evidence=entry.act.evidence,
    )
