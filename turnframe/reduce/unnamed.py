"""A change with nothing named, or a pending value disowned: the desk asks (ADR 0024).

"I want to change something on my booking" names neither a field nor an operation: the act
waits (``needs_clarification``, ``turnframe.act.change_unnamed``) on a choose-change card whose
options are the case's fields and the operations that change it (not submissions, not
destructive ones): a finite list. A click on one joins this turn as that change with nothing
said yet, which is then asked for like any missing value; words in the next turn ("the return
date, 18 March") are read by the interpreter as the change they name, and the question closes.

"no wait, wrong amount" while a confirmation card is open disowns the request on that card:
the card expires (a later click on it answers stale, so the value it showed can never be
confirmed) and the argument named is asked for (``turnframe.act.value_disowned``); with no
argument named, a choose-change card lists the request's arguments.
"""

from __future__ import annotations

from typing import Any

import attrs

from turnframe._identity import interaction_id
from turnframe.plan import Act, LabelTarget, OperationAct, SetFieldAct, Target, UnnamedChangeAct
from turnframe.reduce.asking import ask_for_argument, ask_for_value
from turnframe.reduce.work import AMBIGUOUS, EXACT, UNKNOWN, Work
from turnframe.results import (
    ACT_CHANGE_UNNAMED,
    ACT_CORRECTION_READ,
    ACT_VALUE_DISOWNED,
    ActStatus,
    InteractionKind,
    InteractionOption,
    InteractionToCreate,
    OptionAction,
)
from turnframe.workflow import Workflow

FIELD, OPERATION, ARGUMENT = "field:", "operation:", "argument:"


def ask_what_to_change(work: Work, *, answered_in_words: bool = False) -> None:
    """Decide every ``unnamed_change`` act whose case is known (or that disowns an open card);
    one whose target is unknown or ambiguous is left to target clarification. When the turn's
    words already answered or amended the open card, a pending act that disowns nothing named
    has nothing left to disown: the amended card is the correction."""
    for entry in work.entries:
        act = entry.act
        if not isinstance(act, UnnamedChangeAct) or not work.undecided(entry.pos):
            continue
        if answered_in_words and act.pending and act.about is None:
            work.decide(entry.pos, ActStatus.NO_CHANGE, ACT_CORRECTION_READ, entry.pos)
            continue
        card = _open_card(work, entry.pos) if act.pending else None
        if card is not None:
            _disown(work, entry.pos, act, card)
            continue
        place = entry.place
        if place is not None and place.outcome in (UNKNOWN, AMBIGUOUS):
            continue  # which record is asked first (select-target, or "which case?")
        workflow = None if place is None else work.workflow_of(place)
        if place is None or place.outcome != EXACT or place.case_id is None or workflow is None:
            # No record named (or one this turn starts): ask in words.
            work.decide(entry.pos, ActStatus.NEEDS_CLARIFICATION, ACT_CHANGE_UNNAMED, entry.pos)
        else:
            _ask_subject(work, entry.pos, act, place.case_id, workflow)


def _open_card(work: Work, pos: int) -> InteractionToCreate | None:
    """The latest open confirmation card (on the act's case, when the act names one)."""
    place = work.entries[pos].place
    named = place.case_id if place is not None and place.outcome == EXACT else None
    cards = [
        c
        for c in work.ctx.open_interactions
        if c.kind is InteractionKind.CONFIRM_COMMAND
        and (named is None or c.case_id == named)
        and c.case_id in work.ctx.cases
    ]
    return cards[-1] if cards else None


def _disown(work: Work, pos: int, act: UnnamedChangeAct, card: InteractionToCreate) -> None:
    """Expire the card and ask for the value the user said is wrong."""
    assert card.case_id is not None
    work.expired.append(card.interaction_id)
    request = card.pending_acts[0] if len(card.pending_acts) == 1 else None
    if not isinstance(request, OperationAct | SetFieldAct):
        # Several requests on the card: which one is wrong is not said; ask in words.
        work.decide(pos, ActStatus.NEEDS_CLARIFICATION, ACT_VALUE_DISOWNED, pos)
        return
    if isinstance(request, SetFieldAct):
        ask_for_value(
            work,
            pos,
            case_id=card.case_id,
            act=attrs.evolve(request, value=""),
            reason=ACT_VALUE_DISOWNED,
            detail=f"the value of {request.field} was said to be wrong",
        )
        return
    assert isinstance(request, OperationAct)
    workflow = work.ctx.workflows.get(work.ctx.cases[card.case_id].workflow)
    op = None if workflow is None else workflow.operation(request.operation)
    if op is None:
        work.decide(pos, ActStatus.NEEDS_CLARIFICATION, ACT_VALUE_DISOWNED, pos)
        return
    declared = [a.name for a in op.arguments]
    said = [name for name in declared if name in request.args]
    about = act.about if act.about in declared else None
    if about is None and len(said) == 1:
        about = said[0]
    if about is not None:
        ask_for_argument(
            work,
            pos,
            case_id=card.case_id,
            op=op,
            argument=about,
            reason=ACT_VALUE_DISOWNED,
            detail=f"the {about} was said to be wrong",
            asked=request,
        )
        return
    options = [(ARGUMENT + name, name) for name in (said or declared)]
    _choose_card(work, pos, card.case_id, request, options, ACT_VALUE_DISOWNED)


