"""What the reducer decides: one result per act, command batches, interactions to create.

Every reason is a stable dotted code defined here once; logs, tests, the narrator and adopters
match on the codes, never on prose.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from turnframe.lifecycle import JournalStatus as JournalStatus  # re-exported vocabulary
from turnframe.lifecycle import TurnPhase as TurnPhase  # re-exported vocabulary
from turnframe.plan import Act, Evidence
from turnframe.policy import AtomicityScope, CommandPolicy

# -- reasons for an act's result ------------------------------------------------------------
ACT_READY = "turnframe.act.ready"
ACT_AWAITING_CONFIRMATION = "turnframe.act.awaiting_confirmation"
ACT_QUESTION_FOR_GROUNDING = "turnframe.act.question_for_grounding"
ACT_RECALL_FOR_GROUNDING = "turnframe.act.recall_for_grounding"
ACT_CHITCHAT = "turnframe.act.chitchat"
ACT_CANCELLATION_APPLIED = "turnframe.act.cancellation_applied"
ACT_CANCELLED = "turnframe.act.cancelled"
ACT_SUPERSEDED_BY_CORRECTION = "turnframe.act.superseded_by_correction"
ACT_KEPT_UNCHANGED = "turnframe.act.kept_unchanged"
ACT_SUPERSEDED_BY_KEEP_UNCHANGED = "turnframe.act.superseded_by_keep_unchanged"
ACT_CONSTRAINT_APPLIED = "turnframe.act.constraint_applied"
ACT_BLOCKED_BY_CONSTRAINT = "turnframe.act.blocked_by_constraint"
ACT_INSIDE_HYPOTHETICAL = "turnframe.act.inside_hypothetical_question"
ACT_AMBIGUOUS_TARGET = "turnframe.act.ambiguous_target"
ACT_UNKNOWN_TARGET = "turnframe.act.unknown_target"
ACT_UNKNOWN_WORKFLOW = "turnframe.act.unknown_workflow"
ACT_UNKNOWN_FIELD = "turnframe.act.unknown_field"
ACT_UNKNOWN_OPERATION = "turnframe.act.unknown_operation"
ACT_UNKNOWN_ARGUMENT = "turnframe.act.unknown_argument"
ACT_MISSING_ARGUMENT = "turnframe.act.missing_argument"  # asked for, in a clarification
ACT_UNREADABLE_ARGUMENT = "turnframe.act.unreadable_argument"  # asked for again
ACT_CONDITION_NOT_MET = "turnframe.act.condition_not_met"  # the branch not taken
ACT_UNKNOWN_CONDITION = "turnframe.act.unknown_condition"
ACT_REJECTED_WITH_UNIT = "turnframe.act.rejected_with_unit"  # another act of its unit failed
ACT_INVALID_VALUE = "turnframe.act.invalid_value"
ACT_REJECTED_BY_WORKFLOW = "turnframe.act.rejected_by_workflow"
ACT_REJECTED_WITH_BATCH = "turnframe.act.rejected_with_batch"
ACT_VALUE_UNCHANGED = "turnframe.act.value_unchanged"
ACT_NO_EFFECT = "turnframe.act.no_effect"
ACT_DUPLICATE = "turnframe.act.duplicate"
ACT_CONFLICTING_VALUES = "turnframe.act.conflicting_values"
ACT_CASE_NOT_STARTED = "turnframe.act.case_not_started"
ACT_OVERRIDDEN_BY_INTERACTION = "turnframe.act.overridden_by_interaction"
#: A change with nothing named ("I want to change something"): the desk asks what to change.
ACT_CHANGE_UNNAMED = "turnframe.act.change_unnamed"
#: The open card's value disowned without a new one ("no wait, wrong amount"): asked for.
ACT_VALUE_DISOWNED = "turnframe.act.value_disowned"
#: A correction whose words were read as the open card's new value ("wait, make it the full
#: amount instead"): the amended card says it all, so the act itself shows nothing.
ACT_CORRECTION_READ = "turnframe.act.correction_read"

# -- reasons for the outcome of a structured interaction response ----------------------------
INTERACTION_CONFIRMED = "turnframe.interaction.confirmed"
INTERACTION_DECLINED = "turnframe.interaction.declined"
INTERACTION_TARGET_SELECTED = "turnframe.interaction.target_selected"
INTERACTION_ARGUMENT_PROVIDED = "turnframe.interaction.argument_provided"
INTERACTION_CHANGE_CHOSEN = "turnframe.interaction.change_chosen"
INTERACTION_AMENDED = "turnframe.interaction.amended"  # a new value for an open card's command
INTERACTION_STALE = "turnframe.interaction.stale"
INTERACTION_UNKNOWN = "turnframe.interaction.unknown"
INTERACTION_UNKNOWN_OPTION = "turnframe.interaction.unknown_option"

# -- notices the reducer emits ----------------------------------------------------------------
NOTICE_NOT_UNDERSTOOD = "turnframe.notice.not_understood"

REASON_CODES: frozenset[str] = frozenset(
    value for name, value in dict(globals()).items() if name.startswith(("ACT_", "INTERACTION_"))
)


class ActStatus(enum.StrEnum):
    READY_TO_EXECUTE = "ready_to_execute"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    NEEDS_CLARIFICATION = "needs_clarification"
    REJECTED = "rejected"
    SUPERSEDED_BY_CORRECTION = "superseded_by_correction"
    NO_CHANGE = "no_change"


@attrs.frozen(kw_only=True)
class Rejection:
    """A workflow's typed refusal: its own stable code and a message for the user."""

    code: str
    message: str


