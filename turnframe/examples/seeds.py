"""Seed data for the sample desks: the cases a demo account starts with.

A seed is plain data. :meth:`SeedCase.new_case` gives what a store creates
(:class:`~turnframe.stores.inputs.NewCase`, the state as JSON through the one converter);
:meth:`SeedCase.snapshot` gives what a reducer test loads into an in-memory directory.

Seed dates are counted from the day the seed is made (the clock in use), so relative dates a
user says ("next Friday") never collide with sample data from another year. :data:`DEMO_CLOCK`
is the instant ``turnframe demo`` runs at, and the day seeds are made on when no clock is given.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import attrs

from turnframe._converter import unstructure
from turnframe.stores.inputs import NewCase
from turnframe.workflow import CaseSnapshot

#: A Wednesday: "Friday" is 2026-01-30, and the seeded trip's discount is valid until 2026-01-31.
DEMO_CLOCK = datetime(2026, 1, 28, 9, 30, tzinfo=UTC)


def seed_day(now: datetime | date | None) -> date:
    """The day seeds are counted from: ``now``'s date (a datetime in its own time zone), else
    the demo day."""
    if now is None:
        return DEMO_CLOCK.date()
    return now.date() if isinstance(now, datetime) else now


@attrs.frozen(kw_only=True)
class SeedCase:
    """One case of a demo account: ``key`` is stable and short, e.g. ``"lisbon"``."""

    key: str
    workflow: str
    label: str
    state: Any
    revision: int = 1

    def case_id(self, account_id: str) -> str:
        """A stable id for this seed in one account (stores may choose their own instead)."""
        return f"{account_id}:{self.workflow}:{self.key}"

    def new_case(self, account_id: str | None = None) -> NewCase:
        """The store input; with ``account_id`` the id is :meth:`case_id`, else the store's."""
        return NewCase(
            workflow=self.workflow,
            label=self.label,
            state=unstructure(self.state),
            case_id=None if account_id is None else self.case_id(account_id),
            revision=self.revision,
        )

    def snapshot(self, account_id: str) -> CaseSnapshot:
        return CaseSnapshot(
            case_id=self.case_id(account_id),
            workflow=self.workflow,
            label=self.label,
            revision=self.revision,
            state=self.state,
        )
