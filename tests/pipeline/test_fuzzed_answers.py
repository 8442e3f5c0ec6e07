"""A slice of benchmarks/fuzz_plans.py: hostile model answers end their turn, nothing else."""

from __future__ import annotations

import json
import random
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline_kit import ACCOUNT, set_field

from turnframe.errors import TurnframeError
from turnframe.lifecycle import TurnPhase
from turnframe.plan import PlanRejected, UserTurnPlan, parse_plan
from turnframe.providers.base import ProviderAnswer, ProviderRequest
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.supervisors import EventKind, SupervisionEvent
from turnframe.testing import TRIP_WORKFLOW, TURN_CLOCK, make_turn, plan_json
from turnframe.testing.fuzz import MUTATIONS
from turnframe.testing.pipeline import seed_store

TEXT = "Set Bob's note to aisle"
PLAN = json.loads(plan_json(UserTurnPlan(acts=(set_field(TEXT, "Bob", "note", "aisle", TEXT),))))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    answer=st.one_of(
        st.text(),
        st.binary(),
        json_values.map(json.dumps),
        st.builds(lambda acts: json.dumps({"acts": acts}), st.lists(json_values, max_size=4)),
    )
)
def test_any_answer_at_all_is_a_plan_or_a_rejected_plan_never_another_error(
    answer: str | bytes,
) -> None:
    try:
        parse_plan(answer, make_turn(TEXT))
    except PlanRejected as rejection:
        str(rejection).encode("utf-8")  # a rejection can always be stored


_FAILURES = (EventKind.CRASHED, EventKind.ESCALATED, EventKind.GAVE_UP)


class Answers:
    """Hands each turn the answer queued for it (again in its repair round)."""

    name = "fuzz"
    context_budget_tokens = 1 << 30

    def __init__(self) -> None:
        self.by_turn: dict[str, str] = {}

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        await anyio.lowlevel.checkpoint()
        return ProviderAnswer(text=self.by_turn[request.turn_id])


async def _through_the_runtime(answers: list[str]) -> dict[str, Any]:
    failures: list[SupervisionEvent] = []
    provider = Answers()
    outcomes: list[TurnPhase] = []
    async with SqliteStore.open(":memory:", driver="inline") as store:
        await seed_store(store)
        settings = RuntimeSettings(pool_size=1, ask_timeout=30.0, session_idle_seconds=None)
        async with Runtime(
            workflows=[TRIP_WORKFLOW],
            store=store,
            provider=provider,
            settings=settings,
            on_supervision_event=failures.append,
        ) as rt:
            poisoned = await rt.open_session(account_id=ACCOUNT, session_id="fuzzed")
            healthy = await rt.open_session(account_id=ACCOUNT, session_id="healthy")
            for answer in answers:
                turn = rt.new_turn(poisoned, TEXT, at=TURN_CLOCK)
                provider.by_turn[turn.turn_id] = answer
                with anyio.fail_after(30):
                    outcomes.append((await rt.handle_turn(turn)).phase)
                check = rt.new_turn(healthy, TEXT, at=TURN_CLOCK)
                provider.by_turn[check.turn_id] = json.dumps(PLAN)
                assert (await rt.handle_turn(check)).phase is TurnPhase.DELIVERED
        failed = [
            t.turn_id
            for t in await store.list_session_turns(ACCOUNT, "fuzzed")
            if t.phase is TurnPhase.FAILED
        ]
        left_behind = [t for t in failed if await store.list_journal(ACCOUNT, t)]
        left_behind += [t for t in failed if await store.list_events(ACCOUNT, turn_id=t)]
        return {
            "outcomes": outcomes,
            "stuck": await store.list_unfinished_turns(account_id=None),
            "partial": left_behind,
            "crashes": [e for e in failures if e.kind in _FAILURES],
        }


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    draws=st.lists(
        st.tuples(st.sampled_from(sorted(MUTATIONS)), st.integers(0, 2**32)), min_size=1, max_size=5
    )
)
def test_mutated_answers_end_their_turns_and_the_runtime_serves_on(
    backend: str, draws: list[tuple[str, int]]
) -> None:
    answers = [MUTATIONS[name](PLAN, random.Random(seed)) for name, seed in draws]
    try:
        seen = anyio.run(_through_the_runtime, answers, backend=backend)
    except TurnframeError as error:  # pragma: no cover - the failure this test exists for
        raise AssertionError(f"a typed error reached the caller: {error}") from error
    assert all(phase in (TurnPhase.DELIVERED, TurnPhase.FAILED) for phase in seen["outcomes"])
    assert seen["stuck"] == [] and seen["partial"] == [] and seen["crashes"] == []
