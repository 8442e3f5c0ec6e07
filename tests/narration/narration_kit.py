"""Helpers for the narration tests: turns reduced against the seeded directory, a pure stand-in
for the gate that commits every ready batch, and ``narrate`` to compose the blocks."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from turnframe.corpora import ThreadContext, default_registry
from turnframe.execution import (
    BATCH_COMMITTED,
    BatchOutcome,
    BatchStatus,
    CommittedEvent,
    ExecutionReport,
    OutboxNote,
)
from turnframe.grounding import Answer, ground, supposed_acts
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.narration import TurnFailure, compose_blocks
from turnframe.plan import (
    Act,
    CancelAct,
    ChitchatAct,
    ConstraintAct,
    ConstraintKind,
    CorrectAct,
    Evidence,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    RecallAct,
    SetFieldAct,
    StartCaseAct,
    Target,
    UserTurnPlan,
)
from turnframe.response import Block, BlockKind
from turnframe.results import CommandBatch, InteractionToCreate, ReductionPlan
from turnframe.testing import (
    TRIP_WORKFLOW,
    InMemoryCaseDirectory,
    make_turn,
    reduce_now,
    run_now,
    seeded_directory,
    span,
)
from turnframe.workflow import CaseSnapshot, apply_events, run_command

BOB = LabelTarget(label="Bob")
ANNA = LabelTarget(label="Anna")
CARLA = LabelTarget(label="Carla")
NOBODY = LabelTarget(label="Zed")
REGISTRY = default_registry()


class Turn:
    """A turn's text plus acts citing fragments of it."""

    def __init__(
        self, text: str, *, turn_id: str = "turn-1", response: InteractionResponse | None = None
    ) -> None:
        self.text = text
        self.acts: list[Act] = []
        self.not_understood: list[Evidence] = []
        self.turn: UserTurn = make_turn(text, turn_id=turn_id, response=response)

    def ev(self, fragment: str) -> tuple[Evidence, ...]:
        return span(self.text, fragment)

    def add(self, act: Act) -> Turn:
        self.acts.append(act)
        return self

    def set(self, target: Target, field: str, value: str, fragment: str) -> Turn:
        return self.add(
            SetFieldAct(target=target, field=field, value=value, evidence=self.ev(fragment))
        )

    def keep(self, target: Target, field: str, fragment: str) -> Turn:
        return self.add(KeepUnchangedAct(target=target, field=field, evidence=self.ev(fragment)))

    def correct(self, corrects: int, value: str, fragment: str) -> Turn:
        return self.add(CorrectAct(corrects=corrects, value=value, evidence=self.ev(fragment)))

    def cancel(self, cancels: int, fragment: str) -> Turn:
        return self.add(CancelAct(cancels=cancels, evidence=self.ev(fragment)))

    def op(self, target: Target, name: str, fragment: str, **args: str) -> Turn:
        return self.add(
            OperationAct(target=target, operation=name, args=args, evidence=self.ev(fragment))
        )

    def forbid(self, kind: ConstraintKind, fragment: str, *, operation: str | None = None) -> Turn:
        return self.add(
            ConstraintAct(forbids=kind, operation=operation, evidence=self.ev(fragment))
        )

    def ask(
        self,
        fragment: str,
        *,
        target: Target | None = None,
        question: str | None = None,
        hypothetical: bool = False,
    ) -> Turn:
        return self.add(
            QuestionAct(
                question=question,
                target=target,
                hypothetical=hypothetical,
                evidence=self.ev(fragment),
            )
        )

    def recall(self, description: str, fragment: str) -> Turn:
        return self.add(RecallAct(description=description, evidence=self.ev(fragment)))

    def start(self, label: str, fragment: str) -> Turn:
        return self.add(StartCaseAct(workflow="trip", label=label, evidence=self.ev(fragment)))

    def chat(self, fragment: str) -> Turn:
        return self.add(ChitchatAct(evidence=self.ev(fragment)))

    def unreadable(self, fragment: str) -> Turn:
        self.not_understood.extend(self.ev(fragment))
        return self

    @property
    def plan(self) -> UserTurnPlan:
        return UserTurnPlan(acts=tuple(self.acts), not_understood=tuple(self.not_understood))

    def reduce(
        self,
        directory: InMemoryCaseDirectory | None = None,
        open_interactions: Sequence[InteractionToCreate] = (),
    ) -> ReductionPlan:
        return reduce_now(
            self.plan,
            self.turn,
            directory if directory is not None else seeded_directory(),
            open_interactions=open_interactions,
        )