def _ask_subject(
    work: Work, pos: int, act: UnnamedChangeAct, case_id: str, workflow: Workflow[Any]
) -> None:
    """What to change on the case: the field or operation named, else every one as an option."""
    target = _target(work, act.target, case_id)
    if act.about is not None and workflow.field(act.about) is not None:
        asked = SetFieldAct(target=target, field=act.about, value="", evidence=act.evidence)
        ask_for_value(
            work,
            pos,
            case_id=case_id,
            act=asked,
            reason=ACT_CHANGE_UNNAMED,
            detail=f"no value said for {act.about}",
        )
        return
    options = [(FIELD + f.name, f.name) for f in workflow.fields]
    options += [
        (OPERATION + o.name, o.name)
        for o in workflow.operations
        if not o.is_submission and not o.is_destructive
    ]
    if act.about is not None and workflow.operation(act.about) is not None:
        options = [(OPERATION + act.about, act.about)]
    _choose_card(work, pos, case_id, act, options, ACT_CHANGE_UNNAMED)


def _choose_card(
    work: Work,
    pos: int,
    case_id: str,
    pending: Act,
    options: list[tuple[str, str]],
    reason: str,
) -> None:
    ref = work.entries[pos].ref
    card = InteractionToCreate(
        interaction_id=interaction_id(
            account_id=work.account_id,
            turn_id=work.turn_id,
            kind=InteractionKind.CHOOSE_CHANGE.value,
            subject={"case_id": case_id, "act": ref.index, "options": [v for v, _ in options]},
        ),
        kind=InteractionKind.CHOOSE_CHANGE,
        turn_id=work.turn_id,
        acts=(ref,),
        options=tuple(
            InteractionOption(
                option_id=f"change-{n}",
                action=OptionAction.CHOOSE_CHANGE,
                label=label.replace("_", " "),
                value=value,
                case_id=case_id,
            )
            for n, (value, label) in enumerate(options, start=1)
        ),
        case_id=case_id,
        pending_acts=(pending,),
    )
    work.interactions.append(card)
    work.decide(pos, ActStatus.NEEDS_CLARIFICATION, reason, pos, interaction_id=card.interaction_id)


def chosen_change(card: InteractionToCreate, value: str, label: str | None) -> Act | None:
    """The change a choose-change click picks: the field or operation with nothing said yet
    (then asked for), or the pending request with the chosen argument left to say."""
    if len(card.pending_acts) != 1:
        return None
    pending = card.pending_acts[0]
    target = pending.target if isinstance(pending, OperationAct | SetFieldAct) else None
    if isinstance(pending, UnnamedChangeAct):
        target = pending.target
    target = target or LabelTarget(label=label or card.case_id or "")
    if value.startswith(FIELD):
        field = value.removeprefix(FIELD)
        return SetFieldAct(target=target, field=field, value="", evidence=pending.evidence)
    if value.startswith(OPERATION):
        name = value.removeprefix(OPERATION)
        return OperationAct(target=target, operation=name, evidence=pending.evidence)
    if value.startswith(ARGUMENT) and isinstance(pending, OperationAct):
        # Said as nothing: the reducer reads no value from it and asks for this argument.
        return attrs.evolve(pending, args={**pending.args, value.removeprefix(ARGUMENT): ""})
    return None


def _target(work: Work, target: Target | None, case_id: str) -> Target:
    if target is not None:
        return target
    snapshot = work.ctx.cases.get(case_id)
    return LabelTarget(label=(snapshot.label if snapshot is not None else None) or case_id)
