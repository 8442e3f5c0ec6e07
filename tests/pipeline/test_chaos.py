"""Random crash schedules across the turn's boundaries: every turn ends exactly once."""

from __future__ import annotations

import contextlib

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline_kit import ACCOUNT, operation, question, running, say, set_field

from turnframe.actors.session import TurnIncomplete
from turnframe.providers.base import Purpose
from turnframe.stores import SqliteStore
from turnframe.testing.faults import Fault, FaultMode, FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.invariants import (
    ending_violations,
    exactly_once_violations,
    receipt_violations,
)
from turnframe.testing.pipeline import plan_answer, seed_store
from turnframe.testing.scripted import Answer, ScriptedProvider

TURN_POINTS = [
    FaultPoint.BEFORE_INTERACTION_PERSISTENCE,
    FaultPoint.AFTER_INTERACTION_PERSISTENCE,
    FaultPoint.BEFORE_JOURNAL_INSERT,
    FaultPoint.AFTER_JOURNAL_INSERT_BEFORE_COMMIT,
    FaultPoint.INSIDE_COMMIT_BUNDLE,
    FaultPoint.BEFORE_RESPONSE_PERSISTENCE,
]


def _turns() -> list[tuple[str, list[object]]]:
    note = "Set Bob's note to aisle"
    both = "Passengers for Anna's? No: Bob's passengers 3 and his status?"
    withdraw = "Withdraw Bob's trip"
    return [
        (note, [set_field(note, "Bob", "note", "aisle", "note to aisle")]),
        (
            both,
            [
                set_field(both, "Bob", "passengers", "3", "passengers 3"),
                question(both, "Bob", "status", "his status?"),
            ],
        ),
        (withdraw, [operation(withdraw, "Bob", "withdraw", withdraw)]),
    ]


faults = st.lists(
    st.builds(
        Fault,
        point=st.sampled_from(TURN_POINTS),
        mode=st.sampled_from(list(FaultMode)),
        occurrence=st.integers(min_value=1, max_value=3),
        times=st.sampled_from([1, 2, None]),
    ),
    max_size=3,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedule=faults)
def test_random_crash_schedules_end_every_turn_once_with_effects_once(
    schedule: list[Fault],
) -> None:
    anyio.run(_run, schedule)


async def _run(schedule: list[Fault]) -> None:
    turns = _turns()
    provider = ScriptedProvider(
        name="model", script=[Answer(plan_answer(acts)) for _, acts in turns]
    )
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FaultyStore(inner, FaultPlan(faults=tuple(schedule)))
        # No fault stops the runtime (no poison): a turn ends, or is left to recovery.
        async with running(provider, store=store) as (rt, _):
            for text, _acts in turns:
                with contextlib.suppress(TurnIncomplete):
                    await say(rt, text)
        # The next start recovers whatever a persistent fault left unfinished.
        async with running(provider, store=inner):
            pass
        problems = await exactly_once_violations(inner, ACCOUNT)
        for record in await inner.list_session_turns(ACCOUNT, "sess-1"):
            problems += await ending_violations(inner, ACCOUNT, record.turn_id)
            problems += await receipt_violations(inner, ACCOUNT, record.turn_id)
        assert problems == []
        # No turn was interpreted twice: interpretation stops at the seal, and an unsealed
        # turn is only asked again when nothing was admitted.
        assert len(provider.requests_for(Purpose.INTERPRET)) == len(turns)
