"""Sample desks that ship with turnframe, so ``turnframe demo`` works from an installed wheel.

Each sample bundles a workflow, the seed cases of a demo account, its reviewed policy corpus and
the reference slots its interpreter reads::

    from turnframe.examples import sample

    desk = sample("travel-desk")
    desk.workflow                      # the Workflow
    desk.seed(clock.now())             # SeedCase(s), dates counted from now: .new_case(account)
    await desk.seed_account(store, "acct-1", now=clock.now())   # only the cases it lacks
    desk.register_corpus(registry)     # its reviewed policy corpus, into a CorpusRegistry
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any

import attrs

from turnframe.corpora import CorpusRegistry, RegistrationReport
from turnframe.errors import TurnframeError
from turnframe.examples.corpora import REFUND_POLICY, TRAVEL_POLICY, register_policy_corpus
from turnframe.examples.refund_desk import (
    REFUND_DEMO,
    REFUND_DESK,
    REFUND_DESK_WORKFLOW,
    refund_desk_seed,
)
from turnframe.examples.seeds import DEMO_CLOCK, SeedCase, seed_day
from turnframe.examples.travel_desk import (
    GLOSSARY_SLOT,
    TRAVEL_DEMO,
    TRAVEL_DESK,
    TRAVEL_DESK_WORKFLOW,
    travel_desk_seed,
)
from turnframe.references import ReferenceSlot
from turnframe.stores.protocol import Store
from turnframe.stores.seeding import create_missing_cases
from turnframe.workflow import Workflow


class UnknownSampleWorkflow(TurnframeError):
    code = "turnframe.examples.unknown_workflow"


@attrs.frozen(kw_only=True)
class SampleWorkflow:
    name: str
    description: str
    workflow: Workflow[Any]
    seed_cases: Callable[[date], tuple[SeedCase, ...]]  # the seed, dates counted from a day
    corpus_id: str
    reference_slots: tuple[ReferenceSlot, ...] = ()
    glossary_slots: tuple[str, ...] = ()  # the slots the rule-based interpreter reads aliases from
    demo_turns: tuple[str, ...] = ()  # a scripted conversation the rules interpreter reads whole

    def seed(self, now: datetime | date | None = None) -> tuple[SeedCase, ...]:
        """The cases a demo account starts with, their dates counted from ``now`` (pass the
        clock in use: ``clock.now()``); without it, from the demo day (``DEMO_CLOCK``)."""
        return self.seed_cases(seed_day(now))

    async def seed_account(
        self, store: Store, account_id: str, *, now: datetime | date | None = None
    ) -> int:
        """Create the seed cases ``account_id`` does not have yet; cases it has are left as
        they are, so running it again (a second run, a restart) changes nothing. Returns how
        many cases were created."""
        cases = (seed.new_case(account_id) for seed in self.seed(now))
        return await create_missing_cases(store, account_id, cases)

    def register_corpus(self, registry: CorpusRegistry) -> RegistrationReport:
        return register_policy_corpus(registry, self.corpus_id)


SAMPLE_WORKFLOWS: Mapping[str, SampleWorkflow] = {
    TRAVEL_DESK: SampleWorkflow(
        name=TRAVEL_DESK,
        description="A trip: dates, a note, a discount, extras, legs; rebooking and withdrawal "
        "wait for a confirmation card.",
        workflow=TRAVEL_DESK_WORKFLOW,
        seed_cases=travel_desk_seed,
        corpus_id=TRAVEL_POLICY,
        reference_slots=(GLOSSARY_SLOT,),
        glossary_slots=(GLOSSARY_SLOT.name,),
        demo_turns=TRAVEL_DEMO,
    ),
    REFUND_DESK: SampleWorkflow(
        name=REFUND_DESK,
        description="Orders and refunds: a refund is an external payment, confirmed by a click "
        "and refused when it exceeds what was paid.",
        workflow=REFUND_DESK_WORKFLOW,
        seed_cases=refund_desk_seed,
        corpus_id=REFUND_POLICY,
        demo_turns=REFUND_DEMO,
    ),
}


def sample(name: str) -> SampleWorkflow:
    """The sample desk called ``name``; a typed error lists the known ones."""
    found = SAMPLE_WORKFLOWS.get(name)
    if found is None:
        known = ", ".join(sorted(SAMPLE_WORKFLOWS))
        raise UnknownSampleWorkflow(
            f"there is no sample workflow {name!r}; known: {known}",
            hint="pick one of the known sample workflows",
        )
    return found


__all__ = [
    "DEMO_CLOCK",
    "SAMPLE_WORKFLOWS",
    "SampleWorkflow",
    "SeedCase",
    "UnknownSampleWorkflow",
    "sample",
]
