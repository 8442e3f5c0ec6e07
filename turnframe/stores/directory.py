"""A :class:`~turnframe.pipeline.directory.CaseDirectory` over a :class:`Store` (the default).

Labels match case-insensitively after trimming. Authorization is account scoping: the store
answers another account's case exactly like an unknown one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnframe._converter import converter
from turnframe.pipeline.names import find_named
from turnframe.stores.protocol import Store
from turnframe.stores.records import CaseRecord
from turnframe.workflow import CaseSnapshot, Workflow


def case_snapshot(record: CaseRecord, workflow: Workflow[Any]) -> CaseSnapshot:
    return CaseSnapshot(
        case_id=record.case_id,
        workflow=record.workflow,
        label=record.label,
        revision=record.revision,
        state=converter.structure(record.state, workflow.state_type),
        noun=workflow.case_noun,
    )


class StoreCaseDirectory:
    def __init__(self, store: Store, workflows: Mapping[str, Workflow[Any]]) -> None:
        self._store = store
        self._workflows = workflows
        # authorize() then snapshot() of the same case is one read, not two; the listing read
        # for labels() answers find_by_label() within the same turn (see forget()).
        self._authorized: CaseRecord | None = None
        self._listing: tuple[str, list[CaseRecord]] | None = None

    def remember(self, account_id: str, cases: Sequence[CaseRecord]) -> None:
        """Take ``cases`` (every case of the account, read with the turn's start) as this
        turn's listing: labels, label lookups and case reads are answered from it until
        :meth:`forget` (ADR 0022: one read serves the interpreter and the reducer; a case that
        moves meanwhile is caught by the guarded seal or the commit's revision check)."""
        self._listing = (account_id, list(cases))

    def forget(self) -> None:
        """Drop what this directory remembers from the current turn's reads."""
        self._authorized = None
        self._listing = None

    async def find_by_label(self, account_id: str, label: str) -> Sequence[str]:
        """Cases named ``label``: by label, else by an identifying value, else by its words
        (see :mod:`turnframe.pipeline.names`)."""
        if self._listing is not None and self._listing[0] == account_id:
            every = self._listing[1]
        else:
            exact = await self._store.list_cases(account_id, label=label.strip())
            if exact:
                return [c.case_id for c in exact]
            every = await self._store.list_cases(account_id)
        return find_named(label, ((c.case_id, c.label, self._names(c)) for c in every))

    def _names(self, record: CaseRecord) -> tuple[str, ...]:
        workflow = self._workflows.get(record.workflow)
        if workflow is None or not workflow.identifying:
            return (record.label,)
        state = record.state if isinstance(record.state, dict) else {}
        identifying = workflow.identifying
        values = tuple(str(state[n]) for n in identifying if state.get(n) not in (None, ""))
        return (record.label, *values)

    async def authorize(self, account_id: str, case_id: str) -> bool:
        listed = self._listed(account_id, case_id)
        self._authorized = listed or await self._store.get_case(account_id, case_id)
        return self._authorized is not None

    def _listed(self, account_id: str, case_id: str) -> CaseRecord | None:
        """The case as this turn's listing holds it (None: no listing, or not in it: read)."""
        if self._listing is None or self._listing[0] != account_id:
            return None
        return next((c for c in self._listing[1] if c.case_id == case_id), None)

    async def snapshot(self, account_id: str, case_id: str) -> CaseSnapshot | None:
        record, self._authorized = self._authorized, None
        if record is None or (record.account_id, record.case_id) != (account_id, case_id):
            record = await self._store.get_case(account_id, case_id)
        if record is None or record.workflow not in self._workflows:
            return None
        return case_snapshot(record, self._workflows[record.workflow])

    async def labels(self, account_id: str, workflow: str | None = None) -> list[str]:
        """Every case label the account has (what an interpreter may be shown), from this
        turn's listing when there is one."""
        if self._listing is not None and self._listing[0] == account_id:
            cases = self._listing[1]
        else:
            cases = await self._store.list_cases(account_id)
            self._listing = (account_id, cases)
        return sorted({c.label for c in cases if workflow is None or c.workflow == workflow})

    def other_names(self, workflow: str | None = None) -> dict[str, tuple[str, ...]]:
        """From the listing :meth:`labels` just read: each identifying value the cases go by
        (a customer's name, an order number), with the labels of the cases it names."""
        if self._listing is None:
            return {}
        found: dict[str, set[str]] = {}
        for c in self._listing[1]:
            if workflow is None or c.workflow == workflow:
                for name in self._names(c)[1:]:
                    found.setdefault(name, set()).add(c.label)
        return {name: tuple(sorted(labels)) for name, labels in sorted(found.items())}
