"""Helpers for pipeline tests: seed a store with the test workflow's cases, script plans.

::

    async with SqliteStore.open(":memory:") as store:
        await seed_store(store)
        provider = ScriptedProvider(name="model", script=[Answer(plan_answer(text, acts))])
        async with Runtime(workflows=[TRIP_WORKFLOW], store=store, provider=provider) as rt:
            ...
"""

from __future__ import annotations

from collections.abc import Sequence

from turnframe._converter import converter
from turnframe.plan import Act, Evidence, UserTurnPlan
from turnframe.stores.inputs import NewCase
from turnframe.stores.protocol import Store
from turnframe.testing.plans import plan_json
from turnframe.testing.workflow import WORKFLOWS, InMemoryCaseDirectory, seeded_directory


async def seed_store(store: Store, directory: InMemoryCaseDirectory | None = None) -> None:
    """Create every case of ``directory`` (default: :func:`seeded_directory`) in ``store``."""
    for case_id, (account, snapshot) in (directory or seeded_directory()).cases.items():
        workflow = WORKFLOWS[snapshot.workflow]
        await store.create_case(
            account_id=account,
            case=NewCase(
                case_id=case_id,
                workflow=snapshot.workflow,
                label=snapshot.label or case_id,
                state=converter.unstructure(snapshot.state, unstructure_as=workflow.state_type),
                revision=snapshot.revision,
            ),
        )


def plan_answer(acts: Sequence[Act], not_understood: Sequence[Evidence] = ()) -> str:
    """A provider's JSON answer proposing ``acts``."""
    return plan_json(UserTurnPlan(acts=tuple(acts), not_understood=tuple(not_understood)))
