"""The provider chain: bounded retries, fallback to the next provider, and the gate before each.

Rules (see ``docs/providers.md`` and ADR 0007):

- The first attempt is sent without asking. Every retry and every fallback first asks the
  :class:`~turnframe.providers.base.RetryGate`; a refusal stops the call with
  :class:`~turnframe.providers.errors.RetryRefusedAfterSeal`.
- A fatal error stops the call at once; nothing is retried or sent elsewhere.
- Each attempt waits at most ``policy.attempt_timeout``. A provider that does not answer in time
  is never sent the same request again in this call (nor in a later call given the earlier
  attempts as ``prior_attempts``).
- Structured concurrency: each attempt runs in a task group owned by the call. After a timeout
  the attempt keeps running so a late answer can be recorded (once, never used), but only while
  the call lasts (plus ``policy.late_answer_grace``); the call cancels it before returning.
  A provider that answers at once (:class:`~turnframe.providers.base.AnswersAtOnce`) is called
  in the caller's task: no task, no deadline (it cannot be late); a chain of only such
  providers opens no task group.

- A malformed answer (:class:`~turnframe.providers.errors.MalformedAnswer`, raised by the
  provider or by the call's ``check``) gets ``policy.repair_rounds`` repair rounds on the same
  provider — the request again, with the answer and the parse error quoted back — each asking
  the gate first; a malformed repair falls back.
- Every word of a provider the chain keeps (an attempt's ``detail``, a fatal error's message)
  is redacted first: the providers' secrets and anything shaped like a key.

Backoff sleeps and attempt deadlines are injectable (``sleep``, ``deadline``) so tests run on
virtual time; both default to :func:`anyio.sleep`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, cast

import anyio
import anyio.abc
import attrs
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from turnframe._hashing import digest_bytes
from turnframe.errors import ConfigError
from turnframe.providers.attempts import AttemptOutcome, AttemptStep, GateAnswer, ProviderAttempt
from turnframe.providers.base import (
    AnswersAtOnce,
    HoldsSecrets,
    Provider,
    ProviderAnswer,
    ProviderRequest,
    RetryGate,
    answers_at_once,
)
from turnframe.providers.errors import (
    TIMED_OUT_CODE,
    UNEXPECTED_CODE,
    ChainError,
    Classification,
    FatalProviderError,
    MalformedAnswer,
    ProviderError,
    ProvidersExhausted,
    RetryRefusedAfterSeal,
)
from turnframe.providers.policy import RetryPolicy
from turnframe.providers.redaction import Redactor
from turnframe.telemetry.hooks import now_ns, observe_attempt

Sleep = Callable[[float], Awaitable[None]]
OnAttempt = Callable[[ProviderAttempt], Awaitable[None]]
#: Checks an answer's text; raises MalformedAnswer for one that deserves a repair round.
AnswerCheck = Callable[[str], None]


@attrs.frozen(kw_only=True)
class ChainAnswer:
    """The answer the chain used, which provider gave it, and every attempt in order."""

    text: str
    provider: str
    model: str | None
    attempts: tuple[ProviderAttempt, ...]


class ProviderChain:
    """Providers tried in order, each with bounded retries, every extra step allowed by a gate."""

    def __init__(
        self,
        providers: Sequence[Provider],
        *,
        policy: RetryPolicy | None = None,
        sleep: Sleep = anyio.sleep,
        deadline: Sleep = anyio.sleep,
        secrets: Iterable[str] = (),
    ) -> None:
        """``secrets`` adds to the providers' own (see :class:`HoldsSecrets`): all of them are
        redacted from every word of a provider the chain keeps."""
        if not providers:
            raise ConfigError("a provider chain needs at least one provider")
        names = [p.name for p in providers]
        if len(set(names)) != len(names):
            raise ConfigError(f"provider names in a chain must be unique, got {names}")
        self.providers: tuple[Provider, ...] = tuple(providers)
        self.policy = policy if policy is not None else RetryPolicy.conservative()
        self.sleep = sleep
        self.deadline = deadline
        held = [s for p in providers if isinstance(p, HoldsSecrets) for s in p.secrets]
        self.redact = Redactor([*secrets, *held])
        #: The providers called in the caller's task (no task, no deadline).
        self.at_once = frozenset(p.name for p in providers if answers_at_once(p))
        self._needs_tasks = len(self.at_once) < len(self.providers)

    async def complete(
        self,
        request: ProviderRequest,
        *,
        gate: RetryGate,
        on_attempt: OnAttempt | None = None,
        prior_attempts: Sequence[ProviderAttempt] = (),
        check: AnswerCheck | None = None,
    ) -> ChainAnswer:
        """Ask the providers until one answers; raise a :class:`ChainError` carrying attempts.

        ``on_attempt`` is awaited with each attempt as soon as it is final. ``prior_attempts``
        are this turn's earlier attempts for the same purpose (after a crash): numbering goes on
        from them, providers that timed out on the same request are skipped, and the first
        send counts as a retry, so it asks the gate. ``check`` vets each answer's text (say, a
        strict parse): a :class:`MalformedAnswer` from it gets the repair round.
        """
        call = _ChainCall(self, request, gate, on_attempt, prior_attempts, check)
        if not self._needs_tasks:  # every provider answers in the caller's task
            outcome = await call.run(None)
        else:
            async with anyio.create_task_group() as tg:
                outcome = await call.run(tg)
                if call.in_flight:  # late answers are listened for only while the call lasts
                    tg.cancel_scope.cancel()
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


class _Stop(Exception):
    """Internal: the call is decided without an answer."""

    def error(self, attempts: Sequence[ProviderAttempt]) -> ChainError:
        raise NotImplementedError


class _Fatal(_Stop):
    def __init__(self, cause: ProviderError, detail: str) -> None:
        self.cause = cause
        self.detail = detail

    def error(self, attempts: Sequence[ProviderAttempt]) -> ChainError:
        return FatalProviderError(self.cause, attempts=attempts, detail=self.detail)


class _Sealed(_Stop):
    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id

    def error(self, attempts: Sequence[ProviderAttempt]) -> ChainError:
        return RetryRefusedAfterSeal(self.turn_id, attempts=attempts)


class _Exhausted(_Stop):
    def __init__(self, last_error: ProviderError | None) -> None:
        self.last_error = last_error

    def error(self, attempts: Sequence[ProviderAttempt]) -> ChainError:
        return ProvidersExhausted(attempts=attempts, last_error=self.last_error)


class _TimedOut(Exception):
    """Internal: the provider did not answer in time; move to the next one."""


class _Slot:
    """One request in flight: filled by the sending task, read by the waiting call."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: ProviderAnswer | Exception | None = None
        self.timed_out: ProviderAttempt | None = None


