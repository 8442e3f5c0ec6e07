"""Blocks for the card this turn's click answered, and for a turn that failed as a whole.

They stand before the turn's own acts: the click binds first, and a turn-level failure is the
first thing to say.
"""

from __future__ import annotations

from turnframe.execution import BatchStatus, ExecutionReport
from turnframe.narration import codes
from turnframe.narration.draft import Draft
from turnframe.narration.facts import Facts
from turnframe.narration.failure import TurnFailure, TurnFailureKind
from turnframe.response import BlockKind
from turnframe.results import INTERACTION_UNKNOWN, InteractionOutcome, InteractionOutcomeStatus

Status = InteractionOutcomeStatus

CLICK_AT = -1.0
FAILURE_AT = -2.0

_FAILURE_TEXTS = {
    TurnFailureKind.INTERPRETATION_FAILED: (
        codes.NOTICE_INTERPRETATION_FAILED,
        "I could not interpret your message just now, so nothing was done. Please try again.",
    ),
    TurnFailureKind.PLAN_REJECTED: (
        codes.NOTICE_PLAN_REJECTED,
        "I could not read your message as a whole, so nothing was done. Please rephrase it.",
    ),
    TurnFailureKind.INPUT_TOO_LONG: (
        codes.NOTICE_INPUT_TOO_LONG,
        "Your message is longer than I read at once, so nothing was done. Please send it in "
        "shorter parts.",
    ),
}

#: Failures after which nothing of the turn was reduced: only the failure is said.
TURN_LEVEL_FAILURES = frozenset(_FAILURE_TEXTS)


def render_failure(failure: TurnFailure | None) -> list[Draft]:
    if failure is None or failure.kind not in _FAILURE_TEXTS:
        return []
    code, text = _FAILURE_TEXTS[failure.kind]
    data = {"failure": failure.kind.value, "error_code": failure.error_code}
    return [Draft(kind=BlockKind.NOTICE, code=code, text=text, data=data, at=FAILURE_AT)]


def render_decision(
    facts: Facts, decided: InteractionOutcome | None, execution: ExecutionReport | None
) -> list[Draft]:
    """What the click decided, when no receipt or act block already says it."""
    if decided is None:
        return []
    data: dict[str, object] = {
        "interaction_id": decided.interaction_id,
        "option_id": decided.option_id,
        "reason": decided.reason,
    }
    on = "" if decided.case_id is None else " on " + facts.case_ref(decided.case_id)
    if decided.status is Status.CONFIRMED:
        return _confirmed(decided, execution, data)
    if decided.status is Status.DECLINED:
        return [_notice(codes.NOTICE_DECLINED, f"Declined: nothing was done{on}.", data)]
    if decided.status is Status.STALE:
        text = (
            f"Not done: that choice is out of date{on} (a newer request replaced it, or the case "
            "changed since you were asked); nothing was done."
        )
        return [_notice(codes.NOTICE_CARD_STALE, text, data)]
    if decided.status is Status.REJECTED and decided.reason == INTERACTION_UNKNOWN:
        text = "Nothing new was done: that choice is no longer open."
        return [_notice(codes.NOTICE_ALREADY_DONE, text, data)]
    if decided.status is Status.REJECTED:
        text = "Not done: that option is not on offer; nothing was done."
        return [_notice(codes.NOTICE_REJECTED, text, data)]
    return []  # target selected: the chosen acts are rendered like the turn's own


def _confirmed(
    decided: InteractionOutcome, execution: ExecutionReport | None, data: dict[str, object]
) -> list[Draft]:
    authorized = set(decided.authorized_command_ids)
    outcomes = [
        o for o in (execution.outcomes if execution else ()) if authorized & set(o.command_ids)
    ]
    if not outcomes:
        text = "Not done: the change you confirmed was not carried out."
        return [_notice(codes.NOTICE_NOT_EXECUTED, text, data)]
    said = any(o.events or o.status is BatchStatus.FAILED for o in outcomes)
    if not said and all(o.status is BatchStatus.COMMITTED for o in outcomes):
        text = "Nothing changed: the change you confirmed had no effect."
        return [_notice(codes.NOTICE_NO_CHANGE, text, data)]
    return []


def _notice(code: str, text: str, data: dict[str, object]) -> Draft:
    return Draft(kind=BlockKind.NOTICE, code=code, text=text, data=data, at=CLICK_AT)
