"""Shared names for the outbox tests: accounts, the lease, and committing outbox rows through a
commit bundle exactly as the gate commits them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any, Protocol

from turnframe.lifecycle import TurnPhase
from turnframe.outbox import OutboxDispatcher, effect_idempotency_key, outbox_effect
from turnframe.stores import CommitBundle, NewOutboxEffect, OutboxRecord, PhaseMove, Store
from turnframe.workflow import ExternalEffect

ACCOUNT = "acct-outbox"
OTHER = "acct-other"
LEASE = timedelta(seconds=60)

_TO_EXECUTING = [
    (TurnPhase.RECEIVED, TurnPhase.INTERPRETED),
    (TurnPhase.INTERPRETED, TurnPhase.REDUCED),
    (TurnPhase.REDUCED, TurnPhase.EXECUTING),
]


class CommitEffects(Protocol):
    def __call__(
        self, *commands: str, channel: str = "refunds", account: str = ACCOUNT
    ) -> Awaitable[list[OutboxRecord]]: ...


MakeDispatcher = Callable[..., OutboxDispatcher]


async def commit_outbox_rows(
    store: Store, rows: Sequence[NewOutboxEffect], *, account: str
) -> list[OutboxRecord]:
    """One turn, walked to ``executing``, whose commit bundle writes ``rows`` as the gate does."""
    session = await store.create_session(account_id=account, workflow="refund-desk")
    turn = await store.record_user_turn(
        account_id=account, session_id=session.session_id, payload={"text": "refund it"}
    )
    for before, after in _TO_EXECUTING:
        await store.advance_phase(account, turn.turn_id, before, after)
    receipt = await store.commit_bundle(
        CommitBundle(
            account_id=account,
            turn_id=turn.turn_id,
            outbox=rows,
            phase=PhaseMove(expected=TurnPhase.EXECUTING, new=TurnPhase.COMMITTED),
        )
    )
    return list(receipt.outbox)


async def commit_turn_with_effects(
    store: Store, commands: tuple[str, ...], *, channel: str, account: str
) -> list[OutboxRecord]:
    """One refund effect per command, written with ``outbox_effect`` as the gate writes it."""
    effects = [
        outbox_effect(
            ExternalEffect(channel=channel, payload={"order": command, "amount_cents": 1250}),
            idempotency_key=effect_idempotency_key(command),
            command_id=command,
        )
        for command in commands
    ]
    return await commit_outbox_rows(store, effects, account=account)


async def reload(store: Store, record: OutboxRecord) -> OutboxRecord:
    found = await store.get_outbox(record.account_id, record.effect_id)
    assert found is not None
    return found


def outcome_of(record: OutboxRecord) -> dict[str, Any]:
    """The row's recorded outcome (it must have one)."""
    assert isinstance(record.outcome, dict)
    return record.outcome
