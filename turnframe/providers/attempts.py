"""The record of one provider attempt, kept in the replay record.

No wall-clock fields: the same script replayed produces the same records. The gate's answer to a
step is recorded on the step it guards; a step the gate refused is recorded as ``not_sent``.
"""

from __future__ import annotations

import enum

import attrs

from turnframe.providers.base import Purpose
from turnframe.providers.classification import Classification


class AttemptStep(enum.StrEnum):
    """Why this attempt was made."""

    FIRST = "first"
    RETRY = "retry"
    FALLBACK = "fallback"
    REPAIR = "repair"  # the same provider, shown its malformed answer and the parse error


class GateAnswer(enum.StrEnum):
    """What the gate said before this attempt (the first attempt does not ask)."""

    NOT_ASKED = "not_asked"
    ALLOWED = "allowed"
    REFUSED = "refused"


class AttemptOutcome(enum.StrEnum):
    OK = "ok"
    ERROR = "error"
    TIMED_OUT = "timed_out"
    NOT_SENT = "not_sent"
    LATE_ANSWER = "late_answer"
    LATE_ERROR = "late_error"


@attrs.frozen(kw_only=True)
class ProviderAttempt:
    """One attempt (or one late answer to a timed-out attempt), numbered in observation order.

    ``provider_attempt`` counts the times this provider was sent the request. ``delay_before``
    is the backoff (or asked ``retry_after``) waited before sending. ``late_of`` links a late
    answer to the attempt that timed out; a late answer is never ``used``.
    """

    number: int
    provider: str
    provider_attempt: int
    purpose: Purpose
    turn_id: str
    correlation_id: str
    request_digest: str
    step: AttemptStep
    gate: GateAnswer
    outcome: AttemptOutcome
    error_code: str | None = None
    classification: Classification | None = None
    retry_after: float | None = None
    delay_before: float = 0.0
    used: bool = False
    late_of: int | None = None
    answer_digest: str | None = None
    detail: str | None = None
