"""What callers hand a store: new rows, compare-and-swap moves and the commit bundle.

Shape is validated here, at the boundary; rules that need stored state (a stale revision, an
illegal phase move) are checked by the store inside its transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import attrs

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores.records import BundleReceipt, InteractionStatus, Json


def _aware(_: Any, attribute: attrs.Attribute[Any], value: datetime | None) -> None:
    if value is not None and value.utcoffset() is None:
        raise ValueError(f"{attribute.name} must be timezone-aware, got {value!r}")


def _non_negative(_: Any, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{attribute.name} must be >= 0, got {value}")


def check_lease_terms(worker_id: str, now: datetime, expires_at: datetime) -> None:
    """Refuse a session lease request that cannot mean anything: no worker, a naive instant
    (never guessed), or an expiry that is not after ``now`` (a lease born expired)."""
    check_worker(worker_id)
    for name, value in (("now", now), ("expires_at", expires_at)):
        if value.utcoffset() is None:
            raise ValueError(f"{name} must be timezone-aware, got {value!r}")
    if expires_at <= now:
        raise ValueError(
            f"expires_at ({expires_at.isoformat()}) must be after now ({now.isoformat()})"
        )


def check_worker(worker_id: str) -> None:
    if not worker_id:
        raise ValueError(f"worker_id must be a non-empty string, got {worker_id!r}")


def check_limit(limit: int) -> None:
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")


def _as_tuple(value: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class PhaseMove:
    """Move a turn's phase marker from ``expected`` to ``new`` in the same transaction."""

    expected: TurnPhase
    new: TurnPhase


@attrs.frozen(kw_only=True)
class NewInteraction:
    """A card to persist; ``interaction_id`` None lets the store create a time-ordered id."""

    payload: Json
    case_id: str | None = None
    blocking: bool = False
    interaction_id: str | None = None


@attrs.frozen(kw_only=True)
class NewJournalEntry:
    """A command offered for admission. ``status`` is its initial status: ``pending``, or
    ``awaiting_confirmation`` for commands a confirmation card authorizes."""

    idempotency_key: str
    command_id: str
    content_digest: str
    payload: Json
    case_id: str | None = None
    expected_revision: int | None = attrs.field(default=None, validator=_non_negative)
    status: JournalStatus = attrs.field(default=JournalStatus.PENDING)

    @status.validator
    def _initial(self, _: attrs.Attribute[Any], value: JournalStatus) -> None:
        if value not in (JournalStatus.PENDING, JournalStatus.AWAITING_CONFIRMATION):
            raise ValueError(
                f"a journal entry starts pending or awaiting_confirmation, not {value}"
            )


@attrs.frozen(kw_only=True)
class NewCase:
    """A case to create (seeding, or a ``start_case`` act inside a commit bundle)."""

    workflow: str
    label: str
    state: Json
    case_id: str | None = None
    revision: int = attrs.field(default=1, validator=_non_negative)


@attrs.frozen(kw_only=True)
class CaseUpdate:
    """Replace a case's state, only if it is still at ``expected_revision``."""

    case_id: str
    expected_revision: int = attrs.field(validator=_non_negative)
    new_revision: int = attrs.field()
    state: Json

    @new_revision.validator
    def _forward(self, _: attrs.Attribute[Any], value: int) -> None:
        if value <= self.expected_revision:
            raise ValueError(
                f"new_revision {value} must exceed expected_revision {self.expected_revision}"
            )


@attrs.frozen(kw_only=True)
class NewEvent:
    """A domain event; the store assigns its id, its global ``seq`` and the bundle's turn id."""

    case_id: str
    revision: int = attrs.field(validator=_non_negative)
    type: str
    payload: Json
    command_id: str | None = None


@attrs.frozen(kw_only=True)
class JournalOutcome:
    """Settle (or move) one journal entry by compare-and-swap on its status."""

    idempotency_key: str
    expected: JournalStatus
    status: JournalStatus
    outcome: Json | None = None


@attrs.frozen(kw_only=True)
class CardResolution:
    """Close an open card as ``resolved`` (with the user's answer) or ``expired``."""

    interaction_id: str
    status: InteractionStatus = attrs.field(default=InteractionStatus.RESOLVED)
    resolution: Json | None = None

    @status.validator
    def _closing(self, _: attrs.Attribute[Any], value: InteractionStatus) -> None:
        if value is InteractionStatus.OPEN:
            raise ValueError("a card resolution closes the card: resolved or expired")