def snapshots(directory: InMemoryCaseDirectory | None = None) -> dict[str, CaseSnapshot]:
    directory = directory if directory is not None else seeded_directory()
    return {case_id: snap for case_id, (_, snap) in directory.cases.items()}


def commit(
    batches: Sequence[CommandBatch],
    cases: dict[str, CaseSnapshot],
    *,
    seq: int = 100,
    replayed: bool = False,
) -> ExecutionReport:
    """A pure stand-in for the gate: run each batch on the snapshot state and commit it."""
    outcomes = []
    states = {cid: snap.state for cid, snap in cases.items()}
    for batch in batches:
        state = states.get(batch.case_id, TRIP_WORKFLOW.initial_state())
        events: list[CommittedEvent] = []
        effects: list[OutboxNote] = []
        for command in batch.commands:
            produced = run_command(TRIP_WORKFLOW, state, command.name, command.args)
            assert not hasattr(produced, "code"), produced
            assert isinstance(produced, tuple)
            state = apply_events(TRIP_WORKFLOW, state, produced)
            for event in produced:
                seq += 1
                events.append(
                    CommittedEvent(
                        seq=seq,
                        case_id=batch.case_id,
                        revision=batch.expected_revision + 1,
                        name=event.name,
                        data=event.data,
                        command_id=command.command_id,
                    )
                )
            if command.name == "book":
                effects.append(
                    OutboxNote(
                        effect_id=f"fx-{command.command_id}",
                        channel="booking",
                        idempotency_key=command.idempotency_key,
                    )
                )
        states[batch.case_id] = state
        outcomes.append(
            BatchOutcome(
                batch_id=batch.batch_id,
                case_id=batch.case_id,
                status=BatchStatus.COMMITTED,
                reason=BATCH_COMMITTED,
                command_ids=tuple(c.command_id for c in batch.commands),
                events=tuple(events),
                new_revision=batch.expected_revision + 1,
                effects=tuple(effects),
                replayed=replayed,
            )
        )
    return ExecutionReport(outcomes=tuple(outcomes))


def answer_all(
    t: Turn,
    reduction: ReductionPlan,
    cases: dict[str, CaseSnapshot],
    *,
    thread: ThreadContext | None = None,
    anaphora: bool = False,
    turn_index: int = 0,
) -> list[Answer]:
    return [
        ground(
            request,
            turn=t.turn,
            workflow=TRIP_WORKFLOW,
            case=None if request.case_id is None else cases[request.case_id],
            registry=REGISTRY,
            thread=thread,
            anaphora=anaphora,
            turn_index=turn_index,
            supposed=supposed_acts(request, t.plan, reduction),
        )
        for request in reduction.grounding
    ]


@attrs.frozen(kw_only=True)
class Narrated:
    blocks: tuple[Block, ...]
    reduction: ReductionPlan
    execution: ExecutionReport

    @property
    def texts(self) -> list[str]:
        return [b.text for b in self.blocks]

    def of_kind(self, kind: BlockKind) -> list[Block]:
        return [b for b in self.blocks if b.kind is kind]

    def codes(self) -> list[str]:
        return [b.code for b in self.blocks]

    def covering(self, act: int) -> list[Block]:
        return [b for b in self.blocks if act in b.acts]


def narrate(
    t: Turn,
    *,
    directory: InMemoryCaseDirectory | None = None,
    execute: bool = True,
    execution: ExecutionReport | None = None,
    persist_cards: bool = True,
    failure: TurnFailure | str | None = None,
    open_interactions: Sequence[InteractionToCreate] = (),
    answered: InteractionToCreate | None = None,
    with_snapshots: bool = True,
) -> Narrated:
    directory = directory if directory is not None else seeded_directory()
    reduction = t.reduce(directory, open_interactions)
    cases = snapshots(directory)
    if execution is None:
        execution = commit(reduction.batches, cases) if execute else ExecutionReport()
    blocks = compose_blocks(
        turn=t.turn,
        plan=t.plan,
        reduction=reduction,
        execution=execution,
        cards=reduction.interactions if persist_cards else (),
        answers=answer_all(t, reduction, cases),
        failure=failure,
        cases=cases if with_snapshots else {},
        answered=answered,
    )
    return Narrated(blocks=blocks, reduction=reduction, execution=execution)


__all__ = [
    "ANNA",
    "BOB",
    "CARLA",
    "NOBODY",
    "REGISTRY",
    "ConstraintKind",
    "Narrated",
    "Turn",
    "answer_all",
    "commit",
    "narrate",
    "run_now",
    "snapshots",
]
