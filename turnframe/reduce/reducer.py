"""``reduce(plan, context) -> ReductionPlan``: the pure whole-turn reducer.

No I/O, no clock, no randomness: everything it needs arrives in the plan and the context, and
the same input gives the same ReductionPlan byte for byte. Every act gets exactly one result.
"""

from __future__ import annotations

from turnframe._identity import plan_hash
from turnframe.plan import (
    ChitchatAct,
    OperationAct,
    QuestionAct,
    RecallAct,
    UserTurnPlan,
    check_plan,
)
from turnframe.reduce.asking import completed_in_words, text_amendment, text_answer
from turnframe.reduce.context import ReductionContext
from turnframe.reduce.interactions import (
    amended,
    bind_decision,
    decide_response,
    outcome_of,
    provided,
)
from turnframe.reduce.precedence import apply_precedence, link_chains
from turnframe.reduce.refine import apply_refinements
from turnframe.reduce.targets import clarify_targets, place_entries
from turnframe.reduce.units import assign_units, reduce_cases_by_unit
from turnframe.reduce.unnamed import ask_what_to_change
from turnframe.reduce.unread import expire_cards_unread_words_may_change
from turnframe.reduce.work import Entry, Work
from turnframe.results import (
    ACT_CHITCHAT,
    ACT_QUESTION_FOR_GROUNDING,
    ACT_RECALL_FOR_GROUNDING,
    NOTICE_NOT_UNDERSTOOD,
    ActRef,
    ActStatus,
    GroundingRequest,
    InteractionKind,
    InteractionOutcomeStatus,
    InteractionToCreate,
    Notice,
    PlannedActResult,
    ReductionPlan,
)

#: Decisions whose card's pending acts join this turn, on the card's (or the chosen) case.
_JOINING = frozenset(
    {
        InteractionOutcomeStatus.TARGET_SELECTED,
        InteractionOutcomeStatus.ARGUMENT_PROVIDED,
        InteractionOutcomeStatus.AMENDED,
        InteractionOutcomeStatus.CHANGE_CHOSEN,
    }
)


class ReducerInvariantError(AssertionError):
    """An act was left without a result: a bug in the reducer, never a user-facing outcome."""


def reduce(plan: UserTurnPlan, context: ReductionContext) -> ReductionPlan:
    """Decide the effects of a whole turn.

    Raises PlanRejected if ``plan`` (built in code rather than parsed) breaks the plan's rules.
    """
    check_plan(plan, context.turn)
    decision = decide_response(context)
    answer = text_answer(plan, context) if decision is None else None
    if answer is not None:
        card, said = answer
        completed = completed_in_words(card, said, context)
        decision = None if completed is None else provided(card, "text", completed)
    amendment = text_amendment(plan, context) if decision is None else None
    if amendment is not None:
        decision = amended(*amendment)
    answered_in_words = answer is not None or amendment is not None
    selected = decision is not None and decision.status in _JOINING
    pending = decision.pending if decision is not None and selected else ()
    entries = [
        Entry(
            pos=i,
            ref=ActRef(index=i, interaction_id=decision.interaction_id),
            act=act,
            from_text=False,
            root=i,
        )
        for i, act in enumerate(pending)
        if decision is not None
    ]
    offset = len(entries)
    entries += [
        Entry(pos=offset + i, ref=ActRef(index=i), act=act, from_text=True, root=offset + i)
        for i, act in enumerate(plan.acts)
    ]
    work = Work(ctx=context, entries=entries, offset=offset, results=[None] * len(entries))
    assign_units(work, plan)
    link_chains(work)
    place_entries(work, decision.case_id if decision is not None and selected else None)
    bind_decision(work, decision)
    if decision is None and not answered_in_words:
        expire_cards_unread_words_may_change(work, plan)
    apply_precedence(work)
    ask_what_to_change(work, answered_in_words=answered_in_words)
    clarify_targets(work)
    apply_refinements(work)
    reduce_cases_by_unit(work)
    _settle_the_rest(work)
    results = _all_results(work)
    return ReductionPlan(
        account_id=context.turn.account_id,
        session_id=context.turn.session_id,
        turn_id=context.turn.turn_id,
        plan_hash=plan_hash(plan),
        results=results[offset:],
        batches=tuple(work.batches),
        interactions=tuple(work.interactions),
        grounding=tuple(work.grounding),
        notices=tuple(
            Notice(code=NOTICE_NOT_UNDERSTOOD, evidence=(ev,))
            for ev in plan.not_understood
            if not answered_in_words  # the words answered the open card
        ),
        interaction_outcome=outcome_of(decision, results[:offset]),
        superseded_interaction_ids=_superseded(
            work,
            None
            if decision is None or decision.status is InteractionOutcomeStatus.AMENDED
            else decision.interaction_id,
        ),
    )


