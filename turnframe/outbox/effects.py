"""How an external effect is written into an outbox row and read back as a send request.

A row's payload is ``{"channel": ..., "payload": ...}``: the channel picks the sender, the
payload is what the workflow's ``ExternalEffect`` said to send. The gate writes rows with
:func:`outbox_effect` inside the commit bundle; the dispatcher reads them with
:meth:`OutboundEffect.from_record`. The encoding lives here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from turnframe._hashing import digest
from turnframe.outbox.errors import MalformedEffect
from turnframe.stores.inputs import NewOutboxEffect
from turnframe.stores.records import Json, OutboxRecord
from turnframe.workflow import ExternalEffect


def encode_effect(effect: ExternalEffect) -> dict[str, Json]:
    """The outbox row payload for ``effect``."""
    return {"channel": effect.channel, "payload": dict(effect.payload)}


def effect_idempotency_key(command_key: str) -> str:
    """The outbox key of the effect of the command journaled under ``command_key``.

    Derived, never random: the same turn replayed derives the same key, so the receiver can
    dedupe on it across every re-send.
    """
    return digest("outbox.effect", {"command": command_key})


def outbox_effect(
    effect: ExternalEffect,
    *,
    idempotency_key: str,
    case_id: str | None = None,
    command_id: str | None = None,
) -> NewOutboxEffect:
    """The commit-bundle input that dispatches ``effect`` after the bundle commits."""
    return NewOutboxEffect(
        idempotency_key=idempotency_key,
        payload=encode_effect(effect),
        case_id=case_id,
        command_id=command_id,
    )


@attrs.frozen(kw_only=True)
class OutboundEffect:
    """One send of an external effect: what a sender receives.

    ``idempotency_key`` is the same on every send of the row; a receiver that dedupes on it
    performs the effect once. ``attempt`` counts claims of the row, 1 on the first send.
    """

    account_id: str
    effect_id: str
    idempotency_key: str
    channel: str
    payload: Mapping[str, Any]
    attempt: int
    turn_id: str
    case_id: str | None = None
    command_id: str | None = None

    @classmethod
    def from_record(cls, record: OutboxRecord) -> OutboundEffect:
        body = record.payload
        if not isinstance(body, dict):
            raise MalformedEffect(record.effect_id, "the payload is not an object")
        channel, payload = body.get("channel"), body.get("payload")
        if not isinstance(channel, str) or not channel:
            raise MalformedEffect(record.effect_id, "'channel' is missing or not a string")
        if not isinstance(payload, dict):
            raise MalformedEffect(record.effect_id, "'payload' is missing or not an object")
        return cls(
            account_id=record.account_id,
            effect_id=record.effect_id,
            idempotency_key=record.idempotency_key,
            channel=channel,
            payload=payload,
            attempt=record.attempts,
            turn_id=record.turn_id,
            case_id=record.case_id,
            command_id=record.command_id,
        )