@attrs.frozen(kw_only=True)
class ActRef:
    """An act: of this turn's plan (``interaction_id`` None), or a pending act of a card."""

    index: int
    interaction_id: str | None = None


@attrs.frozen(kw_only=True)
class PlannedActResult:
    """The one result of one act.

    ``decided_by`` is the act whose presence decided this result (the act itself when nothing
    else did); ``None`` only when the turn's interaction response decided it.
    """

    act_index: int
    kind: str
    status: ActStatus
    reason: str
    decided_by: ActRef | None
    case_id: str | None = None
    command_ids: tuple[str, ...] = ()
    interaction_id: str | None = None  # the card created for this act, if any
    rejection: Rejection | None = None
    detail: str | None = None


@attrs.frozen(kw_only=True)
class PlannedCommand:
    """One command, with identities derived only from its content and origin."""

    command_id: str
    idempotency_key: str
    content_digest: str  # compare with turnframe._identity.command_digest on key reuse
    case_id: str
    workflow: str
    expected_revision: int
    name: str
    args: dict[str, Any]  # plain JSON, structured by the workflow at execution
    origin: ActRef
    policy: CommandPolicy
    scope: AtomicityScope
    is_submission: bool = False
    is_destructive: bool = False
    needs_confirmation: bool = False


@attrs.frozen(kw_only=True)
class CommandBatch:
    """Commands on one case that commit whole or not at all, under one revision bump.

    ``expected_revision`` is the case revision the batch expects; batches on one case are listed
    in execution order with consecutive revisions. ``creates_case`` marks a batch whose first
    command is ``start_case`` (expected revision 0).
    """

    batch_id: str
    case_id: str
    workflow: str
    scope: AtomicityScope
    group: str | None
    expected_revision: int
    creates_case: bool
    commands: tuple[PlannedCommand, ...]


class InteractionKind(enum.StrEnum):
    CONFIRM_COMMAND = "confirm_command"
    SELECT_TARGET = "select_target"
    PROVIDE_ARGUMENT = "provide_argument"  # a clarification: the value of one argument
    #: A clarification: what to change on a case (its fields and operations, or the
    #: arguments of a disowned request, as options).
    CHOOSE_CHANGE = "choose_change"
    #: The recall stage's store-expansion card: confirm = search the full text, decline = stop.
    #: It authorizes no command; the recall stage reads the click (docs/recall.md).
    RECALL_EXPANSION = "recall_expansion"


class OptionAction(enum.StrEnum):
    CONFIRM = "confirm"
    DECLINE = "decline"
    SELECT_CASE = "select_case"
    PROVIDE_VALUE = "provide_value"
    #: A choose-change option: ``value`` is ``field:NAME``, ``operation:NAME`` or
    #: ``argument:NAME`` (an argument of the card's pending request).
    CHOOSE_CHANGE = "choose_change"


