"""Test doubles for the outbox: a scripted sender that logs every send, and a scripted reconciler.

``RecordingSender`` answers each call with the next step of its script, then ``then``::

    release = anyio.Event()
    sender = RecordingSender(
        script=[
            SendResult.retryable(reason="busy"),      # first call
            Hang(),                                    # second call: never answers
            Hang(released_by=release),                 # third: answers `then` once released
            Crash("socket closed"),                    # fourth: raises
        ],
    )                                                  # later calls: SendResult.completed()

Every call is kept in ``sends`` (with its idempotency key) as it starts. ``applied_keys`` is what
a receiver that dedupes by key performed: each key once, the first time a call with it
completed (or a :class:`Hang` with ``applies=True`` started: the remote side acted, only its
answer is lost). ``duplicates`` counts completed calls whose key was already applied.

``ScriptedReconciler`` answers by idempotency key (a list of answers per key, the last one
repeating), ``still_unknown`` for keys it was not told about, and logs every key it was asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import anyio
import anyio.lowlevel
import attrs

from turnframe.outbox.effects import OutboundEffect
from turnframe.outbox.reconcile import Reconciliation
from turnframe.outbox.sender import SendResult
from turnframe.stores.records import OutboxResult


@attrs.frozen(kw_only=True)
class Hang:
    """Never answers, unless ``released_by`` is set: then answers ``then``. With
    ``applies=True`` the remote side performs the effect as the call starts."""

    released_by: anyio.Event | None = None
    then: SendResult = attrs.field(factory=SendResult.completed)
    applies: bool = False


@attrs.frozen
class Crash:
    """Raises ``RuntimeError(message)`` instead of answering."""

    message: str = "sender crashed"


Step = SendResult | Hang | Crash


@attrs.frozen(kw_only=True)
class SentEffect:
    """One call to :meth:`RecordingSender.send`, logged as it started."""

    effect: OutboundEffect
    step: Step

    @property
    def idempotency_key(self) -> str:
        return self.effect.idempotency_key


class RecordingSender:
    """A scripted :class:`~turnframe.outbox.sender.EffectSender` and the receiver behind it."""

    def __init__(
        self,
        script: Sequence[Step] = (),
        *,
        then: SendResult | None = None,
        idempotency_keys: bool = True,
    ) -> None:
        #: Its receiver dedupes on the key (``applied_keys``), so it declares so by default.
        self.idempotency_keys = idempotency_keys
        self.script: list[Step] = list(script)
        self.then = then or SendResult.completed()
        self.sends: list[SentEffect] = []
        self.applied_keys: list[str] = []
        self.duplicates = 0
        self._changed: anyio.Event | None = None

    @property
    def keys_sent(self) -> list[str]:
        """The idempotency key of every call, in call order (repeats included)."""
        return [s.idempotency_key for s in self.sends]

    async def send(self, effect: OutboundEffect) -> SendResult:
        step = self.script.pop(0) if self.script else self.then
        self.sends.append(SentEffect(effect=effect, step=step))
        self._signal()
        if isinstance(step, Crash):
            await anyio.lowlevel.checkpoint()
            raise RuntimeError(step.message)
        if isinstance(step, Hang):
            if step.applies:
                self._apply(effect.idempotency_key)
            await (step.released_by or anyio.Event()).wait()
            step = step.then
        await anyio.lowlevel.checkpoint()
        if step.result is OutboxResult.COMPLETED:
            self._apply(effect.idempotency_key)
        return step

    async def wait_for_sends(self, count: int) -> None:
        """Return once at least ``count`` calls have started. Wrap it in ``anyio.fail_after``."""
        while len(self.sends) < count:
            if self._changed is None:
                self._changed = anyio.Event()
            await self._changed.wait()

    def _apply(self, key: str) -> None:
        if key in self.applied_keys:
            self.duplicates += 1
        else:
            self.applied_keys.append(key)

    def _signal(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None


class ScriptedReconciler:
    """A :class:`~turnframe.outbox.reconcile.Reconciler` answering from a script per key."""

    def __init__(
        self,
        answers: Mapping[str, Sequence[Reconciliation] | Reconciliation] | None = None,
    ) -> None:
        self._answers: dict[str, list[Reconciliation]] = {}
        for key, given in (answers or {}).items():
            self._answers[key] = [given] if isinstance(given, Reconciliation) else list(given)
        self.asked: list[str] = []

    def answer(self, key: str, *answers: Reconciliation) -> None:
        """Script (replace) the answers for ``key``."""
        self._answers[key] = list(answers)

    async def check(self, effect: OutboundEffect) -> Reconciliation:
        self.asked.append(effect.idempotency_key)
        await anyio.lowlevel.checkpoint()
        queue = self._answers.get(effect.idempotency_key)
        if not queue:
            return Reconciliation.still_unknown()
        return queue.pop(0) if len(queue) > 1 else queue[0]


__all__ = ["Crash", "Hang", "RecordingSender", "ScriptedReconciler", "SentEffect", "Step"]
