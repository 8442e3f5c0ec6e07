"""The supervision tree under a runtime: gate pool, stage pools, dynamic session supervisor.

``runtime`` (one_for_one) → ``gates`` (a pool of identical ExecutionGate workers: every answer
comes from the store), ``stages`` (interpreter, reducer, grounding, recall and narrator pools) and
``sessions`` (a dynamic supervisor, one transient SessionActor per live session). A session is
served by the same member of each pool (chosen by hashing its id), so one session's messages
stay in order.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from turnframe.actors.actor import Actor
from turnframe.actors.gate import ExecutionGate
from turnframe.actors.grounding import GroundingActor
from turnframe.actors.interpreter import InterpreterActor
from turnframe.actors.narrator import NarratorActor
from turnframe.actors.recall import RecallActor
from turnframe.actors.reduction import ReducerActor
from turnframe.actors.ref import ActorRef
from turnframe.actors.session import DirectStages, StageRefs
from turnframe.corpora import CorpusRegistry
from turnframe.pipeline.interpretation import InterpretSetup
from turnframe.providers.chain import ProviderChain
from turnframe.runtime.settings import RuntimeSettings
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.supervisors import ChildSpec, DynamicSupervisor, Strategy, Supervisor
from turnframe.supervisors.events import EventCallback
from turnframe.workflow import Workflow

STAGES = ("interpreter", "reducer", "grounding", "recall", "narrator")


def pool_member(refs: Sequence[ActorRef], key: str) -> ActorRef:
    return refs[zlib.crc32(key.encode()) % len(refs)]


@attrs.define(eq=False)
class StageTree:
    root: Supervisor
    gates: Supervisor
    stages: Supervisor
    sessions: DynamicSupervisor
    gate_ids: list[str]
    stage_ids: dict[str, list[str]]
    direct: DirectStages | None = None

    def gate(self) -> ActorRef:
        """A gate worker for asks that need no particular one (every gate answers the same)."""
        return self.gates.ref(self.gate_ids[0])

    def refs_for(self, session_id: str) -> StageRefs:
        def pick(name: str) -> ActorRef:
            return pool_member([self.stages.ref(i) for i in self.stage_ids[name]], session_id)

        def failed(stage: str, error: BaseException) -> None:
            # A stage the session called directly failed: operators see it as that session's
            # pool member failing on a message (as if it had been asked).
            ids = self.stage_ids[stage]
            self.stages.report_failure(ids[zlib.crc32(session_id.encode()) % len(ids)], error)

        return StageRefs(
            interpreter=pick("interpreter"),
            reducer=pick("reducer"),
            gate=pool_member([self.gates.ref(i) for i in self.gate_ids], session_id),
            grounding=pick("grounding"),
            narrator=pick("narrator"),
            recall=pick("recall"),
            direct=None if self.direct is None else attrs.evolve(self.direct, on_failure=failed),
        )


def build_tree(
    *,
    store: Store,
    workflows: Mapping[str, Workflow[Any]],
    settings: RuntimeSettings,
    chain: ProviderChain,
    narration_chain: ProviderChain | None,
    setups: Mapping[str, InterpretSetup],
    corpora: CorpusRegistry,
    context_budgets: Sequence[tuple[str, int | None]],
    inside_commit: InsideTransactionHook | None,
    on_outbox: Callable[[], None] | None,
    on_event: EventCallback | None = None,
    narrator_class: type[NarratorActor] = NarratorActor,
    recall_location: str = "turnframe.db",
) -> StageTree:
    def specs(name: str, factory: Callable[[], Actor]) -> list[ChildSpec]:
        return [
            ChildSpec(id=f"{name}-{i}", factory=factory, mailbox_size=settings.mailbox_size)
            for i in range(settings.pool_size)
        ]

    intensity = settings.intensity
    gate_specs = specs(
        "gate",
        lambda: ExecutionGate(
            store=store, workflows=workflows, inside_commit=inside_commit, on_outbox=on_outbox
        ),
    )
    gates = Supervisor(
        name="gates", children=gate_specs, strategy=Strategy.ONE_FOR_ONE, intensity=intensity
    )
    first_gate = gate_specs[0].id
    stage_specs = {
        "interpreter": specs(
            "interpreter",
            lambda: InterpreterActor(
                chain=chain,
                gate=gates.ref(first_gate),
                workflows=workflows,
                setups=setups,
                context_budgets=context_budgets,
            ),
        ),
        "reducer": specs("reducer", ReducerActor),
        "grounding": specs(
            "grounding",
            lambda: GroundingActor(
                store=store, workflows=workflows, registry=corpora, anaphora=settings.anaphora
            ),
        ),
        "recall": specs(
            "recall",
            lambda: RecallActor(
                store=store, settings=settings.recall, store_location=recall_location
            ),
        ),
        "narrator": specs(
            "narrator",
            lambda: narrator_class(
                chain=narration_chain, gate=gates.ref(first_gate), workflows=workflows
            ),
        ),
    }
    stages = Supervisor(
        name="stages",
        children=[s for name in STAGES for s in stage_specs[name]],
        strategy=Strategy.ONE_FOR_ONE,
        intensity=intensity,
    )
    sessions = DynamicSupervisor(
        name="sessions", intensity=intensity, child_intensity=settings.session_intensity
    )
    root = Supervisor(
        name="runtime",
        children=[gates, stages, sessions],
        strategy=Strategy.ONE_FOR_ONE,
        on_event=on_event,
    )
    # The pure stages, for sessions to call in their own task (see DirectStages); the actors
    # stay in the tree for asks from elsewhere and for model narration.
    direct = DirectStages(
        reducer=ReducerActor(),
        grounding=GroundingActor(
            store=store, workflows=workflows, registry=corpora, anaphora=settings.anaphora
        ),
        narrator=(
            narrator_class(chain=None, gate=None, workflows=workflows)
            if narration_chain is None
            else None
        ),
    )
    return StageTree(
        direct=direct,
        root=root,
        gates=gates,
        stages=stages,
        sessions=sessions,
        gate_ids=[s.id for s in gate_specs],
        stage_ids={name: [s.id for s in group] for name, group in stage_specs.items()},
    )
