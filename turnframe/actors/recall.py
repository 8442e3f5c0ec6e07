"""The RecallActor: the recall protocol's stage (turnframe.recall), one turn at a time.

It reads the store (the index, the spines, the candidates' own records) and never writes:
what a turn changes in the protocol comes back to the session, which stores it with the
response. A crash here ends only the ask; the session retries the step from the state it
stored, so nothing of the protocol is lost or repeated.
"""

from __future__ import annotations

from turnframe.actors.actor import Actor, handler
from turnframe.recall.settings import RecallSettings
from turnframe.recall.stage import Recall, RecallOutcome, RecallStage
from turnframe.stores.protocol import Store


class RecallActor(Actor):
    stateless = True  # reads the store per message; keeps nothing between messages (ADR 0013)

    def __init__(self, *, store: Store, settings: RecallSettings, store_location: str) -> None:
        self._stage = RecallStage(store, settings, store_location=store_location)

    @handler
    async def advance(self, message: Recall) -> RecallOutcome:
        return await self._stage.advance(message)
