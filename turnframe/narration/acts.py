"""Blocks from the acts' results, for every act execution did not already render.

Some acts are rendered together with the act that decided them: a keep-unchanged with the
changes it superseded, a cancellation with what it withdrew, a constraint with what it blocked,
a card's acts with their card. Chitchat shares one fixed reply. Every other act gets its own
block. No act is left without one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from turnframe._converter import unstructure
from turnframe.grounding import Answer
from turnframe.grounding.wording import name_label, quote
from turnframe.narration import codes
from turnframe.narration.draft import Draft, sentence
from turnframe.narration.facts import Facts, Unit
from turnframe.plan import ConstraintAct, ConstraintKind, CorrectAct, SetFieldAct
from turnframe.response import BlockKind
from turnframe.results import (
    ACT_AMBIGUOUS_TARGET,
    ACT_BLOCKED_BY_CONSTRAINT,
    ACT_CANCELLATION_APPLIED,
    ACT_CANCELLED,
    ACT_CASE_NOT_STARTED,
    ACT_CHANGE_UNNAMED,
    ACT_CHITCHAT,
    ACT_CONDITION_NOT_MET,
    ACT_CONFLICTING_VALUES,
    ACT_CONSTRAINT_APPLIED,
    ACT_CORRECTION_READ,
    ACT_DUPLICATE,
    ACT_INSIDE_HYPOTHETICAL,
    ACT_INVALID_VALUE,
    ACT_KEPT_UNCHANGED,
    ACT_MISSING_ARGUMENT,
    ACT_NO_EFFECT,
    ACT_OVERRIDDEN_BY_INTERACTION,
    ACT_QUESTION_FOR_GROUNDING,
    ACT_RECALL_FOR_GROUNDING,
    ACT_REJECTED_WITH_BATCH,
    ACT_REJECTED_WITH_UNIT,
    ACT_SUPERSEDED_BY_CORRECTION,
    ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
    ACT_UNKNOWN_ARGUMENT,
    ACT_UNKNOWN_FIELD,
    ACT_UNKNOWN_OPERATION,
    ACT_UNKNOWN_TARGET,
    ACT_UNKNOWN_WORKFLOW,
    ACT_UNREADABLE_ARGUMENT,
    ACT_VALUE_DISOWNED,
    ACT_VALUE_UNCHANGED,
    ActRef,
    ActStatus,
    CardCommand,
    InteractionKind,
    InteractionToCreate,
)

CHITCHAT_REPLY = "I'm here to help: tell me what to change, or ask me a question."

#: A leader's reason → the reason of the acts it decided and renders with it.
_LEADS = {
    ACT_KEPT_UNCHANGED: ACT_SUPERSEDED_BY_KEEP_UNCHANGED,
    ACT_CANCELLATION_APPLIED: ACT_CANCELLED,
    ACT_CONSTRAINT_APPLIED: ACT_BLOCKED_BY_CONSTRAINT,
}
_WAITING = (ActStatus.AWAITING_CONFIRMATION, ActStatus.NEEDS_CLARIFICATION)
_SAID_NOT_TO = {
    ConstraintKind.NO_SUBMISSIONS: "not to submit anything",
    ConstraintKind.NO_DESTRUCTIVE: "not to do anything destructive",
    ConstraintKind.NO_CHANGES: "not to change anything",
}
_UNDERSTOOD = {
    ConstraintKind.NO_SUBMISSIONS: "nothing is submitted",
    ConstraintKind.NO_DESTRUCTIVE: "nothing destructive is done",
    ConstraintKind.NO_CHANGES: "nothing is changed",
}


def render_units(
    facts: Facts,
    *,
    covered: set[ActRef],
    answers: Mapping[ActRef, Answer],
    persisted: Mapping[str, InteractionToCreate],
    planned: Mapping[str, InteractionToCreate],
) -> list[Draft]:
    """Drafts for every unit not in ``covered``; ``persisted`` cards are the only ones shown."""
    left = [u for u in facts.units if u.ref not in covered]
    followers: dict[ActRef, list[Unit]] = {}
    leaders = {u.ref: u for u in left if u.result.reason in _LEADS}
    for u in left:
        by = u.result.decided_by
        if (
            by is not None
            and by in leaders
            and _LEADS[leaders[by].result.reason] == u.result.reason
        ):
            followers.setdefault(by, []).append(u)
    grouped = {f.ref for group in followers.values() for f in group}
    drafts: list[Draft] = []
    cards_done: set[str] = set()
    chitchat = [u for u in left if u.result.reason == ACT_CHITCHAT]
    if chitchat:
        refs = tuple(u.ref for u in chitchat)
        drafts.append(
            Draft(kind=BlockKind.TEXT, code=codes.TEXT_CHITCHAT, text=CHITCHAT_REPLY, refs=refs)
        )
    for u in left:
        if u.ref in grouped or u.result.reason in (ACT_CHITCHAT, ACT_CORRECTION_READ):
            continue
        iid = u.result.interaction_id
        if iid is not None and u.result.status in _WAITING:
            if iid not in cards_done:
                cards_done.add(iid)
                group = [w for w in left if w.result.interaction_id == iid]
                drafts.extend(_waiting(facts, group, persisted.get(iid), planned.get(iid)))
        elif u.ref in leaders:
            drafts.append(_led(facts, u, followers.get(u.ref, [])))
        else:
            drafts.append(_single(facts, u, answers))
    for iid, card in persisted.items():
        if iid not in cards_done:
            drafts.append(_card(facts, card, []))
    return drafts


def _single(facts: Facts, u: Unit, answers: Mapping[ActRef, Answer]) -> Draft:
    r = u.result
    if r.reason in (ACT_QUESTION_FOR_GROUNDING, ACT_RECALL_FOR_GROUNDING):
        answer = answers.get(u.ref)
        if answer is not None:
            return answer_draft(answer)
        text = f"No answer: {facts.describe(u)} could not be answered."
        return _notice(codes.NOTICE_NOT_ANSWERED, text, [u])
    if r.status is ActStatus.READY_TO_EXECUTE:
        text = f"Not done: {facts.describe(u)} (it was not carried out)."
        return _notice(codes.NOTICE_NOT_EXECUTED, text, [u])
    if r.reason == ACT_CONDITION_NOT_MET:
        detail = "" if not r.detail else f": {r.detail}"
        text = f"Not done: {facts.describe(u)} (you asked for it on a condition{detail})."
        return _notice(codes.NOTICE_CONDITION_NOT_MET, text, [u])
    if r.status is ActStatus.NO_CHANGE:
        return _notice(codes.NOTICE_NO_CHANGE, _no_change_text(facts, u), [u])
    if r.status is ActStatus.SUPERSEDED_BY_CORRECTION:
        return _notice(codes.NOTICE_SUPERSEDED, _superseded_text(facts, u), [u])
    if r.status is ActStatus.NEEDS_CLARIFICATION:
        return _notice(codes.NOTICE_NEEDS_CLARIFICATION, _clarify_text(facts, u), [u])
    if r.status is ActStatus.AWAITING_CONFIRMATION:  # without a card: nothing can confirm it
        return _notice(codes.NOTICE_NOT_PREPARED, _not_prepared_text(facts, [u]), [u])
    if r.reason == ACT_BLOCKED_BY_CONSTRAINT:
        text = f"Not done: {facts.describe(u)} (a constraint in your message forbids it)."
        return _notice(codes.NOTICE_BLOCKED_BY_CONSTRAINT, text, [u])
    return _notice(codes.NOTICE_REJECTED, _rejected_text(facts, u), [u])


def _led(facts: Facts, leader: Unit, led: Sequence[Unit]) -> Draft:
    """A keep-unchanged, cancellation or constraint, with the acts it decided."""
    units = [*led, leader]
    reason = leader.result.reason
    if reason == ACT_KEPT_UNCHANGED:
        text = f"Not changed: {facts.describe(leader)} (you asked to leave it as it is)."
        return _notice(codes.NOTICE_KEPT_UNCHANGED, text, units)
    if reason == ACT_CANCELLATION_APPLIED:
        if not led:
            text = f"Withdrawn: {facts.describe(leader)}; there was nothing left to withdraw."
            return _notice(codes.NOTICE_SUPERSEDED, text, units)
        text = f"Not done: {facts.describe(led[0])} (you withdrew it)."
        return _notice(codes.NOTICE_SUPERSEDED, text, units)
    act = leader.act
    if not led:
        understood = _understood(act)
        return _notice(codes.NOTICE_CONSTRAINT_APPLIED, f"Understood: {understood}.", units)
    said = _said_not_to(act)
    text = f"Not done: {facts.describe_all(led)} (you said {said})."
    return _notice(codes.NOTICE_BLOCKED_BY_CONSTRAINT, text, units)


def _understood(act: object) -> str:
    if not isinstance(act, ConstraintAct):
        return "the constraint applies to this message"
    if act.forbids is ConstraintKind.NO_OPERATION:
        return f"no {name_label(act.operation or '')} in this message"
    return f"{_UNDERSTOOD[act.forbids]} in this message"


def _said_not_to(act: object) -> str:
    if not isinstance(act, ConstraintAct):
        return "not to"
    if act.forbids is ConstraintKind.NO_OPERATION:
        return f"not to {name_label(act.operation or '')}"
    return _SAID_NOT_TO[act.forbids]


def _waiting(
    facts: Facts,
    group: Sequence[Unit],
    card: InteractionToCreate | None,
    planned: InteractionToCreate | None,
) -> list[Draft]:
    """Acts waiting on a card: a notice and the card, or, without a persisted card, neither."""
    if card is None:
        return [_notice(codes.NOTICE_NOT_PREPARED, _not_prepared_text(facts, group), group)]
    subject = facts.describe_all(group)
    if card.kind is InteractionKind.CONFIRM_COMMAND:
        notice = _notice(
            codes.NOTICE_AWAITING_CONFIRMATION,
            f"Not yet: {subject} \u2014 waiting for your confirmation.",
            group,
        )
    elif card.kind is InteractionKind.PROVIDE_ARGUMENT:
        argument = card.argument or ""
        unreadable = any(u.result.reason == ACT_UNREADABLE_ARGUMENT for u in group)
        why = "I could not read the" if unreadable else "it needs the"
        notice = _notice(
            codes.NOTICE_NEEDS_ARGUMENT,
            f"Not yet: {subject} \u2014 {why} {name_label(argument)}; please say it.",
            group,
        )
        notice = attrs.evolve(notice, data={**notice.data, "argument": argument})
    elif card.kind is InteractionKind.CHOOSE_CHANGE:
        notice = _notice(
            codes.NOTICE_NEEDS_CLARIFICATION,
            f"Not yet: {subject} \u2014 what would you like to change?",
            group,
        )
    else:
        label = quote(card.target_label or "")
        count = len(card.options)
        notice = _notice(
            codes.NOTICE_NEEDS_CLARIFICATION,
            f"Not yet: {subject} \u2014 {count} cases are named {label}; choose one.",
            group,
        )
    return [notice, _card(facts, card, group)]


def _card(facts: Facts, card: InteractionToCreate, group: Sequence[Unit]) -> Draft:
    refs = tuple(dict.fromkeys([*(u.ref for u in group), *card.acts]))
    extra: dict[str, Any] = {}
    if card.kind is InteractionKind.CONFIRM_COMMAND:
        code = codes.CARD_CONFIRM_COMMAND
        subject = facts.describe_all(group) if group else _case_of(facts, card)
        text = f"Please confirm: {subject}."
        if card.commands:
            lines = (card_line(c, facts.case_ref(c.case_id)) for c in card.commands)
            text = "Please confirm: " + "; ".join(lines) + "."
            extra["commands"] = [unstructure(c) for c in card.commands]
    elif card.kind is InteractionKind.PROVIDE_ARGUMENT:
        code = codes.CARD_PROVIDE_ARGUMENT
        asked = name_label(card.argument or "")
        what = facts.describe_all(group) if group else _case_of(facts, card)
        choices = [o.label for o in card.options if o.label]
        text = f"Which {asked} for {what}?" + (
            f" Choose {', '.join(quote(c) for c in choices)}." if choices else " Say it."
        )
        pending = card.pending_acts[0] if len(card.pending_acts) == 1 else None
        if isinstance(pending, SetFieldAct) and card.case_id is not None:
            text = f"What should the {asked} be on {facts.case_ref(card.case_id)}? Say it."
        extra["argument"] = card.argument
    elif card.kind is InteractionKind.CHOOSE_CHANGE:
        code = codes.CARD_CHOOSE_CHANGE
        choices = [o.label for o in card.options if o.label]
        case = "the case" if card.case_id is None else facts.case_ref(card.case_id)
        text = f"What would you like to change on {case}?"
        text += f" Choose {', '.join(quote(c) for c in choices)}, or say what and to what."
    else:
        code = codes.CARD_SELECT_TARGET
        text = f"Which {quote(card.target_label or '')} do you mean?"
    options = [
        {
            "option_id": o.option_id,
            "action": o.action.value,
            "label": o.label if o.label is not None else o.option_id,
            "case_id": o.case_id,
        }
        for o in card.options
    ]
    data: dict[str, Any] = {
        "interaction_id": card.interaction_id,
        "interaction_kind": card.kind.value,
        "case_id": card.case_id,
        "expected_revision": card.expected_revision,
        "options": options,
        **extra,
    }
    return Draft(kind=BlockKind.CARD, code=code, text=text, refs=refs, data=data)


def card_line(command: CardCommand, case: str) -> str:
    """``refund on Order “1001” (Ana Reis): amount 120.00 EUR (proposed), reason “closed”``."""
    parts = []
    for name, shown in command.shown.items():
        proposed = " (proposed)" if name in command.proposed else ""
        parts.append(f"{name_label(name)} {shown}{proposed}")
    who = f" ({', '.join(command.identifying)})" if command.identifying else ""
    head = f"{name_label(command.operation)} on {case}{who}"
    return head + (": " + ", ".join(parts) if parts else "")


def _case_of(facts: Facts, card: InteractionToCreate) -> str:
    return "the change" if card.case_id is None else f"the change on {facts.case_ref(card.case_id)}"


def _not_prepared_text(facts: Facts, group: Sequence[Unit]) -> str:
    return (
        f"Not done: {facts.describe_all(group)} could not be prepared, "
        "so nothing was changed. Please ask again."
    )


def _no_change_text(facts: Facts, u: Unit) -> str:
    reason = u.result.reason
    if reason == ACT_VALUE_UNCHANGED:
        value = _value(u)
        already = "" if value is None else f" is already {quote(value)}"
        return f"Already so: {_field_or_what(facts, u)}{already}."
    if reason == ACT_DUPLICATE:
        return f"Counted once: {facts.describe(u)} (you asked for it twice)."
    if reason == ACT_NO_EFFECT:
        return f"Nothing to change: {facts.describe(u)} would have no effect."
    return f"No change: {facts.describe(u)}."


def _field_or_what(facts: Facts, u: Unit) -> str:
    if isinstance(u.act, SetFieldAct):
        return name_label(u.act.field) + facts.where(u)
    return facts.describe(u)


def _value(u: Unit) -> str | None:
    return u.act.value if isinstance(u.act, SetFieldAct | CorrectAct) else None


def _superseded_text(facts: Facts, u: Unit) -> str:
    reason = u.result.reason
    decider = facts.unit(u.result.decided_by)
    if reason == ACT_SUPERSEDED_BY_CORRECTION:
        final = None if decider is None else _value(decider)
        to = "" if final is None else f" to {quote(final)}"
        return f"Not used: {facts.describe(u)} (you corrected it{to})."
    if reason == ACT_SUPERSEDED_BY_KEEP_UNCHANGED:
        return f"Not changed: {facts.describe(u)} (you asked to leave it as it is)."
    if reason == ACT_CANCELLED:
        return f"Not done: {facts.describe(u)} (you withdrew it)."
    if reason == ACT_OVERRIDDEN_BY_INTERACTION:
        return f"Not done: {facts.describe(u)} (your choice on the pending question decides it)."
    return f"Not done: {facts.describe(u)} (it was superseded)."


def _clarify_text(facts: Facts, u: Unit) -> str:
    reason = u.result.reason
    if reason == ACT_UNKNOWN_TARGET:
        return f"Not done: {facts.describe(u)} (no such case was found; say which case you mean)."
    if reason == ACT_CONFLICTING_VALUES:
        other = facts.unit(u.result.decided_by)
        versus = "" if other is None or other is u else f" conflicts with {what_of(other)}"
        return f"Not done: {facts.describe(u)}{versus} (say which value you want)."
    if reason == ACT_AMBIGUOUS_TARGET:
        return f"Not done: {facts.describe(u)} (several cases match; say which one you mean)."
    if reason == ACT_VALUE_DISOWNED:
        return (
            f"Not done: the request you said was wrong{facts.where(u)} is withdrawn; "
            "please say what it should be."
        )
    if reason == ACT_CHANGE_UNNAMED:
        return f"Not yet: {facts.describe(u)} \u2014 what would you like to change, and to what?"
    return f"Not done: {facts.describe(u)} (it needs clarification)."


def what_of(u: Unit) -> str:
    value = _value(u)
    return "another value" if value is None else quote(value)


_REJECTED_BECAUSE = {
    ACT_INSIDE_HYPOTHETICAL: "you only asked what would happen",
    ACT_UNKNOWN_WORKFLOW: "no such workflow is known",
    ACT_UNKNOWN_FIELD: "there is no such field",
    ACT_UNKNOWN_OPERATION: "there is no such operation",
    ACT_CASE_NOT_STARTED: "its new case could not be started",
}


def _rejected_text(facts: Facts, u: Unit) -> str:
    r = u.result
    if r.rejection is not None:
        return f"Not done: {facts.describe(u)}. {sentence(r.rejection.message)}"
    if r.reason == ACT_REJECTED_WITH_UNIT:
        decider = facts.unit(r.decided_by)
        other = "another change" if decider is None else facts.describe(decider)
        return f"Not done: {facts.describe(u)} (you asked for it together with {other}, which \
could not be done now)."
    if r.reason == ACT_REJECTED_WITH_BATCH:
        decider = facts.unit(r.decided_by)
        other = "another change" if decider is None else facts.describe(decider)
        return f"Not done: {facts.describe(u)} (it belonged with {other}, which was refused)."
    if r.reason in (ACT_INVALID_VALUE, ACT_UNKNOWN_ARGUMENT, ACT_MISSING_ARGUMENT):
        problem = {
            ACT_INVALID_VALUE: "the value is not valid",
            ACT_UNKNOWN_ARGUMENT: "an argument is not known",
            ACT_MISSING_ARGUMENT: "an argument is missing",
        }[r.reason]
        detail = "" if not r.detail else f": {r.detail.rstrip('.')}"
        return f"Not done: {facts.describe(u)} ({problem}{detail})."
    why = _REJECTED_BECAUSE.get(r.reason, f"it was rejected: {r.reason}")
    return f"Not done: {facts.describe(u)} ({why})."


def answer_draft(answer: Answer) -> Draft:
    ref = ActRef(index=answer.act_index, interaction_id=answer.interaction_id)
    data: dict[str, Any] = {
        "grounding_source": answer.grounding_source.value,
        "provenance": unstructure(answer.provenance),
    }
    return Draft(kind=BlockKind.ANSWER, code=answer.code, text=answer.text, refs=(ref,), data=data)


def _notice(code: str, text: str, units: Sequence[Unit]) -> Draft:
    return Draft(
        kind=BlockKind.NOTICE,
        code=code,
        text=text,
        refs=tuple(u.ref for u in units),
        data={"reasons": [u.result.reason for u in units]},
    )
