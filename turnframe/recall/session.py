"""The session actor's side of recall: the memory stored with the session, one call per turn.

The session's stored thread context is a JSON object; recall keeps its memory under
``"recall"`` and the session's other keys (``"fork_of"`` for a fork) are carried forward
untouched whenever the actor writes the context back.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from turnframe.messages import UserTurn
from turnframe.plan import RecallAct, UserTurnPlan
from turnframe.recall.stage import Recall, RecallOutcome
from turnframe.recall.state import pending
from turnframe.recall.writer import index_session
from turnframe.results import ReductionPlan
from turnframe.stores.errors import StoreError
from turnframe.stores.protocol import Store

logger = logging.getLogger("turnframe.recall")

#: Keys of the thread context the session actor writes itself.
_OWN = ("thread", "anaphora", "recall")
Ask = Callable[[Any, object], Awaitable[Any]]


@attrs.frozen(kw_only=True)
class SessionRecall:
    memory: Any = None  # the recall memory as stored (JSON)
    kept: dict[str, Any] = attrs.field(factory=dict)  # other keys of the context (fork_of)
    touched: bool = False  # a turn was delivered since the actor started: the entry is stale

    @classmethod
    def of(cls, stored: Any) -> SessionRecall:
        if not isinstance(stored, dict) or not ("thread" in stored or "anaphora" in stored):
            return cls()
        kept = {k: v for k, v in stored.items() if k not in _OWN}
        return cls(memory=stored.get("recall"), kept=kept)

    @property
    def pending(self) -> str | None:
        """What a recall in progress waits for; the interpreter is told."""
        return pending(self.memory)

    async def advance(
        self, ref: Any, ask: Ask, turn: UserTurn, plan: UserTurnPlan, reduction: ReductionPlan
    ) -> RecallOutcome:
        """The recall stage's pass over this turn: nothing when no recall stage runs, or when
        no recall is in progress and the turn asks for none (the stage would change nothing;
        the turn then costs no ask and shows no recall span)."""
        if self.idle(ref, plan):
            return RecallOutcome(memory=self.memory)
        message = Recall(turn=turn, plan=plan, reduction=reduction, memory=self.memory)
        outcome: RecallOutcome = await ask(ref, message)
        return outcome

    def idle(self, ref: Any, plan: UserTurnPlan) -> bool:
        """Whether :meth:`advance` has nothing to do for this turn (no stage, or no recall in
        progress and none asked for): its outcome is then known without asking anyone."""
        return ref is None or (self.pending is None and not _asks_recall(plan))

    def context(self, own: dict[str, Any], outcome: RecallOutcome) -> dict[str, Any]:
        """The thread context to store with the response: the actor's own keys, the recall
        memory after this turn, and every other key as it was."""
        context = {**self.kept, **own}
        if outcome.memory is not None:
            context["recall"] = outcome.memory
        return context

    def after(self, outcome: RecallOutcome) -> SessionRecall:
        return attrs.evolve(self, memory=outcome.memory, touched=True)

    async def index(self, store: Store, account_id: str, session_id: str) -> None:
        """Write the session's index entry as it stops (idle, or the runtime stopping). A store
        that fails now leaves the entry stale; the session is still found by its spine."""
        if not self.touched:
            return
        try:
            await index_session(store, account_id, session_id)
        except StoreError as error:
            logger.warning("recall index of session %s not written: %s", session_id, error)


def _asks_recall(plan: UserTurnPlan) -> bool:
    return any(isinstance(act, RecallAct) for act in plan.acts)


__all__ = ["SessionRecall"]
