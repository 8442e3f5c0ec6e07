"""Shared helpers for the reducer tests: one seeded directory, short act constructors."""

from __future__ import annotations

from turnframe.messages import InteractionResponse
from turnframe.plan import (
    Act,
    CancelAct,
    ConstraintAct,
    ConstraintKind,
    CorrectAct,
    Evidence,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    SetFieldAct,
    Target,
    UserTurnPlan,
)
from turnframe.results import ActStatus, InteractionToCreate, ReductionPlan
from turnframe.testing import (
    InMemoryCaseDirectory,
    make_turn,
    reduce_now,
    seeded_directory,
    span,
)

BOB = LabelTarget(label="Bob")
ANNA = LabelTarget(label="Anna")
CARLA = LabelTarget(label="Carla")


class Turn:
    """A turn's text plus acts citing fragments of it, reduced against the seeded directory."""

    def __init__(self, text: str, response: InteractionResponse | None = None) -> None:
        self.text = text
        self.response = response
        self.acts: list[Act] = []

    def ev(self, fragment: str, nth: int = 0) -> tuple[Evidence, ...]:
        return span(self.text, fragment, nth)

    def set(self, target: Target, field: str, value: str, fragment: str) -> Turn:
        self.acts.append(
            SetFieldAct(target=target, field=field, value=value, evidence=self.ev(fragment))
        )
        return self

    def keep(self, target: Target, field: str, fragment: str) -> Turn:
        self.acts.append(KeepUnchangedAct(target=target, field=field, evidence=self.ev(fragment)))
        return self

    def correct(self, corrects: int, value: str, fragment: str) -> Turn:
        self.acts.append(CorrectAct(corrects=corrects, value=value, evidence=self.ev(fragment)))
        return self

    def cancel(self, cancels: int, fragment: str) -> Turn:
        self.acts.append(CancelAct(cancels=cancels, evidence=self.ev(fragment)))
        return self

    def op(self, target: Target, name: str, fragment: str, **args: str) -> Turn:
        self.acts.append(
            OperationAct(target=target, operation=name, args=args, evidence=self.ev(fragment))
        )
        return self

    def forbid(
        self,
        kind: ConstraintKind,
        fragment: str,
        *,
        operation: str | None = None,
        target: Target | None = None,
    ) -> Turn:
        self.acts.append(
            ConstraintAct(
                forbids=kind, operation=operation, target=target, evidence=self.ev(fragment)
            )
        )
        return self

    def ask(
        self,
        fragment: str,
        *,
        target: Target | None = None,
        question: str | None = None,
        hypothetical: bool = False,
    ) -> Turn:
        self.acts.append(
            QuestionAct(
                question=question,
                target=target,
                hypothetical=hypothetical,
                evidence=self.ev(fragment),
            )
        )
        return self

    @property
    def plan(self) -> UserTurnPlan:
        return UserTurnPlan(acts=tuple(self.acts))

    def reduce(
        self,
        *,
        turn_id: str = "turn-1",
        response: InteractionResponse | None = None,
        open_interactions: tuple[InteractionToCreate, ...] = (),
        directory: InMemoryCaseDirectory | None = None,
    ) -> ReductionPlan:
        turn = make_turn(self.text, turn_id=turn_id, response=response or self.response)
        return reduce_now(
            self.plan,
            turn,
            directory if directory is not None else seeded_directory(),
            open_interactions=open_interactions,
        )


def statuses(reduction: ReductionPlan) -> list[tuple[ActStatus, str]]:
    return [(r.status, r.reason) for r in reduction.results]


def commands(reduction: ReductionPlan) -> list[tuple[str, str, dict[str, object]]]:
    return [(c.case_id, c.name, c.args) for b in reduction.batches for c in b.commands]