class _ChainCall:
    """The state of one :meth:`ProviderChain.complete` call."""

    def __init__(
        self,
        chain: ProviderChain,
        request: ProviderRequest,
        gate: RetryGate,
        on_attempt: OnAttempt | None,
        prior: Sequence[ProviderAttempt],
        check: AnswerCheck | None,
    ) -> None:
        self.chain = chain
        self.check = check
        self.policy = chain.policy
        self.request = request
        self.request_digest = request.digest()
        self.gate = gate
        self.on_attempt = on_attempt
        self.resumed = bool(prior)
        self.attempts: list[ProviderAttempt] = []
        self.next_number = max((a.number for a in prior), default=0) + 1
        same = [a for a in prior if a.request_digest == self.request_digest]
        sent = (AttemptOutcome.OK, AttemptOutcome.ERROR, AttemptOutcome.TIMED_OUT)
        self.sent: dict[str, int] = {}
        for a in same:
            if a.outcome in sent:
                self.sent[a.provider] = max(self.sent.get(a.provider, 0), a.provider_attempt)
        self.excluded = {a.provider for a in same if a.outcome is AttemptOutcome.TIMED_OUT}
        self.waiting_late: list[_Slot] = []
        self.slots: list[_Slot] = []  # one per send, in the order sent
        self.pending_delay = 0.0
        self.sending_since = now_ns()
        self.tg: anyio.abc.TaskGroup | None = None

    @property
    def in_flight(self) -> bool:
        """Whether a send is still running (its task sets ``done`` as its last act)."""
        return any(not slot.done.is_set() for slot in self.slots)

    async def run(self, tg: anyio.abc.TaskGroup | None) -> ChainAnswer | Exception:
        """Decide the call; errors are returned, to be raised outside the task group (None:
        every provider answers at once, so no attempt needs a task)."""
        self.tg = tg
        try:
            try:
                provider, answer = await self._through_providers()
            except _Stop as stop:
                await self._settle_late()
                return stop.error(self.attempts)
            await self._settle_late()
        except Exception as error:  # the gate, the callback or a provider bug: re-raised as is
            return error
        return ChainAnswer(
            text=answer.text,
            provider=provider.name,
            model=answer.model,
            attempts=tuple(self.attempts),
        )

    async def _through_providers(self) -> tuple[Provider, ProviderAnswer]:
        last_error: ProviderError | None = None
        step = AttemptStep.RETRY if self.resumed else AttemptStep.FIRST
        for provider in self.chain.providers:
            if provider.name in self.excluded:
                continue
            try:
                return provider, await self._on_provider(provider, step)
            except ProviderError as error:
                if error.classification is Classification.FATAL:
                    raise _Fatal(error, self.chain.redact(error.message)) from error
                last_error = error
            except _TimedOut:
                pass  # recorded and excluded already; nothing to classify, fall back
            step = AttemptStep.FALLBACK
        raise _Exhausted(last_error)

    async def _on_provider(self, provider: Provider, step: AttemptStep) -> ProviderAnswer:
        request = self.request
        for _ in range(self.policy.repair_rounds):
            try:
                return await self._with_retries(provider, step, request)
            except MalformedAnswer as malformed:
                request = request.repaired(malformed.answer, malformed.parse_error)
                step = AttemptStep.REPAIR
        return await self._with_retries(provider, step, request)

    async def _with_retries(
        self, provider: Provider, step: AttemptStep, request: ProviderRequest
    ) -> ProviderAnswer:
        # The first attempt needs no retry machinery; tenacity takes over after a retryable
        # failure, which it is handed as its own first attempt's outcome.
        try:
            return await self._send_once(provider, step, request)
        except ProviderError as error:
            if self.policy.attempts_per_provider <= 1 or not self._retryable(error):
                raise
            first_failure = error
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.policy.attempts_per_provider),
            wait=self._wait,
            retry=retry_if_exception(self._retryable),
            sleep=self._sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                if attempt.retry_state.attempt_number == 1:
                    raise first_failure
                return await self._send_once(provider, AttemptStep.RETRY, request)
        raise AssertionError("tenacity either returns an answer or re-raises the last error")

    def _retryable(self, error: BaseException) -> bool:
        if not isinstance(error, ProviderError):
            return False
        if error.classification not in (Classification.RETRY, Classification.RETRY_AFTER):
            return False
        return error.retry_after is None or error.retry_after <= self.policy.max_retry_after

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        if isinstance(error, ProviderError) and error.retry_after is not None:
            return max(0.0, error.retry_after)
        backoff = wait_exponential(
            multiplier=self.policy.backoff_initial,
            exp_base=self.policy.backoff_multiplier,
            max=self.policy.backoff_max,
        )
        return float(backoff(state))

    async def _sleep(self, seconds: float) -> None:
        self.pending_delay = seconds
        await self.chain.sleep(seconds)

    async def _send_once(
        self, provider: Provider, step: AttemptStep, request: ProviderRequest
    ) -> ProviderAnswer:
        """Send ``request`` once (recorded under the call's request digest: a repair round
        answers the same question)."""
        self.sending_since = now_ns()  # telemetry: when this attempt began
        delay, self.pending_delay = self.pending_delay, 0.0
        number = self.sent.get(provider.name, 0) + 1
        fields: dict[str, Any] = dict(
            provider=provider.name, provider_attempt=number, step=step, delay_before=delay
        )
        if step is AttemptStep.FIRST:
            fields["gate"] = GateAnswer.NOT_ASKED
        elif await self.gate.may_retry(self.request.turn_id, self.request.purpose):
            fields["gate"] = GateAnswer.ALLOWED
        else:
            await self._record(**fields, gate=GateAnswer.REFUSED, outcome=AttemptOutcome.NOT_SENT)
            raise _Sealed(self.request.turn_id)
        self.sent[provider.name] = number
        result: ProviderAnswer | Exception | _Slot
        if provider.name in self.chain.at_once:
            result = self._answer_now(provider, request)
        else:
            result = await self._send_in_task(provider, request)
        if isinstance(result, _Slot):  # the deadline came first
            slot = result
            slot.timed_out = await self._record(
                **fields,
                outcome=AttemptOutcome.TIMED_OUT,
                error_code=TIMED_OUT_CODE,
                classification=Classification.FALLBACK,
            )
            self.waiting_late.append(slot)
            self.excluded.add(provider.name)
            raise _TimedOut
        if isinstance(result, ProviderAnswer):
            await self._record(
                **fields,
                outcome=AttemptOutcome.OK,
                used=True,
                # surrogatepass: an answer that is not text is digested; the parser refuses it
                answer_digest=digest_bytes(result.text.encode("utf-8", "surrogatepass")),
            )
            return result
        if isinstance(result, ProviderError):
            await self._record(
                **fields,
                outcome=AttemptOutcome.ERROR,
                error_code=result.code,
                classification=result.classification,
                retry_after=result.retry_after,
                detail=self.chain.redact(result.message),
            )
        raise result  # a ProviderError is classified by tenacity; anything else is a bug

    def _answer_now(
        self, provider: Provider, request: ProviderRequest
    ) -> ProviderAnswer | Exception:
        """A provider that answers at once, called here: its answer (checked) or its error."""
        # Its name is in ``at_once``, which only providers that passed that check join (a
        # runtime-checkable protocol's isinstance walks the protocol's members every call).
        at_once = cast(AnswersAtOnce, provider)
        try:
            answer = at_once.answer_now(request)
            if self.check is not None:
                self.check(answer.text)
        except Exception as error:  # classified or re-raised by the caller, as a task's would be
            return error
        return answer

    async def _send_in_task(
        self, provider: Provider, request: ProviderRequest
    ) -> ProviderAnswer | Exception | _Slot:
        """Send in a task of the call's group under the attempt deadline: the answer or error,
        or the send's slot when the deadline came first (the send goes on, to be recorded as a
        late answer)."""
        assert self.tg is not None, "a provider that waits needs the call's task group"
        slot = _Slot()
        self.slots.append(slot)
        self.tg.start_soon(self._send, provider, slot, request)
        await self._race(slot.done.wait, self.policy.attempt_timeout)
        await self._record_late_answers()
        if not slot.done.is_set() or slot.result is None:
            return slot
        return slot.result

    async def _send(self, provider: Provider, slot: _Slot, request: ProviderRequest) -> None:
        try:
            answer = await provider.complete(request)
            if self.check is not None:
                self.check(answer.text)
            slot.result = answer
        except Exception as error:  # handed to the waiting call, which classifies or re-raises it
            slot.result = error
        slot.done.set()

    async def _race(self, wait: Callable[[], Awaitable[object]], seconds: float) -> None:
        """Wait for ``wait()`` or the injected deadline, whichever comes first."""
        if self.chain.deadline is anyio.sleep:
            # Real time: a cancel scope's deadline does it without a task per attempt.
            with anyio.move_on_after(seconds):
                await wait()
            return
        async with anyio.create_task_group() as tg:

            async def expire() -> None:
                await self.chain.deadline(seconds)
                tg.cancel_scope.cancel()

            tg.start_soon(expire)
            await wait()
            tg.cancel_scope.cancel()

    async def _record_late_answers(self) -> None:
        for slot in [s for s in self.waiting_late if s.done.is_set()]:
            self.waiting_late.remove(slot)
            await self._record_late(slot)

    async def _record_late(self, slot: _Slot) -> None:
        timed_out = slot.timed_out
        assert timed_out is not None
        fields: dict[str, Any] = dict(
            provider=timed_out.provider,
            provider_attempt=timed_out.provider_attempt,
            step=timed_out.step,
            gate=timed_out.gate,
            late_of=timed_out.number,
        )
        result = slot.result
        if isinstance(result, ProviderAnswer):
            await self._record(
                **fields,
                outcome=AttemptOutcome.LATE_ANSWER,
                # surrogatepass: an answer that is not text is digested; the parser refuses it
                answer_digest=digest_bytes(result.text.encode("utf-8", "surrogatepass")),
            )
        elif isinstance(result, ProviderError):
            await self._record(
                **fields,
                outcome=AttemptOutcome.LATE_ERROR,
                error_code=result.code,
                classification=result.classification,
                detail=self.chain.redact(result.message),
            )
        else:
            await self._record(
                **fields,
                outcome=AttemptOutcome.LATE_ERROR,
                error_code=UNEXPECTED_CODE,
                detail=type(result).__name__,
            )

    async def _settle_late(self) -> None:
        """Record late answers already in; wait up to the grace for the others."""
        await self._record_late_answers()
        if not self.waiting_late or self.policy.late_answer_grace <= 0:
            return
        pending = list(self.waiting_late)

        async def all_answered() -> None:
            for slot in pending:
                await slot.done.wait()

        await self._race(all_answered, self.policy.late_answer_grace)
        await self._record_late_answers()

    async def _record(self, **fields: Any) -> ProviderAttempt:
        attempt = ProviderAttempt(
            number=self.next_number,
            purpose=self.request.purpose,
            turn_id=self.request.turn_id,
            correlation_id=self.request.correlation_id,
            request_digest=self.request_digest,
            **fields,
        )
        self.next_number += 1
        self.attempts.append(attempt)
        observe_attempt(attempt, None if attempt.late_of else self.sending_since)  # telemetry
        if self.on_attempt is not None:
            await self.on_attempt(attempt)
        return attempt
