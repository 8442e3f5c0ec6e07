"""What a supervisor is told: strategy, restart types, restart intensity, backoff, child specs.

The words are OTP's. ``one_for_one`` restarts only the child that ended; ``one_for_all``
restarts every child; ``rest_for_one`` restarts the child and those started after it. A
``permanent`` child is always restarted, a ``transient`` one only after a crash, a
``temporary`` one never. More than ``max_restarts`` restarts within ``within_seconds`` makes
the supervisor give up: it stops its children and fails, escalating to its parent.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import attrs

from turnframe._retry import exponential_delay
from turnframe.actors.actor import Actor


class Strategy(enum.StrEnum):
    ONE_FOR_ONE = "one_for_one"
    ONE_FOR_ALL = "one_for_all"
    REST_FOR_ONE = "rest_for_one"


class Restart(enum.StrEnum):
    PERMANENT = "permanent"
    TRANSIENT = "transient"
    TEMPORARY = "temporary"

    def restarts_after(self, *, crashed: bool) -> bool:
        if self is Restart.PERMANENT:
            return True
        if self is Restart.TRANSIENT:
            return crashed
        return False


def _positive(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not value > 0:
        raise ValueError(f"{attribute.name} must be positive, got {value}")


@attrs.frozen(kw_only=True)
class RestartIntensity:
    """At most ``max_restarts`` restarts within ``within_seconds`` (monotonic time)."""

    max_restarts: int = attrs.field(default=3, validator=attrs.validators.ge(0))
    within_seconds: float = attrs.field(default=5.0, validator=_positive)


@attrs.frozen(kw_only=True)
class Backoff:
    """Exponential delay before a restart: ``initial * factor**(n-1)``, at most ``maximum``.

    ``n`` counts the restarts of that child within the restart-intensity window, so a child
    that keeps crashing waits longer each time and one that stays up starts again from
    ``initial``.
    """

    initial: float = attrs.field(default=0.01, validator=_positive)
    factor: float = attrs.field(default=2.0, validator=attrs.validators.ge(1.0))
    maximum: float = attrs.field(default=1.0, validator=_positive)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before the ``attempt``-th recent restart (1-based)."""
        return exponential_delay(
            attempt, initial=self.initial, factor=self.factor, maximum=self.maximum
        )


@attrs.frozen(kw_only=True)
class ChildSpec:
    """How to start one actor child and what to do when it ends.

    ``factory`` makes a fresh actor instance (called again on every restart). ``shutdown`` is
    the deadline in seconds for a stopping child to finish (drain its mailbox on a final stop,
    or its current message on a restart) before it is cancelled; ``0`` cancels at once.
    """

    id: str = attrs.field(validator=attrs.validators.min_len(1))
    factory: Callable[[], Actor]
    restart: Restart = Restart.PERMANENT
    shutdown: float = attrs.field(default=5.0, validator=attrs.validators.ge(0.0))
    mailbox_size: int = attrs.field(default=1000, validator=attrs.validators.ge(1))
