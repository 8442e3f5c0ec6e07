"""Shared helpers for the interpreter tests: read a turn with the rules provider, parse the plan
strictly, reduce it against the sample desks' seed data, and look at the result."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import attrs

from turnframe.examples import sample
from turnframe.messages import UserTurn
from turnframe.plan import Act, UserTurnPlan, parse_plan
from turnframe.providers.rules import RulesProvider
from turnframe.references import Glossary
from turnframe.results import PlannedActResult, PlannedCommand, ReductionPlan
from turnframe.testing import ACCOUNT, TURN_CLOCK, InMemoryCaseDirectory, make_turn, reduce_now
from turnframe.testing.phrasings import Graded, play_turns

TRAVEL = sample("travel-desk")
REFUND = sample("refund-desk")
DESKS = {TRAVEL.name: TRAVEL, REFUND.name: REFUND}
WORKFLOWS = {desk.name: desk.workflow for desk in DESKS.values()}
PROVIDER = RulesProvider(workflows=WORKFLOWS.values())


def seeded_directory() -> InMemoryCaseDirectory:
    directory = InMemoryCaseDirectory()
    for desk in DESKS.values():
        for seed in desk.seed():
            directory.put(ACCOUNT, seed.snapshot(ACCOUNT))
    return directory


def case_id(desk: str, key: str) -> str:
    return next(s for s in DESKS[desk].seed() if s.key == key).case_id(ACCOUNT)


@attrs.frozen(kw_only=True)
class Reading:
    turn: UserTurn
    raw: str
    plan: UserTurnPlan
    reduction: ReductionPlan

    @property
    def acts(self) -> tuple[Act, ...]:
        return self.plan.acts

    @property
    def kinds(self) -> list[str]:
        return [a.kind for a in self.plan.acts]

    @property
    def results(self) -> tuple[PlannedActResult, ...]:
        return self.reduction.results

    @property
    def statuses(self) -> list[str]:
        return [r.status.value for r in self.reduction.results]

    @property
    def reasons(self) -> list[str]:
        return [r.reason for r in self.reduction.results]

    def evidence(self, index: int) -> list[str]:
        return [e.text for e in self.plan.acts[index].evidence]

    @property
    def unread(self) -> list[str]:
        return [e.text for e in self.plan.not_understood]

    def command(self, index: int) -> PlannedCommand:
        """The command planned for act ``index`` (ready or awaiting confirmation)."""
        (command_id,) = self.results[index].command_ids
        batches = (*self.reduction.batches, *self.reduction.awaiting_batches)
        return next(c for b in batches for c in b.commands if c.command_id == command_id)

    def args(self, index: int) -> dict[str, Any]:
        return self.command(index).args


def read(
    text: str,
    desk: str = TRAVEL.name,
    *,
    focus: str | None = None,
    labels: tuple[str, ...] | None = None,
    glossary: Glossary | None = None,
    clock: datetime = TURN_CLOCK,
    locale: str = "en",
) -> Reading:
    turn = attrs.evolve(make_turn(text, clock=clock), locale=locale)
    if labels is None:
        labels = tuple(s.label for s in DESKS[desk].seed())
    raw = PROVIDER.interpret(turn, desk, case_labels=labels, focus_label=focus, glossary=glossary)
    plan = parse_plan(raw, turn)
    reduction = reduce_now(plan, turn, seeded_directory(), workflows=WORKFLOWS)
    return Reading(turn=turn, raw=raw, plan=plan, reduction=reduction)


async def talk(desk_name: str, turns: tuple[str, ...], expect: dict[str, Any]) -> Graded:
    """Play one conversation on a fresh seeded desk and grade it against ``expect``."""
    return await play_turns(desk_name, turns, expect)


def field_event(case: str, field: str, value: Any) -> dict[str, Any]:
    """The expectation of one committed ``field_set`` event."""
    return {"case": case, "type": "field_set", "data": {"field": field, "value": value}}


async def play(desk_name: str, *turns: str) -> Graded:
    """One conversation on a fresh seeded desk; the grade's events and shown blocks are what
    a test looks at (the expectation itself is not used)."""
    return await play_turns(desk_name, turns)


def shown(graded: Graded) -> list[str]:
    """The blocks the last turn showed ("card:confirm_command", "notice:rejected", …)."""
    return [b.strip() for b in graded.shown.split(",") if b.strip()]


def events(graded: Graded) -> list[tuple[str, dict[str, Any]]]:
    """The committed events, as (type, data) pairs."""
    return [(e["type"], dict(e["data"])) for e in graded.events]
