"""The dead-letter sink: messages that reached an actor which is stopped.

Nothing is dropped silently: a ``tell`` to a stopped actor, a message still queued when an
actor stops for good, and an ``ask`` refused because the actor is stopped all land here, are
counted (in total and per message type) and logged.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

import attrs

logger = logging.getLogger("turnframe.actors.dead_letters")


@attrs.frozen(kw_only=True)
class DeadLetter:
    """One undeliverable message and why it could not be delivered."""

    actor: str
    message: object
    correlation_id: str | None
    reason: str

    @property
    def message_type(self) -> str:
        return type(self.message).__name__


class DeadLetters:
    """Counts and logs dead letters; ``on_letter`` (optional) sees each one as it arrives."""

    def __init__(self, *, on_letter: Callable[[DeadLetter], None] | None = None) -> None:
        self._on_letter = on_letter
        self._by_type: Counter[str] = Counter()
        self._total = 0

    @property
    def total(self) -> int:
        return self._total

    def count(self, message_type: type[object] | str) -> int:
        """How many dead letters of this message type (a class or its name)."""
        name = message_type if isinstance(message_type, str) else message_type.__name__
        return self._by_type[name]

    def by_type(self) -> dict[str, int]:
        return dict(self._by_type)

    def record(self, letter: DeadLetter) -> None:
        self._total += 1
        self._by_type[letter.message_type] += 1
        logger.warning(
            "dead letter: %s to stopped actor %r (%s)",
            letter.message_type,
            letter.actor,
            letter.reason,
            extra={"correlation_id": letter.correlation_id, "actor": letter.actor},
        )
        if self._on_letter is not None:
            self._on_letter(letter)
