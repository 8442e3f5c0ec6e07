"""The test kit: a small workflow, an in-memory case directory, plan-writing helpers.

These are first-class, documented test doubles: adopters use them in their own tests.
"""

from __future__ import annotations

from turnframe.testing.plans import (
    TURN_CLOCK,
    build_context_now,
    make_turn,
    plan_json,
    reduce_now,
    run_now,
    span,
)
from turnframe.testing.workflow import (
    ACCOUNT,
    OTHER_ACCOUNT,
    TRIP,
    TRIP_WORKFLOW,
    WORKFLOWS,
    InMemoryCaseDirectory,
    TripRequest,
    seeded_directory,
    trip_case,
)

__all__ = [
    "ACCOUNT",
    "OTHER_ACCOUNT",
    "TRIP",
    "TRIP_WORKFLOW",
    "TURN_CLOCK",
    "WORKFLOWS",
    "InMemoryCaseDirectory",
    "TripRequest",
    "build_context_now",
    "make_turn",
    "plan_json",
    "reduce_now",
    "run_now",
    "seeded_directory",
    "span",
    "trip_case",
]
