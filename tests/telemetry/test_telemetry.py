"""Turns reported through OpenTelemetry, read back with the SDK's in-memory exporter and reader."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import attrs
import pytest
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracerProvider, StatusCode

from turnframe.actors.session import TurnIncomplete
from turnframe.cli.demo import DEMO_CLOCK
from turnframe.clock import ManualClock
from turnframe.examples import sample
from turnframe.messages import UserTurn
from turnframe.providers.base import ProviderAnswer, ProviderRequest
from turnframe.providers.errors import ProviderUnavailable
from turnframe.providers.policy import RetryPolicy
from turnframe.providers.rules import RulesProvider
from turnframe.response import TurnResponse
from turnframe.runtime import Runtime
from turnframe.stores import SqliteStore, StoreTimeout
from turnframe.telemetry import Telemetry, hooks

pytestmark = pytest.mark.anyio

ACCOUNT = "acct-t"
SECRET = "Add a note: my passport number is X1234567."


@attrs.define
class Observed:
    runtime: Runtime
    spans: InMemorySpanExporter
    reader: InMemoryMetricReader

    def finished(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans.get_finished_spans() if s.name == name]

    def points(self, metric: str) -> list[tuple[dict[str, Any], Any]]:
        found = []
        data = self.reader.get_metrics_data()
        assert data is not None
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        for point in m.data.data_points:
                            value = getattr(point, "value", None)
                            found.append(
                                (
                                    dict(point.attributes or {}),
                                    value if value is not None else point.count,
                                )
                            )
        return found

    async def say(self, text: str, workflow: str = "travel-desk") -> TurnResponse:
        session = await self.runtime.open_session(account_id=ACCOUNT, workflow=workflow)
        return await self.runtime.handle_turn(self.runtime.new_turn(session, text))


class Flaky:
    """A provider that is always unavailable (the chain falls back to the next one)."""

    name = "flaky"
    context_budget_tokens = 1_000_000

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        raise ProviderUnavailable("down for maintenance")


@contextlib.asynccontextmanager
async def observed(
    *, desks: Sequence[str] = ("travel-desk",), flaky: bool = False, **options: Any
) -> AsyncIterator[Observed]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    telemetry = Telemetry(
        tracer_provider=tracer_provider,
        meter_provider=MeterProvider(metric_readers=[reader]),
        outbox_interval=None,
        **options,
    )
    workflows = [sample(d).workflow for d in desks]
    rules = RulesProvider(workflows=workflows)
    async with SqliteStore.open(":memory:") as store:
        for desk in desks:
            await sample(desk).seed_account(store, ACCOUNT)
        async with Runtime(
            workflows=workflows,
            store=store,
            provider=[Flaky(), rules] if flaky else rules,
            retry_policy=RetryPolicy(attempts_per_provider=2, backoff_initial=0),
            clock=ManualClock(at=DEMO_CLOCK),
            telemetry=telemetry,
        ) as runtime:
            yield Observed(runtime=runtime, spans=spans, reader=reader)


async def test_a_turn_is_one_span_with_a_child_span_per_stage_and_per_provider_attempt() -> None:
    async with observed() as seen:
        response = await seen.say("Add a note: window seat.")
        [turn] = seen.finished("turnframe.turn")
        stages = seen.finished("turnframe.stage")
        [attempt] = seen.finished("turnframe.provider.attempt")
    assert turn.attributes is not None
    assert turn.attributes["turnframe.turn.id"] == response.turn_id
    assert turn.attributes["turnframe.workflow"] == "travel-desk"
    assert turn.attributes["turnframe.phase"] == "delivered"
    assert turn.attributes["turnframe.acts.count"] == 1
    assert turn.attributes["turnframe.acts.ready_to_execute"] == 1
    assert list(turn.attributes["turnframe.act.reasons"]) == ["turnframe.act.ready"]
    assert list(turn.attributes["turnframe.blocks.codes"]) == ["turnframe.receipt.committed"]
    assert turn.attributes["turnframe.events.count"] == 1
    names = [s.attributes["turnframe.stage"] for s in stages if s.attributes]
    # Grounding comes before the commit bundle, which stores the template reply (ADR 0022).
    assert names == ["interpret", "reduce", "ground", "execute", "narrate"]
    assert all(s.parent is not None and s.parent.span_id == turn.context.span_id for s in stages)
    interpret = stages[0]
    assert attempt.parent is not None and attempt.parent.span_id == interpret.context.span_id
    assert attempt.attributes is not None
    assert attempt.attributes["turnframe.provider"] == "rules"
    assert attempt.attributes["turnframe.provider.outcome"] == "ok"
    assert {s.context.trace_id for s in [turn, *stages, attempt]} == {turn.context.trace_id}


async def test_a_turn_that_asks_for_a_recall_has_a_recall_span_between_ground_and_narrate() -> None:
    async with observed() as seen:
        response = await seen.say("Do you remember the hotel pool thing?")
        stages = seen.finished("turnframe.stage")
    assert [b.code for b in response.blocks] == ["turnframe.recall.ask"]
    names = [s.attributes["turnframe.stage"] for s in stages if s.attributes]
    assert names[-3:] == ["ground", "recall", "narrate"]


async def test_no_span_carries_the_users_text_unless_asked() -> None:
    async with observed() as seen:
        await seen.say(SECRET)
        quiet = [dict(s.attributes or {}) for s in seen.spans.get_finished_spans()]
    async with observed(record_user_text=True) as seen:
        await seen.say(SECRET)
        [turn] = seen.finished("turnframe.turn")
    assert quiet and not any("X1234567" in str(v) for a in quiet for v in a.values())
    assert turn.attributes is not None and turn.attributes["turnframe.turn.text"] == SECRET


async def test_metrics_count_turns_and_act_results_by_code() -> None:
    async with observed() as seen:
        await seen.say("Add a note: window seat.")
        await seen.say("Change the travel date to Friday. Actually, leave the date as it is.")
        turns = seen.points("turnframe.turns")
        results = seen.points("turnframe.act.results")
        durations = seen.points("turnframe.turn.duration")
    assert turns == [({"turnframe.phase": "delivered", "turnframe.workflow": "travel-desk"}, 2)]
    by_reason = {a["turnframe.act.reason"]: n for a, n in results}
    assert by_reason == {
        "turnframe.act.ready": 1,
        "turnframe.act.superseded_by_keep_unchanged": 1,
        "turnframe.act.kept_unchanged": 1,
    }
    assert [n for _, n in durations] == [2]


async def test_retries_and_fallbacks_are_counted_by_outcome_and_as_gate_decisions() -> None:
    async with observed(flaky=True) as seen:
        await seen.say("Add a note: window seat.")
        attempts = seen.points("turnframe.provider.attempts")
        retries = seen.points("turnframe.provider.retries")
        gate = seen.points("turnframe.gate.decisions")
        spans = seen.finished("turnframe.provider.attempt")
    outcomes = {
        (a["turnframe.provider"], a["turnframe.provider.step"], a["turnframe.provider.outcome"]): n
        for a, n in attempts
    }
    assert outcomes == {
        ("flaky", "first", "error"): 1,
        ("flaky", "retry", "error"): 1,
        ("rules", "fallback", "ok"): 1,
    }
    by_step = {
        (a["turnframe.provider.step"], a["turnframe.provider.outcome"]): n for a, n in retries
    }
    assert by_step == {("retry", "error"): 1, ("fallback", "ok"): 1}
    decisions = {a["turnframe.gate.decision"]: n for a, n in gate}
    assert decisions == {"retry_allowed": 2, "batch_committed": 1}
    failed = [s for s in spans if s.attributes and s.attributes["turnframe.provider"] == "flaky"]
    assert failed[0].status.status_code is StatusCode.ERROR
    assert failed[0].attributes["turnframe.error.code"] == "turnframe.provider.unavailable"


async def test_the_outbox_backlog_is_sampled_by_status() -> None:
    async with observed(desks=("refund-desk",)) as seen:
        session = await seen.runtime.open_session(account_id=ACCOUNT, workflow="refund-desk")
        await seen.runtime.handle_turn(
            seen.runtime.new_turn(session, "Refund 20 euros on order 1001.")
        )
        card = (await seen.runtime.store.list_open_interactions(ACCOUNT))[0]
        await seen.runtime.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id="confirm",
            expected_revision=int(card.payload["expected_revision"]),
        )
        counts = await seen.runtime.telemetry.sample_outbox(seen.runtime.store)
        backlog = seen.points("turnframe.outbox.backlog")
    assert counts == {"pending": 1, "claimed": 0, "outcome_unknown": 0}
    assert {a["turnframe.outbox.status"]: n for a, n in backlog} == counts


async def test_disabled_telemetry_records_nothing() -> None:
    async with observed(enabled=False) as seen:
        await seen.say("Add a note: window seat.")
        assert seen.spans.get_finished_spans() == ()
        assert seen.runtime.telemetry.enabled is False


async def test_a_turn_that_stops_midway_ends_its_span_with_the_error_code() -> None:
    async with observed() as seen:
        store = seen.runtime.store

        async def down(*args: object, **kwargs: object) -> None:
            raise StoreTimeout("the database stayed locked")

        original = store.save_assistant_turn
        store.save_assistant_turn = down  # type: ignore[method-assign]
        committing = store.commit_bundle

        async def without_reply(bundle: Any, **kwargs: Any) -> Any:
            # The reply rides in the bundle (ADR 0022): storing it fails there too.
            return await committing(attrs.evolve(bundle, reply=None), **kwargs)

        store.commit_bundle = without_reply  # type: ignore[method-assign]
        try:
            with pytest.raises(TurnIncomplete):
                await seen.say("Add a note: window seat.")
        finally:
            store.save_assistant_turn = original  # type: ignore[method-assign]
            store.commit_bundle = committing  # type: ignore[method-assign]
        [turn] = seen.finished("turnframe.turn")
        turns = seen.points("turnframe.turns")
    assert turn.status.status_code is StatusCode.ERROR
    assert turn.attributes is not None
    assert turn.attributes["turnframe.error.code"] == "turnframe.turn.incomplete"
    assert [(a["turnframe.phase"], n) for a, n in turns] == [("incomplete", 1)]


def test_a_turn_is_traced_only_while_a_tracer_or_meter_provider_would_record_it() -> None:
    turn = UserTurn(
        session_id="session-1", account_id=ACCOUNT, turn_id="turn-1", text="hi", clock=DEMO_CLOCK
    )
    nothing = Telemetry(tracer_provider=NoOpTracerProvider(), meter_provider=NoOpMeterProvider())
    spans_only = Telemetry(tracer_provider=TracerProvider(), meter_provider=NoOpMeterProvider())
    metrics_only = Telemetry(tracer_provider=NoOpTracerProvider(), meter_provider=MeterProvider())
    with nothing.turn(turn):
        assert hooks.live_turns() == 0
    for telemetry in (spans_only, metrics_only):
        with telemetry.turn(turn):
            assert hooks.live_turns() == 1
    assert hooks.live_turns() == 0