@attrs.frozen(kw_only=True)
class InteractionOption:
    """What an option means is stored here, server side; a click names only ``option_id``."""

    option_id: str
    action: OptionAction
    case_id: str | None = None
    label: str | None = None
    value: str | None = None  # a provide-value option: the argument's text, as a user says it


@attrs.frozen(kw_only=True)
class CardCommand:
    """One command as its confirmation card shows it: exactly what a click executes.

    ``arguments`` are the command's JSON arguments as executed; ``shown`` words each one for
    the user ("120.00 EUR"); ``proposed`` names those the workflow proposed (not said).
    """

    command_id: str
    case_id: str
    record: str  # the case's label
    identifying: tuple[str, ...]  # what else identifies it (a customer's name, the item)
    operation: str
    arguments: dict[str, Any]
    shown: dict[str, str]
    proposed: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class InteractionToCreate:
    """A card to persist between reduction and execution.

    A confirm-command card carries the batches it authorizes (journaled
    ``awaiting_confirmation``) and the case revision they expect. A select-target card carries
    the acts that wait for the user's choice of case, already resolved for corrections. A
    provide-argument card carries the one act that waits for ``argument`` (on ``case_id``); the
    user answers by clicking a value or by saying it in the next turn.
    """

    interaction_id: str
    kind: InteractionKind
    turn_id: str
    acts: tuple[ActRef, ...]
    options: tuple[InteractionOption, ...]
    case_id: str | None = None
    expected_revision: int | None = None
    awaiting_batches: tuple[CommandBatch, ...] = ()
    pending_acts: tuple[Act, ...] = ()
    target_label: str | None = None
    commands: tuple[CardCommand, ...] = ()  # a confirm-command card: what a click executes
    argument: str | None = None  # a provide-argument card: the argument it asks for

    @property
    def authorized_command_ids(self) -> tuple[str, ...]:
        return tuple(c.command_id for b in self.awaiting_batches for c in b.commands)


@attrs.frozen(kw_only=True)
class GroundingRequest:
    """A question or recall the grounding stage must answer; never an action."""

    act: ActRef
    kind: str  # "question" or "recall"
    evidence: tuple[Evidence, ...]
    question: str | None = None  # the workflow's read-only question, if the act named one
    description: str | None = None  # what a recall describes
    case_id: str | None = None
    hypothetical: bool = False


@attrs.frozen(kw_only=True)
class Notice:
    code: str
    evidence: tuple[Evidence, ...] = ()


class InteractionOutcomeStatus(enum.StrEnum):
    CONFIRMED = "confirmed"
    DECLINED = "declined"
    TARGET_SELECTED = "target_selected"
    ARGUMENT_PROVIDED = "argument_provided"
    CHANGE_CHOSEN = "change_chosen"
    AMENDED = "amended"
    STALE = "stale"
    REJECTED = "rejected"


@attrs.frozen(kw_only=True)
class InteractionOutcome:
    """What the turn's structured response decided; the gate acts on it.

    ``confirmed``: run ``authorized_command_ids`` by key. ``declined``: settle
    ``declined_command_ids`` without running them. ``target_selected``: the card's pending acts
    were reduced on ``case_id``; their results are in ``results`` and their commands in the
    plan's batches. ``stale`` and ``rejected`` execute nothing.
    """

    interaction_id: str
    option_id: str
    status: InteractionOutcomeStatus
    reason: str
    case_id: str | None = None
    authorized_command_ids: tuple[str, ...] = ()
    declined_command_ids: tuple[str, ...] = ()
    results: tuple[PlannedActResult, ...] = ()


@attrs.frozen(kw_only=True)
class ReductionPlan:
    """The reducer's whole decision for one turn. Same input, same bytes, same hash."""

    account_id: str
    session_id: str
    turn_id: str
    plan_hash: str
    results: tuple[PlannedActResult, ...]
    batches: tuple[CommandBatch, ...]
    interactions: tuple[InteractionToCreate, ...]
    grounding: tuple[GroundingRequest, ...]
    notices: tuple[Notice, ...]
    interaction_outcome: InteractionOutcome | None = None
    superseded_interaction_ids: tuple[str, ...] = ()

    @property
    def awaiting_batches(self) -> tuple[CommandBatch, ...]:
        """Batches to journal ``awaiting_confirmation``, in order."""
        return tuple(b for i in self.interactions for b in i.awaiting_batches)
