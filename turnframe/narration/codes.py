"""Every code a response block carries, in one place.

A block's ``code`` says what the block means; clients, tests and logs match on it, never on the
text. ``docs/responses.md`` says when each appears. Answer codes are defined with grounding and
listed here too.
"""

from __future__ import annotations

from turnframe.grounding.codes import ANSWER_CODES
from turnframe.recall.codes import RECALL_CODES
from turnframe.results import NOTICE_NOT_UNDERSTOOD as NOTICE_NOT_UNDERSTOOD  # the reducer's

# -- receipts: only from committed events ---------------------------------------------------
RECEIPT_COMMITTED = "turnframe.receipt.committed"

# -- cards: only for interactions actually persisted ----------------------------------------
CARD_CONFIRM_COMMAND = "turnframe.card.confirm_command"
CARD_SELECT_TARGET = "turnframe.card.select_target"
CARD_PROVIDE_ARGUMENT = "turnframe.card.provide_argument"
CARD_CHOOSE_CHANGE = "turnframe.card.choose_change"

# -- plain texts ----------------------------------------------------------------------------
TEXT_CHITCHAT = "turnframe.text.chitchat"
#: An optional one-sentence lead written by a narration provider; never a claim of its own.
TEXT_MODEL_LEAD = "turnframe.text.model_lead"

# -- notices: what did not happen, or not yet, and why --------------------------------------
NOTICE_KEPT_UNCHANGED = "turnframe.notice.kept_unchanged"
NOTICE_SUPERSEDED = "turnframe.notice.superseded"
NOTICE_REJECTED = "turnframe.notice.rejected"
NOTICE_BLOCKED_BY_CONSTRAINT = "turnframe.notice.blocked_by_constraint"
NOTICE_CONSTRAINT_APPLIED = "turnframe.notice.constraint_applied"
NOTICE_NEEDS_CLARIFICATION = "turnframe.notice.needs_clarification"
#: An argument is missing or unreadable: the notice names it (``data.argument``) and a
#: provide-argument card asks for it (with its values as options when they are finite).
NOTICE_NEEDS_ARGUMENT = "turnframe.notice.needs_argument"
#: A conditional act whose condition did not hold: the branch not taken.
NOTICE_CONDITION_NOT_MET = "turnframe.notice.condition_not_met"
NOTICE_AWAITING_CONFIRMATION = "turnframe.notice.awaiting_confirmation"
NOTICE_NOT_PREPARED = "turnframe.notice.not_prepared"
NOTICE_NO_CHANGE = "turnframe.notice.no_change"
NOTICE_VERIFICATION_IN_PROGRESS = "turnframe.notice.verification_in_progress"
NOTICE_COMMAND_FAILED = "turnframe.notice.command_failed"
NOTICE_NOT_EXECUTED = "turnframe.notice.not_executed"
NOTICE_DECLINED = "turnframe.notice.declined"
NOTICE_CARD_STALE = "turnframe.notice.card_stale"
NOTICE_ALREADY_DONE = "turnframe.notice.already_done"
NOTICE_NOT_ANSWERED = "turnframe.notice.not_answered"
NOTICE_PLAN_REJECTED = "turnframe.notice.plan_rejected"
NOTICE_INTERPRETATION_FAILED = "turnframe.notice.interpretation_failed"
#: The message is over ``RuntimeSettings.max_turn_chars``: not read, nothing done.
NOTICE_INPUT_TOO_LONG = "turnframe.notice.input_too_long"
#: A turn that kept failing the same way was parked: nothing of it committed.
NOTICE_TURN_FAILED = "turnframe.notice.turn_failed"
#: A turn whose changes committed but whose reply kept failing: a fallback reply.
NOTICE_REPLY_UNAVAILABLE = "turnframe.notice.reply_unavailable"

NOTICE_CODES: frozenset[str] = frozenset(
    value for name, value in dict(globals()).items() if name.startswith("NOTICE_")
)
RECEIPT_CODES: frozenset[str] = frozenset({RECEIPT_COMMITTED})
CARD_CODES: frozenset[str] = frozenset(
    {CARD_CONFIRM_COMMAND, CARD_SELECT_TARGET, CARD_PROVIDE_ARGUMENT, CARD_CHOOSE_CHANGE}
)
TEXT_CODES: frozenset[str] = frozenset({TEXT_CHITCHAT, TEXT_MODEL_LEAD})

#: Every code a block may carry.
BLOCK_CODES: frozenset[str] = (
    NOTICE_CODES | RECEIPT_CODES | CARD_CODES | TEXT_CODES | ANSWER_CODES | RECALL_CODES
)
