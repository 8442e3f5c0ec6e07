"""Seed data for the sample desks: the cases a demo account starts with.

A seed is plain data. :meth:`SeedCase.new_case` gives what a store creates
(:class:`~turnframe.stores.inputs.NewCase`, the state as JSON through the one converter);
:meth:`SeedCase.snapshot` gives what a reducer test loads into an in-memory directory.
"""

from __future__ import annotations

from typing import Any

import attrs

from turnframe._converter import unstructure
from turnframe.stores.inputs import NewCase
from turnframe.workflow import CaseSnapshot


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
