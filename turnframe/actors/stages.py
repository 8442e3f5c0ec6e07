"""The typed messages the pipeline's actors pass to each other (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from turnframe.execution import ExecutionReport
from turnframe.lifecycle import TurnPhase
from turnframe.messages import UserTurn
from turnframe.plan import Act, UserTurnPlan
from turnframe.providers.attempts import ProviderAttempt
from turnframe.providers.base import Purpose
from turnframe.reduce import ReductionContext
from turnframe.results import InteractionToCreate, ReductionPlan
from turnframe.stores.inputs import BundleReply
from turnframe.stores.records import Admission

#: Composes the turn's reply from the execution report inside the commit bundle (ADR 0022):
#: pure and synchronous (it may run on the store's thread).
ReplyOfReport = Callable[[ExecutionReport], BundleReply | None]


@attrs.frozen(kw_only=True)
class HandleTurn:
    """To a SessionActor: take this turn through every phase it has not passed yet."""

    turn: UserTurn


@attrs.frozen(kw_only=True)
class Interpret:
    turn: UserTurn
    workflow: str
    case_labels: tuple[str, ...]
    focus_label: str | None = None
    #: Other names the cases go by (identifying values such as a customer's name), each with
    #: the labels of the cases it names.
    case_names: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    #: The previous turn's acts, so "same for 1002" or "sorry, 1500" can lean on them.
    previous_acts: tuple[Act, ...] = ()
    prior_attempts: tuple[ProviderAttempt, ...] = ()
    recall_pending: str | None = None  # what a recall in progress waits for (docs/recall.md)


@attrs.frozen(kw_only=True)
class Interpretation:
    """A strictly parsed plan and how it was obtained (for the replay record)."""

    plan: UserTurnPlan
    raw: str
    provider: str
    attempts: tuple[ProviderAttempt, ...]
    template_hash: str
    references: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Reduce:
    plan: UserTurnPlan
    context: ReductionContext


@attrs.frozen(kw_only=True)
class Execute:
    """To the ExecutionGate: admit (the seal), run and commit the turn's batches."""

    turn: UserTurn
    reduction: ReductionPlan
    replay: dict[str, Any]
    phase: TurnPhase  # the phase the session last saw; admission re-checks it by CAS
    cases: Mapping[str, Any] = attrs.field(factory=dict)  # snapshots read before reduction
    #: The admissions of the session's own seal transaction (live path): the gate does not
    #: admit again. None (a resumed turn): the gate admits, idempotently by key.
    admitted: tuple[Admission, ...] | None = None
    #: When the gate admits (a resumed turn still ``reduced``): admit only if the ready
    #: batches' cases are as reduced and no other turn writes them (hot cases, ADR 0018);
    #: otherwise answer ``CaseContended`` with nothing written.
    guarded: bool = False
    #: With template narration: the reply, composed and stored inside the commit bundle
    #: (the report then says ``reply_stored``); None: the session stores it afterwards.
    reply: ReplyOfReport | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class MayRetry:
    """To the ExecutionGate: may this turn's provider call be retried or fall back?"""

    account_id: str
    turn_id: str
    purpose: Purpose


@attrs.frozen(kw_only=True)
class Ground:
    turn: UserTurn
    turn_index: int
    plan: UserTurnPlan
    reduction: ReductionPlan
    thread: Any  # turnframe.corpora.ThreadContext
    anaphora: bool | None = None  # the session's choice; None: the grounding stage's default


@attrs.frozen(kw_only=True)
class Narrate:
    turn: UserTurn
    plan: UserTurnPlan | None
    reduction: ReductionPlan | None
    execution: ExecutionReport | None
    cards: Sequence[InteractionToCreate]
    answers: Sequence[Any]
    failure: Any = None
    cases: Mapping[str, Any] = attrs.field(factory=dict)  # case id -> CaseSnapshot
    answered: InteractionToCreate | None = None  # the card this turn's click answered
    recall: Sequence[Any] = ()  # the recall stage's drafts (turnframe.narration.draft.Draft)


@attrs.frozen(kw_only=True)
class Grounded:
    """The grounding stage's answers, in act order, and the turn's thread summary (if any)."""

    answers: tuple[Any, ...]
    summary: Any = None  # turnframe.corpora.TurnSummary


@attrs.frozen(kw_only=True)
class Narration:
    """The ordered response blocks, and the narration provider's attempts (if one was asked)."""

    blocks: tuple[Any, ...]  # turnframe.response.Block
    attempts: tuple[ProviderAttempt, ...] = ()


@attrs.frozen(kw_only=True)
class SettledReport:
    """To the gate: the execution report of a committed turn, rebuilt from the store."""

    turn: UserTurn
    reduction: ReductionPlan
