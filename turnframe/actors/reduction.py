"""The ReducerActor: the pure whole-turn reducer behind a mailbox."""

from __future__ import annotations

from turnframe.actors.actor import Actor, handler
from turnframe.actors.stages import Reduce
from turnframe.reduce import reduce
from turnframe.results import ReductionPlan


class ReducerActor(Actor):
    stateless = True  # a pure function behind a mailbox

    @handler
    def reduce(self, message: Reduce) -> ReductionPlan:
        return reduce(message.plan, message.context)