def _settle_the_rest(work: Work) -> None:
    """Questions go to grounding, recalls to recall, chitchat changes nothing."""
    for entry in work.entries:
        if not work.undecided(entry.pos):
            continue
        act = entry.act
        if isinstance(act, QuestionAct):
            work.decide(
                entry.pos, ActStatus.READY_TO_EXECUTE, ACT_QUESTION_FOR_GROUNDING, entry.pos
            )
            work.grounding.append(
                GroundingRequest(
                    act=entry.ref,
                    kind="question",
                    evidence=act.evidence,
                    question=act.question,
                    case_id=work.case_of(entry.pos),
                    hypothetical=act.hypothetical,
                )
            )
        elif isinstance(act, RecallAct):
            work.decide(entry.pos, ActStatus.READY_TO_EXECUTE, ACT_RECALL_FOR_GROUNDING, entry.pos)
            work.grounding.append(
                GroundingRequest(
                    act=entry.ref, kind="recall", evidence=act.evidence, description=act.description
                )
            )
        elif isinstance(act, ChitchatAct):
            work.decide(entry.pos, ActStatus.NO_CHANGE, ACT_CHITCHAT, entry.pos)


def _all_results(work: Work) -> tuple[PlannedActResult, ...]:
    missing = [e.ref for e, r in zip(work.entries, work.results, strict=True) if r is None]
    if missing:
        raise ReducerInvariantError(f"acts left without a result: {missing}")
    return tuple(r for r in work.results if r is not None)


def _superseded(work: Work, answered: str | None) -> tuple[str, ...]:
    """Open cards that this turn's new cards replace: one blocking card per case, one
    select-target card per target, one open question for an argument per session."""
    new_cases = {i.case_id for i in work.interactions if i.kind is InteractionKind.CONFIRM_COMMAND}
    new_labels = {
        i.target_label for i in work.interactions if i.kind is InteractionKind.SELECT_TARGET
    }
    asks = any(i.kind in _QUESTIONS for i in work.interactions)
    # A change decided on a case answers the open "what would you like to change?" there.
    changed = {
        r.case_id
        for r in work.results
        if r is not None
        and r.case_id is not None
        and r.kind in ("set_field", "correct", "operation")
        and r.status is not ActStatus.REJECTED
    }
    # An operation decided on a case answers the open question for that operation's argument
    # there ("add an extra" asked which; "2 beach chairs at 8 euros each" added them).
    done = {
        (r.case_id, entry.act.operation)
        for entry, r in zip(work.entries, work.results, strict=True)
        if r is not None
        and r.case_id is not None
        and isinstance(entry.act, OperationAct)
        and r.status is not ActStatus.REJECTED
        and r.status is not ActStatus.NEEDS_CLARIFICATION
    }
    return tuple(
        i.interaction_id
        for i in work.ctx.open_interactions
        if i.interaction_id != answered
        and (
            i.interaction_id in work.expired
            or (i.kind is InteractionKind.PROVIDE_ARGUMENT and _asks_for(i) in done)
            or (i.kind is InteractionKind.CONFIRM_COMMAND and i.case_id in new_cases)
            or (i.kind is InteractionKind.SELECT_TARGET and i.target_label in new_labels)
            or (i.kind in _QUESTIONS and asks)
            or (i.kind is InteractionKind.CHOOSE_CHANGE and i.case_id in changed)
        )
    )


def _asks_for(card: InteractionToCreate) -> tuple[str | None, str] | None:
    """(case, operation) of the one operation a question card asks an argument for."""
    act = card.pending_acts[0] if len(card.pending_acts) == 1 else None
    return (card.case_id, act.operation) if isinstance(act, OperationAct) else None


#: Cards that ask the user something: one open at a time per session.
_QUESTIONS = frozenset({InteractionKind.PROVIDE_ARGUMENT, InteractionKind.CHOOSE_CHANGE})
