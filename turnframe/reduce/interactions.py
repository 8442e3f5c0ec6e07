"""The turn's structured interaction response: decided first, binding more strongly than text.

A click names ids only; what its option means is read from the stored card. A confirm-command
card is stale when the case moved past the revision the card expects, or the click saw another
revision; a stale or unknown click executes nothing. Confirm and decline decide the card's
commands: text in the same turn cannot redo or undo them (such acts are overridden), and text
constraints do not block them. A select-target click decides only the target: the card's
pending acts join this turn ahead of its text acts, on the chosen case, under every other rule.
"""

from __future__ import annotations

import functools

import attrs

from turnframe.plan import Act
from turnframe.reduce.asking import answered_act
from turnframe.reduce.context import ReductionContext
from turnframe.reduce.unnamed import chosen_change
from turnframe.reduce.work import Cursor, Work
from turnframe.results import (
    INTERACTION_AMENDED,
    INTERACTION_ARGUMENT_PROVIDED,
    INTERACTION_CHANGE_CHOSEN,
    INTERACTION_CONFIRMED,
    INTERACTION_DECLINED,
    INTERACTION_STALE,
    INTERACTION_TARGET_SELECTED,
    INTERACTION_UNKNOWN,
    INTERACTION_UNKNOWN_OPTION,
    CommandBatch,
    InteractionKind,
    InteractionOutcome,
    InteractionOutcomeStatus,
    InteractionToCreate,
    OptionAction,
    PlannedActResult,
    Rejection,
)
from turnframe.workflow import SET_FIELD_COMMAND, START_CASE_COMMAND, apply_events, run_command

Status = InteractionOutcomeStatus


@attrs.frozen(kw_only=True)
class ResponseDecision:
    interaction_id: str
    option_id: str
    status: InteractionOutcomeStatus
    reason: str
    case_id: str | None = None
    card: InteractionToCreate | None = None
    pending: tuple[Act, ...] = ()


def decide_response(ctx: ReductionContext) -> ResponseDecision | None:
    response = ctx.turn.interaction_response
    if response is None:
        return None
    decided = functools.partial(
        ResponseDecision, interaction_id=response.interaction_id, option_id=response.option_id
    )
    card = next(
        (i for i in ctx.open_interactions if i.interaction_id == response.interaction_id), None
    )
    if card is None:
        if response.interaction_id in ctx.closed_interaction_ids:
            # A card this session closed (superseded by a newer card, or answered): stale.
            return decided(status=Status.STALE, reason=INTERACTION_STALE)
        return decided(status=Status.REJECTED, reason=INTERACTION_UNKNOWN)
    option = next((o for o in card.options if o.option_id == response.option_id), None)
    if option is None:
        return decided(status=Status.REJECTED, reason=INTERACTION_UNKNOWN_OPTION, card=card)
    if card.kind is InteractionKind.PROVIDE_ARGUMENT:
        completed = None if option.value is None else answered_act(card, option.value)
        if completed is None or card.case_id not in ctx.cases:
            return decided(status=Status.STALE, reason=INTERACTION_STALE, card=card)
        return provided(card, option.option_id, completed)
    if card.kind is InteractionKind.CHOOSE_CHANGE:
        snapshot = ctx.cases.get(card.case_id or "")
        label = None if snapshot is None else snapshot.label
        chosen = None if option.value is None else chosen_change(card, option.value, label)
        if chosen is None or snapshot is None:
            return decided(status=Status.STALE, reason=INTERACTION_STALE, card=card)
        return decided(
            status=Status.CHANGE_CHOSEN,
            reason=INTERACTION_CHANGE_CHOSEN,
            case_id=card.case_id,
            card=card,
            pending=(chosen,),
        )
    if card.kind is InteractionKind.SELECT_TARGET:
        if option.action is not OptionAction.SELECT_CASE or option.case_id not in ctx.cases:
            return decided(status=Status.STALE, reason=INTERACTION_STALE, card=card)
        return decided(
            status=Status.TARGET_SELECTED,
            reason=INTERACTION_TARGET_SELECTED,
            case_id=option.case_id,
            card=card,
            pending=card.pending_acts,
        )
    snapshot = None if card.case_id is None else ctx.cases.get(card.case_id)
    current = 0 if snapshot is None else snapshot.revision
    if response.expected_revision != card.expected_revision or current != card.expected_revision:
        return decided(
            status=Status.STALE, reason=INTERACTION_STALE, case_id=card.case_id, card=card
        )
    if option.action is OptionAction.CONFIRM:
        status, reason = Status.CONFIRMED, INTERACTION_CONFIRMED
    elif option.action is OptionAction.DECLINE:
        status, reason = Status.DECLINED, INTERACTION_DECLINED
    else:
        return decided(status=Status.REJECTED, reason=INTERACTION_UNKNOWN_OPTION, card=card)
    return decided(status=status, reason=reason, case_id=card.case_id, card=card)