@attrs.frozen(kw_only=True)
class NewOutboxEffect:
    """An external effect to dispatch after commit, sent with its own idempotency key.

    ``available_at`` None means "as soon as it is committed" (the store's clock at commit).
    """

    idempotency_key: str
    payload: Json
    case_id: str | None = None
    command_id: str | None = None
    available_at: datetime | None = attrs.field(default=None, validator=_aware)


@attrs.frozen(kw_only=True)
class BundleReply:
    """The turn's reply, composed inside its commit bundle's transaction (ADR 0022): the
    response blocks as ``save_assistant_turn`` stores them, with its meta and the session's new
    thread context."""

    blocks: Json
    meta: Json | None = None
    thread_context: Json | None = None


#: Composes the turn's reply from what the bundle wrote (its events carry their sequence
#: numbers). Called synchronously inside the transaction, after the phase move, possibly on the
#: store's worker thread: it must be pure (no I/O, no event loop). None, or an exception, means
#: "no reply now": the bundle commits without it (a committed effect is never denied) and the
#: caller stores the reply with ``save_assistant_turn`` afterwards.
ReplyComposer = Callable[[BundleReceipt], BundleReply | None]


@attrs.frozen(kw_only=True)
class CommitBundle:
    """Everything one execution step makes true, written in ONE transaction or not at all.

    Order inside the transaction: new cases, journal outcomes, case updates, card resolutions,
    outbox rows, replay record, phase move, events, (the ``inside_transaction`` hook), and
    then, with ``reply``, the composed reply and the move ``committed`` → ``delivered`` (both
    or neither: a reply that cannot be composed or written leaves the rest to commit). The
    events come last so that PostgreSQL's event-order lock is held only from them to COMMIT.
    """

    account_id: str
    turn_id: str
    new_cases: tuple[NewCase, ...] = attrs.field(default=(), converter=_as_tuple)
    journal_outcomes: tuple[JournalOutcome, ...] = attrs.field(default=(), converter=_as_tuple)
    case_updates: tuple[CaseUpdate, ...] = attrs.field(default=(), converter=_as_tuple)
    events: tuple[NewEvent, ...] = attrs.field(default=(), converter=_as_tuple)
    card_resolutions: tuple[CardResolution, ...] = attrs.field(default=(), converter=_as_tuple)
    outbox: tuple[NewOutboxEffect, ...] = attrs.field(default=(), converter=_as_tuple)
    replay_record: Json | None = None
    phase: PhaseMove | None = None
    #: Only with a ``phase`` move to ``committed``: the turn then ends ``delivered`` in this
    #: transaction (the receipt's ``phase`` says which).
    reply: ReplyComposer | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class NewUserTurn:
    """A user turn a seal records (ADR 0022): a live turn's row is written with its seal."""

    session_id: str
    payload: Json


@attrs.frozen(kw_only=True)
class TurnSeal:
    """Everything a turn stores between interpretation and execution, as one transaction.

    The plan (``None`` when it is stored already), the reduction and its cards (written once:
    the same content again is a replay), the cards this turn supersedes closed (expired) when
    they are still open, the turn's commands admitted to the journal, and the phase move:
    to ``executing`` when anything is admitted (the seal), else to ``reduced``. With
    ``user_turn`` the turn is recorded first, in the same transaction (the live path, ADR 0022:
    a turn not sealed yet is not durable; its caller or inbox row sends it again).
    """

    user_turn: NewUserTurn | None = None
    plan: Json | None = None
    reduction: Json
    interactions: tuple[NewInteraction, ...] = ()
    expired: tuple[str, ...] = ()  # interaction ids
    entries: tuple[NewJournalEntry, ...] = ()
    phase: PhaseMove

    def sealed_turn(self) -> SealedTurn | None:
        """The turn's row as this seal leaves it, when the seal records a live turn with its
        plan and moves it on from ``received`` (the stores write that row in one INSERT);
        None otherwise (a stored turn, or a plan stored already: the payloads are written
        and the phase moved one by one)."""
        if self.user_turn is None or self.plan is None:
            return None
        if self.phase.expected is not TurnPhase.RECEIVED:
            return None
        if not self.phase.expected.may_advance_to(self.phase.new):
            return None  # refused the long way (IllegalTransition), as any illegal move
        return SealedTurn(plan=self.plan, reduction=self.reduction, phase=self.phase.new)


@attrs.frozen(kw_only=True)
class SealedTurn:
    """A live turn's plan, reduction and phase as its seal records them in one row."""

    plan: Json
    reduction: Json
    phase: TurnPhase
