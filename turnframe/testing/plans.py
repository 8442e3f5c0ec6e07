"""Helpers for writing plans and turns by hand in tests and scripted providers.

``span`` cites a fragment of the turn's text as evidence, ``plan_json`` renders a plan the way
an interpreter would answer, and ``build_context_now`` resolves a plan against a directory that
never waits (such as :class:`~turnframe.testing.workflow.InMemoryCaseDirectory`) without an
event loop.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from turnframe._converter import unstructure
from turnframe._hashing import canonical_json
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.pipeline.directory import CaseDirectory, build_context
from turnframe.plan import Evidence, UserTurnPlan
from turnframe.reduce import reduce
from turnframe.reduce.context import ReductionContext
from turnframe.results import InteractionToCreate, ReductionPlan
from turnframe.testing.workflow import ACCOUNT, WORKFLOWS
from turnframe.workflow import Workflow

#: A Wednesday morning: "Friday" is 2026-01-09 for turns received at this instant.
TURN_CLOCK = datetime(2026, 1, 7, 9, 30, tzinfo=UTC)

T = TypeVar("T")


def make_turn(
    text: str,
    *,
    account_id: str = ACCOUNT,
    session_id: str = "sess-1",
    turn_id: str = "turn-1",
    clock: datetime = TURN_CLOCK,
    response: InteractionResponse | None = None,
) -> UserTurn:
    return UserTurn(
        session_id=session_id,
        account_id=account_id,
        turn_id=turn_id,
        text=text,
        clock=clock,
        interaction_response=response,
    )


def span(text: str, fragment: str, nth: int = 0) -> tuple[Evidence, ...]:
    """Evidence for the ``nth`` occurrence of ``fragment`` in ``text`` (as an act's evidence)."""
    start = -1
    for _ in range(nth + 1):
        start = text.find(fragment, start + 1)
        if start < 0:
            raise ValueError(f"{fragment!r} does not occur {nth + 1} time(s) in {text!r}")
    return (Evidence(start=start, end=start + len(fragment), text=fragment),)


def plan_json(plan: UserTurnPlan) -> str:
    """The plan as an interpreter's JSON answer."""
    return canonical_json(unstructure(plan)).decode("utf-8")


def run_now(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends; raise if it does."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("the coroutine suspended; use an event loop (anyio.run) instead")


def build_context_now(
    plan: UserTurnPlan,
    turn: UserTurn,
    directory: CaseDirectory,
    *,
    workflows: Mapping[str, Workflow[Any]] = WORKFLOWS,
    case_tokens: Mapping[str, str] | None = None,
    open_interactions: Sequence[InteractionToCreate] = (),
) -> ReductionContext:
    return run_now(
        build_context(
            plan,
            turn,
            directory=directory,
            workflows=workflows,
            case_tokens=case_tokens,
            open_interactions=open_interactions,
        )
    )


def reduce_now(
    plan: UserTurnPlan,
    turn: UserTurn,
    directory: CaseDirectory,
    *,
    workflows: Mapping[str, Workflow[Any]] = WORKFLOWS,
    case_tokens: Mapping[str, str] | None = None,
    open_interactions: Sequence[InteractionToCreate] = (),
) -> ReductionPlan:
    """Resolve ``plan`` against ``directory`` and reduce it: the pure path, without a runtime."""
    context = build_context_now(
        plan,
        turn,
        directory,
        workflows=workflows,
        case_tokens=case_tokens,
        open_interactions=open_interactions,
    )
    return reduce(plan, context)
