"""The NarratorActor: ordered response blocks from results, committed events and answers.

The blocks are composed deterministically by :func:`turnframe.narration.compose_blocks`;
receipts come only from committed events. Narration executes nothing, so it may always be
retried, and a turn whose narration failed is narrated again from the store.
"""

from __future__ import annotations

from turnframe.actors.actor import Actor, handler
from turnframe.actors.stages import Narrate, Narration
from turnframe.narration import compose_blocks


class NarratorActor(Actor):
    @handler
    def narrate(self, message: Narrate) -> Narration:
        blocks = compose_blocks(
            turn=message.turn,
            plan=message.plan,
            reduction=message.reduction,
            execution=message.execution,
            cards=message.cards,
            answers=message.answers,
            failure=message.failure,
            cases=message.cases,
            answered=message.answered,
        )
        return Narration(blocks=tuple(blocks))
