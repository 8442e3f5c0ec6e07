"""The GroundingActor: answers a turn's questions from case state and reviewed corpora."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from turnframe.actors.actor import Actor, handler
from turnframe.actors.stages import Ground, Grounded
from turnframe.corpora import CorpusRegistry
from turnframe.grounding import ground, summarise_for_thread, supposed_acts
from turnframe.stores.directory import StoreCaseDirectory
from turnframe.stores.protocol import Store
from turnframe.workflow import CaseSnapshot, Workflow


class GroundingActor(Actor):
    stateless = True  # reads the store per message; keeps nothing between messages

    def __init__(
        self,
        *,
        store: Store,
        workflows: Mapping[str, Workflow[Any]],
        registry: CorpusRegistry | None,
        anaphora: bool = False,
    ) -> None:
        self._directory = StoreCaseDirectory(store, workflows)
        self._workflows = workflows
        self._registry = registry
        self._anaphora = anaphora

    @handler
    async def ground(self, message: Ground) -> Grounded:
        turn = message.turn
        answers = []
        for request in message.reduction.grounding:
            case: CaseSnapshot | None = None
            if request.case_id is not None:
                case = await self._directory.snapshot(turn.account_id, request.case_id)
            workflow = self._workflows.get(case.workflow) if case is not None else None
            if workflow is None and len(self._workflows) == 1:
                workflow = next(iter(self._workflows.values()))
            answers.append(
                ground(
                    request,
                    turn=turn,
                    workflow=workflow,
                    case=case,
                    registry=self._registry,
                    thread=message.thread,
                    anaphora=self._anaphora if message.anaphora is None else message.anaphora,
                    turn_index=message.turn_index,
                    supposed=supposed_acts(request, message.plan, message.reduction),
                )
            )
        summary = summarise_for_thread(message.turn_index, answers)
        return Grounded(answers=tuple(answers), summary=summary)
