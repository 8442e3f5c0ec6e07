"""Scripted test doubles for the provider layer: a provider, a gate and virtual time.

``ScriptedProvider`` answers each request with the next step of a script, one script per
purpose::

    hang = Hang(answer='{"acts": []}')          # answers only when the test releases it
    primary = ScriptedProvider(
        name="primary",
        script=[Fail(kind="retry"), Answer('{"acts": []}'), hang],   # interpret requests
        narrate=[Answer('{"blocks": []}')],                           # narrate requests
    )

Steps: :class:`Answer` returns text; :class:`Fail` raises the typed error of a classification
(or a specific kind such as ``"content_filter"``, or ``"malformed"``: an answer that is not the
schema's JSON, which the chain answers with a repair round); :class:`Hang` blocks until released (or
forever). Every request received is kept in ``requests``. A request beyond the script raises
:class:`ScriptExhausted`, which the chain propagates (it is a test bug, not a provider failure).

``ScriptedGate`` is a :class:`~turnframe.providers.base.RetryGate` that is open until sealed and
records every ask. ``RecordedSleep`` and ``ManualDeadline`` are the chain's ``sleep`` and
``deadline`` on virtual time: backoff returns at once (recorded), an attempt deadline expires
only when the test calls :meth:`ManualDeadline.expire`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import anyio
import anyio.lowlevel
import attrs

from turnframe.errors import TurnframeError
from turnframe.providers.base import ProviderAnswer, ProviderRequest, Purpose
from turnframe.providers.errors import (
    BadProviderResponse,
    ContentFiltered,
    ContextOverflow,
    MalformedAnswer,
    ModelNotFound,
    ProviderAuthFailed,
    ProviderBadRequest,
    ProviderError,
    ProviderRefused,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExhausted,
    RateLimited,
)


class ScriptExhausted(TurnframeError):
    """A scripted provider was asked more often than its script allows."""

    code = "turnframe.testing.script_exhausted"


class ScriptError(TurnframeError):
    """A script step was used in a way it cannot support."""

    code = "turnframe.testing.script_invalid"


FailKind = Literal[
    "retry",
    "unavailable",
    "timeout",
    "retry_after",
    "rate_limit",
    "fallback",
    "auth",
    "model_not_found",
    "bad_response",
    "bad_request",
    "quota",
    "fatal",
    "refusal",
    "content_filter",
    "context_overflow",
    "malformed",
]

_ERRORS: dict[str, Callable[[str, float | None], ProviderError]] = {
    "retry": lambda m, _: ProviderUnavailable(m),
    "unavailable": lambda m, _: ProviderUnavailable(m),
    "timeout": lambda m, _: ProviderTimeout(m),
    "retry_after": lambda m, d: RateLimited(m, retry_after=d),
    "rate_limit": lambda m, d: RateLimited(m, retry_after=d),
    "fallback": lambda m, _: ProviderAuthFailed(m),
    "auth": lambda m, _: ProviderAuthFailed(m),
    "model_not_found": lambda m, _: ModelNotFound(m),
    "bad_response": lambda m, _: BadProviderResponse(m),
    "bad_request": lambda m, _: ProviderBadRequest(m),
    "quota": lambda m, _: QuotaExhausted(m),
    "fatal": lambda m, _: ProviderRefused(m),
    "refusal": lambda m, _: ProviderRefused(m),
    "content_filter": lambda m, _: ContentFiltered(m),
    "context_overflow": lambda m, _: ContextOverflow(m),
    "malformed": lambda m, _: MalformedAnswer(m, answer="{not json", parse_error=m),
}


@attrs.frozen
class Answer:
    """Answer with ``text`` (the raw answer a model would give)."""

    text: str
    model: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen(kw_only=True)
class Fail:
    """Raise the typed error for ``kind``; ``retry_after`` is the delay a rate limit asks for."""

    kind: FailKind = attrs.field(default="retry", validator=attrs.validators.in_(_ERRORS))
    retry_after: float | None = None
    message: str | None = None

    def error(self, provider: str) -> ProviderError:
        delay = self.retry_after
        if delay is None and self.kind in ("retry_after", "rate_limit"):
            delay = 1.0
        return _ERRORS[self.kind](self.message or f"scripted {self.kind} from {provider}", delay)


class Hang:
    """Never answers until :meth:`release` is called; then answers (or fails) late.

    Without ``answer`` or ``fail`` it hangs forever. ``await hang.reached()`` waits until a
    provider is blocked in this step.
    """

    def __init__(self, *, answer: str | None = None, fail: Fail | None = None) -> None:
        if answer is not None and fail is not None:
            raise ScriptError("a Hang delivers either an answer or a failure, not both")
        self.answer = answer
        self.fail = fail
        self._is_reached = False
        self._is_released = False
        self._is_delivered = False
        self._reached_event: anyio.Event | None = None
        self._release_event: anyio.Event | None = None
        self._delivered_event: anyio.Event | None = None

    @property
    def is_reached(self) -> bool:
        return self._is_reached

    def release(self) -> None:
        """Deliver the late answer (or failure) now."""
        if self.answer is None and self.fail is None:
            raise ScriptError("this Hang has nothing to deliver: give it answer= or fail=")
        self._is_released = True
        if self._release_event is not None:
            self._release_event.set()

    async def reached(self) -> None:
        if self._is_reached:
            return
        if self._reached_event is None:
            self._reached_event = anyio.Event()
        await self._reached_event.wait()

    async def delivered(self) -> None:
        """Wait until the released answer (or failure) has been handed to the caller."""
        if self._is_delivered:
            return
        if self._delivered_event is None:
            self._delivered_event = anyio.Event()
        await self._delivered_event.wait()

    async def _block(self, provider: str) -> ProviderAnswer:
        self._is_reached = True
        if self._reached_event is not None:
            self._reached_event.set()
        if self.answer is None and self.fail is None:
            await anyio.sleep_forever()
        if not self._is_released:
            self._release_event = anyio.Event()
            await self._release_event.wait()
        self._is_delivered = True
        if self._delivered_event is not None:
            self._delivered_event.set()
        if self.fail is not None:
            raise self.fail.error(provider)
        assert self.answer is not None
        return ProviderAnswer(text=self.answer)


Step = Answer | Fail | Hang


class ScriptedProvider:
    """A provider that follows a script per purpose and keeps every request it received."""

    def __init__(
        self,
        *,
        name: str,
        script: Sequence[Step] = (),
        narrate: Sequence[Step] = (),
        context_budget_tokens: int = 8192,
    ) -> None:
        self.name = name
        self.context_budget_tokens = context_budget_tokens
        self.requests: list[ProviderRequest] = []
        self._scripts: dict[Purpose, list[Step]] = {
            Purpose.INTERPRET: list(script),
            Purpose.NARRATE: list(narrate),
        }
        self._used: dict[Purpose, int] = {Purpose.INTERPRET: 0, Purpose.NARRATE: 0}

    def requests_for(self, purpose: Purpose) -> list[ProviderRequest]:
        return [r for r in self.requests if r.purpose is purpose]

    def remaining(self, purpose: Purpose) -> int:
        """Steps of the script for ``purpose`` not used yet."""
        return len(self._scripts[purpose]) - self._used[purpose]

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        self.requests.append(request)
        purpose = request.purpose
        script, used = self._scripts[purpose], self._used[purpose]
        if used >= len(script):
            listing = "script" if purpose is Purpose.INTERPRET else "narrate"
            raise ScriptExhausted(
                f"scripted provider {self.name!r} got {purpose.value} request #{used + 1} "
                f"(turn {request.turn_id}) but its {listing} list has {len(script)} step(s)",
                hint=f"add steps to {listing}=, or check why the chain asked again",
            )
        self._used[purpose] = used + 1
        step = script[used]
        await anyio.lowlevel.checkpoint()
        if isinstance(step, Answer):
            return ProviderAnswer(text=step.text, model=step.model)
        if isinstance(step, Fail):
            raise step.error(self.name)
        return await step._block(self.name)


@attrs.frozen(kw_only=True)
class GateAsk:
    turn_id: str
    purpose: Purpose
    allowed: bool


class ScriptedGate:
    """A retry gate double: interpretation may retry until sealed; narration always may.

    ``seal_after`` seals the gate once that many asks have been answered. Every ask is kept in
    ``asks``.
    """

    def __init__(self, *, sealed: bool = False, seal_after: int | None = None) -> None:
        self.sealed = sealed
        self.seal_after = seal_after
        self.asks: list[GateAsk] = []

    def seal(self) -> None:
        self.sealed = True

    async def may_retry(self, turn_id: str, purpose: Purpose) -> bool:
        await anyio.lowlevel.checkpoint()
        if self.seal_after is not None and len(self.asks) >= self.seal_after:
            self.sealed = True
        allowed = purpose is Purpose.NARRATE or not self.sealed
        self.asks.append(GateAsk(turn_id=turn_id, purpose=purpose, allowed=allowed))
        return allowed


class RecordedSleep:
    """Virtual backoff for the chain's ``sleep``: records each delay and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await anyio.lowlevel.checkpoint()


class ManualDeadline:
    """Virtual attempt deadlines for the chain's ``deadline``: they expire only on request.

    :meth:`expire` expires the oldest pending deadline or, if none is pending, the next one to
    start. ``requested`` keeps every timeout asked for, in seconds.
    """

    def __init__(self) -> None:
        self.requested: list[float] = []
        self._pending: list[anyio.Event] = []
        self._owed = 0

    @property
    def pending(self) -> int:
        return len(self._pending)

    def expire(self) -> None:
        if self._pending:
            self._pending.pop(0).set()
        else:
            self._owed += 1

    async def __call__(self, seconds: float) -> None:
        self.requested.append(seconds)
        if self._owed:
            self._owed -= 1
            await anyio.lowlevel.checkpoint()
            return
        event = anyio.Event()
        self._pending.append(event)
        try:
            await event.wait()
        finally:
            if event in self._pending:
                self._pending.remove(event)
