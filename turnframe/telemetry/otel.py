"""Turns as OpenTelemetry spans and metrics (the API only; an application installs the SDK).

Spans: ``turnframe.turn`` for each handled turn; under it one ``turnframe.stage`` span per
stage (``interpret``, ``reduce``, ``execute``, ``settledreport``, ``ground``, ``recall``,
``narrate``); under the stage that asked, one ``turnframe.provider.attempt`` span per provider
attempt.
Attributes carry ids, the workflow, the phase, act counts, reason and block codes, and outcome
codes; the user's text only with ``record_user_text``.

Metrics (counters unless said): ``turnframe.turns``, ``turnframe.turn.duration`` (histogram,
seconds), ``turnframe.act.results``, ``turnframe.provider.attempts``,
``turnframe.provider.retries``, ``turnframe.gate.decisions``, ``turnframe.outbox.backlog``
(gauge, rows by status).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from opentelemetry import metrics, trace
from opentelemetry.metrics import _internal as metrics_api
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from turnframe import __version__
from turnframe.errors import TurnframeError
from turnframe.execution import ExecutionReport
from turnframe.messages import UserTurn
from turnframe.providers.attempts import AttemptOutcome, AttemptStep, GateAnswer, ProviderAttempt
from turnframe.response import TurnResponse
from turnframe.stores.records import OutboxStatus

T = TypeVar("T")

SCOPE = "turnframe"
#: Outbox rows that are not settled yet.
BACKLOG = (OutboxStatus.PENDING, OutboxStatus.CLAIMED, OutboxStatus.OUTCOME_UNKNOWN)


class Instruments:
    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None,
        meter_provider: metrics.MeterProvider | None,
    ) -> None:
        self._tracer_provider = tracer_provider
        self._meter_provider = meter_provider
        self.tracer = trace.get_tracer(SCOPE, __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, __version__, meter_provider=meter_provider)
        self.turns = meter.create_counter(
            "turnframe.turns", unit="{turn}", description="Turns handled, by final phase"
        )
        self.duration = meter.create_histogram(
            "turnframe.turn.duration", unit="s", description="Time to handle a turn"
        )
        self.act_results = meter.create_counter(
            "turnframe.act.results", unit="{act}", description="Act results, by status and reason"
        )
        self.attempts = meter.create_counter(
            "turnframe.provider.attempts",
            unit="{attempt}",
            description="Provider attempts, by provider, step and outcome",
        )
        self.retries = meter.create_counter(
            "turnframe.provider.retries",
            unit="{attempt}",
            description="Provider retries and fallbacks, by outcome",
        )
        self.gate = meter.create_counter(
            "turnframe.gate.decisions",
            unit="{decision}",
            description="ExecutionGate decisions: retries allowed or refused, batches by outcome",
        )
        self.backlog = meter.create_gauge(
            "turnframe.outbox.backlog", unit="{row}", description="Unsettled outbox rows"
        )

    def recording(self) -> bool:
        """Whether a span or a metric of a turn would go anywhere now: False while neither a
        tracer provider nor a meter provider is installed (given, or set globally since), so an
        unobserved turn builds no span, label or attribute that the no-op API would drop."""
        return _records_spans(self._tracer_provider) or _records_metrics(self._meter_provider)


def _records_spans(provider: trace.TracerProvider | None) -> bool:
    if provider is None:
        provider = trace.get_tracer_provider()  # the proxy until an application sets one
    return not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


#: The API's stand-in meter provider before an application sets one (its class is private).
_PROXY_METER_PROVIDER: type[Any] | None = getattr(metrics_api, "_ProxyMeterProvider", None)


def _records_metrics(provider: metrics.MeterProvider | None) -> bool:
    if provider is None:
        provider = metrics.get_meter_provider()
    if isinstance(provider, metrics.NoOpMeterProvider):
        return False
    return _PROXY_METER_PROVIDER is None or not isinstance(provider, _PROXY_METER_PROVIDER)


class TurnTrace:
    """One handled turn: its span, its open stage spans, and what it records when done."""

    def __init__(self, instruments: Instruments, turn: UserTurn, *, record_text: bool) -> None:
        self._instruments = instruments
        self._workflow = ""
        self._turn_id = turn.turn_id
        self._started = time.monotonic()
        attributes: dict[str, Any] = {
            "turnframe.turn.id": turn.turn_id,
            "turnframe.session.id": turn.session_id,
            "turnframe.turn.kind": _kind(turn),
        }
        if record_text:
            attributes["turnframe.turn.text"] = turn.text
        self.span = instruments.tracer.start_span(
            "turnframe.turn", kind=SpanKind.INTERNAL, attributes=attributes
        )
        self._open: list[Span] = []

    async def stage(self, name: str, workflow: str, work: Awaitable[T]) -> T:
        if workflow and not self._workflow:
            self._workflow = workflow
            self.span.set_attribute("turnframe.workflow", workflow)
        if not self.span.is_recording():  # no tracer records this turn: metrics only
            result = await work
            if isinstance(result, ExecutionReport):
                self._executed(self.span, result)
            return result
        span = self._instruments.tracer.start_span(
            "turnframe.stage",
            context=trace.set_span_in_context(self.span),
            attributes={"turnframe.stage": name, "turnframe.turn.id": self._turn_id},
        )
        self._open.append(span)
        try:
            result = await work
        except BaseException as error:
            _failed(span, error)
            raise
        else:
            if isinstance(result, ExecutionReport):
                self._executed(span, result)
            return result
        finally:
            self._open.remove(span)
            span.end()

    def attempt(self, attempt: ProviderAttempt, started_ns: int | None) -> None:
        labels = {
            "turnframe.provider": attempt.provider,
            "turnframe.provider.purpose": attempt.purpose.value,
            "turnframe.provider.step": attempt.step.value,
            "turnframe.provider.outcome": attempt.outcome.value,
        }
        self._instruments.attempts.add(1, {**labels, **self._labels()})
        if attempt.step is not AttemptStep.FIRST:
            self._instruments.retries.add(1, {**labels, **self._labels()})
        if attempt.gate is not GateAnswer.NOT_ASKED:
            decision = "retry_allowed" if attempt.gate is GateAnswer.ALLOWED else "retry_refused"
            self._instruments.gate.add(
                1,
                {
                    "turnframe.gate.decision": decision,
                    "turnframe.provider.purpose": attempt.purpose.value,
                    **self._labels(),
                },
            )
        if started_ns is None:
            return  # a late answer: the attempt's span ended when it timed out
        parent = self._open[-1] if self._open else self.span
        span = self._instruments.tracer.start_span(
            "turnframe.provider.attempt",
            context=trace.set_span_in_context(parent),
            start_time=started_ns,
            attributes={
                **labels,
                "turnframe.provider.attempt": attempt.provider_attempt,
                "turnframe.gate.answer": attempt.gate.value,
                **({"turnframe.error.code": attempt.error_code} if attempt.error_code else {}),
                **(
                    {"turnframe.provider.classification": attempt.classification.value}
                    if attempt.classification is not None
                    else {}
                ),
            },
        )
        if attempt.outcome is not AttemptOutcome.OK:
            span.set_status(Status(StatusCode.ERROR, attempt.error_code or attempt.outcome.value))
        span.end()

    def finish(self, response: TurnResponse) -> None:
        phase = response.phase.value
        statuses = Counter(r.status.value for r in response.results)
        self.span.set_attributes(
            {
                "turnframe.phase": phase,
                "turnframe.acts.count": len(response.results),
                **{f"turnframe.acts.{status}": n for status, n in sorted(statuses.items())},
                "turnframe.act.reasons": _codes(r.reason for r in response.results),
                "turnframe.blocks.codes": _codes(b.code for b in response.blocks),
                "turnframe.events.count": len(response.events),
            }
        )
        labels = {"turnframe.phase": phase, **self._labels()}
        self._instruments.turns.add(1, labels)
        self._instruments.duration.record(time.monotonic() - self._started, labels)
        for result in response.results:
            self._instruments.act_results.add(
                1,
                {
                    "turnframe.act.result": result.status.value,
                    "turnframe.act.reason": result.reason,
                    **self._labels(),
                },
            )
        self.span.end()

    def fail(self, error: BaseException) -> None:
        _failed(self.span, error)
        code = error.code if isinstance(error, TurnframeError) else type(error).__name__
        labels = {"turnframe.phase": "incomplete", "turnframe.error.code": code, **self._labels()}
        self._instruments.turns.add(1, labels)
        self._instruments.duration.record(time.monotonic() - self._started, labels)
        self.span.end()

    def _labels(self) -> dict[str, str]:
        return {"turnframe.workflow": self._workflow} if self._workflow else {}

    def _executed(self, span: Span, report: ExecutionReport) -> None:
        statuses = Counter(o.status.value for o in report.outcomes)
        span.set_attributes({f"turnframe.batches.{s}": n for s, n in sorted(statuses.items())})
        for outcome in report.outcomes:
            self._instruments.gate.add(
                1,
                {
                    "turnframe.gate.decision": f"batch_{outcome.status.value}",
                    "turnframe.batch.reason": outcome.reason,
                    "turnframe.batch.replayed": outcome.replayed,
                    **self._labels(),
                },
            )


def _kind(turn: UserTurn) -> str:
    if turn.interaction_response is None:
        return "text"
    return "click+text" if turn.text.strip() else "click"


def _codes(codes: Any) -> Sequence[str]:
    return list(dict.fromkeys(str(c) for c in codes))


def _failed(span: Span, error: BaseException) -> None:
    code = error.code if isinstance(error, TurnframeError) else type(error).__name__
    span.set_attribute("turnframe.error.code", code)
    span.set_status(Status(StatusCode.ERROR, code))


__all__ = ["BACKLOG", "Instruments", "TurnTrace"]
