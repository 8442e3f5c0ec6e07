"""Fault schedules: which faults a chaos run injects, where and when. Pure and seeded.

A schedule is drawn from a seed alone (:func:`draw_schedule`), so the seed printed next to a
failing run reproduces it. Four families of faults:

- **provider faults**, at the provider interface, on the n-th request of a stage (interpret or
  narrate) in the run, whichever provider of the chain gets it: a timeout, a 429 with
  Retry-After, a 500 or 529, a connection dropped mid-body, malformed JSON, a refusal, an
  answer that comes after the deadline;
- **store faults** at a named boundary (:class:`~turnframe.testing.faults.FaultPoint`): a crash
  (a dying process) or a database timeout, on the k-th hit and the hits after it;
- **actor crashes**: a stage actor crashing mid-message (a provider adapter raising an untyped
  error), or the session actor crashing as it records a turn;
- **outbox adapter deaths**: the sender performs the effect, then dies before it can answer.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from typing import TypeVar

import attrs

from turnframe.providers.base import Purpose
from turnframe.testing.faults import FaultPoint


class FaultKind(enum.StrEnum):
    PROVIDER_TIMEOUT = "provider_timeout"
    PROVIDER_RATE_LIMITED = "provider_rate_limited"
    PROVIDER_SERVER_ERROR = "provider_server_error"
    PROVIDER_CONNECTION_DROPPED = "provider_connection_dropped"
    PROVIDER_MALFORMED_JSON = "provider_malformed_json"
    PROVIDER_REFUSAL = "provider_refusal"
    PROVIDER_LATE_ANSWER = "provider_late_answer"
    STORE_CRASH = "store_crash"
    STORE_TIMEOUT = "store_timeout"
    ACTOR_CRASH = "actor_crash"
    SENDER_DIES_AFTER_SENDING = "sender_dies_after_sending"


PROVIDER_KINDS = (
    FaultKind.PROVIDER_TIMEOUT,
    FaultKind.PROVIDER_RATE_LIMITED,
    FaultKind.PROVIDER_SERVER_ERROR,
    FaultKind.PROVIDER_CONNECTION_DROPPED,
    FaultKind.PROVIDER_MALFORMED_JSON,
    FaultKind.PROVIDER_REFUSAL,
    FaultKind.PROVIDER_LATE_ANSWER,
)

#: The store boundaries a turn crosses, and those of the outbox.
TURN_POINTS = (
    FaultPoint.BEFORE_INTERACTION_PERSISTENCE,
    FaultPoint.AFTER_INTERACTION_PERSISTENCE,
    FaultPoint.BEFORE_JOURNAL_INSERT,
    FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT,
    FaultPoint.INSIDE_COMMIT_BUNDLE,
    FaultPoint.BEFORE_RESPONSE_PERSISTENCE,
)
OUTBOX_POINTS = (FaultPoint.BEFORE_OUTBOX_DISPATCH, FaultPoint.AFTER_OUTBOX_DISPATCH)


@attrs.frozen(kw_only=True)
class ProviderFault:
    """Fail the ``request``-th request (1-based) of ``purpose`` in the run."""

    kind: FaultKind
    purpose: Purpose
    request: int
    status: int | None = None  # 500 or 529 for a server error
    retry_after: float | None = None  # seconds, for a 429

    def describe(self) -> str:
        extra = f" {self.status}" if self.status else ""
        if self.retry_after is not None:
            extra = f" Retry-After {self.retry_after:g}s"
        return f"{self.kind.value}{extra} on {self.purpose.value} request #{self.request}"


@attrs.frozen(kw_only=True)
class StoreFault:
    """Fail ``point`` on its ``occurrence``-th hit and ``times - 1`` more (``None``: ever after)."""

    kind: FaultKind  # STORE_CRASH or STORE_TIMEOUT
    point: FaultPoint
    occurrence: int
    times: int | None

    def describe(self) -> str:
        how = "every hit" if self.times is None else f"{self.times} hit(s)"
        return f"{self.kind.value} at {self.point.value} from hit #{self.occurrence}, {how}"


class ActorTarget(enum.StrEnum):
    STAGE = "stage"  # the interpreter or narrator, mid-message
    SESSION = "session"  # the session actor, as it records a turn


@attrs.frozen(kw_only=True)
class ActorFault:
    """Crash a stage actor on the ``occurrence``-th interpret request, or the session actor
    on the ``occurrence``-th turn it records."""

    target: ActorTarget
    occurrence: int
    kind: FaultKind = FaultKind.ACTOR_CRASH

    def describe(self) -> str:
        where = "interpret request" if self.target is ActorTarget.STAGE else "turn recorded"
        return f"actor_crash ({self.target.value}) on {where} #{self.occurrence}"


@attrs.frozen(kw_only=True)
class SenderFault:
    """The outbox adapter performs its ``send``-th effect, then dies before answering."""

    send: int
    kind: FaultKind = FaultKind.SENDER_DIES_AFTER_SENDING

    def describe(self) -> str:
        return f"sender_dies_after_sending on send #{self.send}"


Fault = ProviderFault | StoreFault | ActorFault | SenderFault
F = TypeVar("F", ProviderFault, StoreFault, ActorFault, SenderFault)


def _as_tuple(faults: Sequence[Fault]) -> tuple[Fault, ...]:
    return tuple(faults)


@attrs.frozen(kw_only=True)
class Schedule:
    faults: tuple[Fault, ...] = attrs.field(default=(), converter=_as_tuple)

    def of_type(self, kind: type[F]) -> list[F]:
        return [f for f in self.faults if isinstance(f, kind)]

    def plus(self, extra: Sequence[Fault]) -> Schedule:
        return Schedule(faults=(*self.faults, *extra))

    def describe(self) -> list[str]:
        return [f.describe() for f in self.faults] or ["no faults"]


def draw_schedule(rng: random.Random, *, steps: int, narrates: bool = True) -> Schedule:
    """A random schedule for a conversation of ``steps`` turns: no fault to four, each kind
    equally likely, placed anywhere a conversation of that length reaches."""
    kinds = list(FaultKind)
    count = rng.choice((0, 1, 1, 2, 2, 3, 4))
    faults: list[Fault] = []
    reach = max(steps, 1) + 2  # requests beyond the turns: retries and fallbacks
    for _ in range(count):
        kind = rng.choice(kinds)
        if kind in PROVIDER_KINDS:
            purpose = Purpose.NARRATE if narrates and rng.random() < 0.3 else Purpose.INTERPRET
            request = rng.randint(1, reach)
            status = rng.choice((500, 529)) if kind is FaultKind.PROVIDER_SERVER_ERROR else None
            delay = rng.choice((0, 1, 5, 120)) if kind is FaultKind.PROVIDER_RATE_LIMITED else None
            faults.append(
                ProviderFault(
                    kind=kind,
                    purpose=purpose,
                    request=request,
                    status=status,
                    retry_after=None if delay is None else float(delay),
                )
            )
        elif kind in (FaultKind.STORE_CRASH, FaultKind.STORE_TIMEOUT):
            faults.append(
                StoreFault(
                    kind=kind,
                    point=rng.choice(TURN_POINTS + OUTBOX_POINTS),
                    occurrence=rng.randint(1, 3),
                    times=rng.choice((1, 1, 2, None)),
                )
            )
        elif kind is FaultKind.ACTOR_CRASH:
            faults.append(
                ActorFault(target=rng.choice(list(ActorTarget)), occurrence=rng.randint(1, reach))
            )
        else:
            faults.append(SenderFault(send=rng.randint(1, 3)))
    return Schedule(faults=faults)


__all__ = [
    "OUTBOX_POINTS",
    "PROVIDER_KINDS",
    "TURN_POINTS",
    "ActorFault",
    "ActorTarget",
    "Fault",
    "FaultKind",
    "ProviderFault",
    "Schedule",
    "SenderFault",
    "StoreFault",
    "draw_schedule",
]