def provided(card: InteractionToCreate, option_id: str, completed: Act) -> ResponseDecision:
    """The card's act, completed by the user's answer, joins this turn on the card's case."""
    return ResponseDecision(
        interaction_id=card.interaction_id,
        option_id=option_id,
        status=Status.ARGUMENT_PROVIDED,
        reason=INTERACTION_ARGUMENT_PROVIDED,
        case_id=card.case_id,
        card=card,
        pending=(completed,),
    )


def amended(card: InteractionToCreate, act: Act) -> ResponseDecision:
    """The card's command with a new value joins this turn; a new card replaces this one."""
    return ResponseDecision(
        interaction_id=card.interaction_id,
        option_id="text",
        status=Status.AMENDED,
        reason=INTERACTION_AMENDED,
        case_id=card.case_id,
        card=card,
        pending=(act,),
    )


def bind_decision(work: Work, decision: ResponseDecision | None) -> None:
    """Claim what a confirm or decline decided; move the case past confirmed batches."""
    if decision is None or decision.card is None or decision.case_id is None:
        return
    if decision.status not in (Status.CONFIRMED, Status.DECLINED):
        return
    for batch in decision.card.awaiting_batches:
        for command in batch.commands:
            work.claims.add((decision.case_id, _subject(command.name, command.args)))
    if decision.status is Status.CONFIRMED:
        for batch in decision.card.awaiting_batches:
            _advance(work, batch)


def _subject(name: str, args: dict[str, object]) -> str:
    if name == SET_FIELD_COMMAND:
        return f"field:{args['field']}"
    if name == START_CASE_COMMAND:
        return "start_case"
    return f"operation:{name}"


def _advance(work: Work, batch: CommandBatch) -> None:
    """Simulate a confirmed batch so this turn's own batches on the case follow it."""
    workflow = work.ctx.workflows.get(batch.workflow)
    if workflow is None:
        return
    cursor = work.cursors.get(batch.case_id)
    if cursor is None:
        snapshot = work.ctx.cases.get(batch.case_id)
        state = workflow.initial_state() if snapshot is None else snapshot.state
        cursor = Cursor(workflow=workflow, state=state, revision=batch.expected_revision)
        work.cursors[batch.case_id] = cursor
    state = cursor.state
    for command in batch.commands:
        events = run_command(workflow, state, command.name, command.args)
        if isinstance(events, Rejection):
            return  # the gate will refuse it too; the case stays where it is
        state = apply_events(workflow, state, events)
    cursor.state, cursor.revision = state, cursor.revision + 1


def outcome_of(
    decision: ResponseDecision | None, pending_results: tuple[PlannedActResult, ...]
) -> InteractionOutcome | None:
    if decision is None:
        return None
    ids = () if decision.card is None else decision.card.authorized_command_ids
    return InteractionOutcome(
        interaction_id=decision.interaction_id,
        option_id=decision.option_id,
        status=decision.status,
        reason=decision.reason,
        case_id=decision.case_id,
        authorized_command_ids=ids if decision.status is Status.CONFIRMED else (),
        declined_command_ids=ids if decision.status is Status.DECLINED else (),
        results=pending_results,
    )
