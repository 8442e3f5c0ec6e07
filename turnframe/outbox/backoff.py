"""When a retryable effect is sent again, and when it stops being retried."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import attrs

from turnframe._retry import exponential_delay


def _positive(_: Any, attribute: attrs.Attribute[Any], value: timedelta) -> None:
    if value <= timedelta(0):
        raise ValueError(f"{attribute.name} must be positive, got {value}")


def _at_least_one(_: Any, attribute: attrs.Attribute[Any], value: float | int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"{attribute.name} must be >= 1, got {value}")


@attrs.frozen(kw_only=True)
class RetryPolicy:
    """Exponential backoff without jitter (deterministic): attempt ``n`` waits
    ``initial * multiplier ** (n - 1)``, capped at ``maximum``. After ``max_attempts`` sends
    (None: never) a retryable result settles the row as a permanent failure."""

    initial: timedelta = attrs.field(default=timedelta(seconds=2), validator=_positive)
    multiplier: float = attrs.field(default=2.0, validator=_at_least_one)
    maximum: timedelta = attrs.field(default=timedelta(minutes=10), validator=_positive)
    max_attempts: int | None = attrs.field(default=10, validator=_at_least_one)

    @classmethod
    def conservative(cls) -> RetryPolicy:
        """The default: 2 s doubling up to 10 min, ten sends at most."""
        return cls()

    def delay(self, attempt: int, *, retry_after: timedelta | None = None) -> timedelta:
        """How long after send number ``attempt`` (1-based) to send again (tenacity's
        exponential wait); a remote ``retry_after`` is honoured when it is longer."""
        seconds = exponential_delay(
            attempt,
            initial=self.initial.total_seconds(),
            factor=self.multiplier,
            maximum=self.maximum.total_seconds(),
        )
        backoff = timedelta(seconds=seconds)
        return backoff if retry_after is None else max(backoff, retry_after)

    def exhausted(self, attempt: int) -> bool:
        return self.max_attempts is not None and attempt >= self.max_attempts
