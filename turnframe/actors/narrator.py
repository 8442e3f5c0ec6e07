"""The NarratorActor: ordered response blocks from results, committed events and answers.

The blocks are composed deterministically by :func:`turnframe.narration.compose_blocks`;
receipts come only from committed events. With a narration provider, a checked one-sentence
lead may be put before them (:mod:`turnframe.narration.lead`). Narration executes nothing, so
it may always be retried; when every narration provider fails, the deterministic blocks are the
answer and the attempts stay on record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from turnframe.actors.actor import Actor, handler
from turnframe.actors.ref import ActorRef
from turnframe.actors.stages import MayRetry, Narrate, Narration
from turnframe.narration import compose_blocks
from turnframe.narration.lead import accept_lead, lead_block, lead_request
from turnframe.providers.base import Purpose
from turnframe.providers.chain import ProviderChain
from turnframe.providers.errors import ChainError
from turnframe.response import Block
from turnframe.workflow import Workflow


class _NarrationGate:
    def __init__(self, gate: ActorRef, account_id: str) -> None:
        self._gate = gate
        self._account_id = account_id

    async def may_retry(self, turn_id: str, purpose: Purpose) -> bool:
        message = MayRetry(account_id=self._account_id, turn_id=turn_id, purpose=purpose)
        allowed: bool = await self._gate.ask(message, timeout=10.0)
        return allowed


class NarratorActor(Actor):
    stateless = True  # composes from its message alone

    def __init__(
        self,
        *,
        chain: ProviderChain | None = None,
        gate: ActorRef | None = None,
        workflows: Mapping[str, Workflow[Any]] | None = None,
    ) -> None:
        self._chain = chain
        self._gate = gate
        self._describers = {
            name: w.describe_event
            for name, w in (workflows or {}).items()
            if w.describe_event is not None
        }

    @property
    def templated(self) -> bool:
        """Whether narration is the deterministic blocks alone (no lead from a provider): then
        :meth:`compose` is the whole of it, pure, and may run inside the commit bundle."""
        return self._chain is None or self._gate is None

    def compose(self, message: Narrate) -> Narration:
        """The deterministic blocks, synchronously (what :meth:`narrate` answers without a
        narration provider)."""
        return Narration(blocks=tuple(self._blocks(message)))

    @handler
    async def narrate(self, message: Narrate) -> Narration:
        blocks = self._blocks(message)
        if self._chain is None or self._gate is None or not blocks:
            return Narration(blocks=tuple(blocks))
        turn = message.turn
        gate = _NarrationGate(self._gate, turn.account_id)
        try:
            answer = await self._chain.complete(lead_request(turn, blocks), gate=gate)
        except ChainError as error:
            return Narration(blocks=tuple(blocks), attempts=tuple(error.attempts))
        lead = accept_lead(answer.text, blocks)
        if lead is None:
            return Narration(blocks=tuple(blocks), attempts=tuple(answer.attempts))
        led = (lead_block(turn, lead, answer.provider), *blocks)
        return Narration(blocks=led, attempts=tuple(answer.attempts))

    def _blocks(self, message: Narrate) -> tuple[Block, ...]:
        return compose_blocks(
            turn=message.turn,
            plan=message.plan,
            reduction=message.reduction,
            execution=message.execution,
            cards=message.cards,
            answers=message.answers,
            failure=message.failure,
            cases=message.cases,
            answered=message.answered,
            describers=self._describers,
            recall=message.recall,
        )

