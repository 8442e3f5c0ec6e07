"""How hard the chain tries: retries per provider, backoff, timeouts."""

from __future__ import annotations

import attrs
from attrs import validators as v


@attrs.frozen(kw_only=True)
class RetryPolicy:
    """Bounded retries with capped exponential backoff (no jitter: records stay deterministic).

    - ``attempts_per_provider``: sends to one provider before falling back (1 = no retry).
    - backoff before retry n: ``backoff_initial * backoff_multiplier ** (n - 1)``, at most
      ``backoff_max`` seconds.
    - ``max_retry_after``: a rate limit asking to wait longer than this falls back instead.
    - ``attempt_timeout``: seconds to wait for one answer; a provider that does not answer in
      time is never sent the same request again for the turn.
    - ``late_answer_grace``: seconds the call waits, once decided, for late answers of timed-out
      attempts so they are recorded (0: stop listening as soon as the call is decided).
    - ``repair_rounds``: after a malformed answer, how many times the same provider is shown its
      answer and the parse error and asked again before the chain falls back (0: at once).
    """

    attempts_per_provider: int = attrs.field(default=3, validator=v.ge(1))
    backoff_initial: float = attrs.field(default=0.5, validator=v.ge(0))
    backoff_multiplier: float = attrs.field(default=2.0, validator=v.ge(1))
    backoff_max: float = attrs.field(default=8.0, validator=v.ge(0))
    max_retry_after: float = attrs.field(default=30.0, validator=v.ge(0))
    attempt_timeout: float = attrs.field(default=60.0, validator=v.gt(0))
    late_answer_grace: float = attrs.field(default=0.0, validator=v.ge(0))
    repair_rounds: int = attrs.field(default=1, validator=v.ge(0))

    @classmethod
    def conservative(cls) -> RetryPolicy:
        """The safe default: three sends per provider, short capped backoff, one-minute wait."""
        return cls()

    @classmethod
    def no_retries(cls) -> RetryPolicy:
        """One send per provider: failures fall back at once (still through the gate)."""
        return cls(attempts_per_provider=1, repair_rounds=0)
