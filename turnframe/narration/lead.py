"""An optional model-written lead sentence, checked against the deterministic blocks.

The deterministic blocks stay the authority: the lead only introduces them. It is accepted only
when it is one short sentence whose every number and every quoted phrase already appears in a
block's text, so a model cannot claim a value that no committed event or answer backs. A lead
that fails the check is dropped (and the attempt stays on record); narration never fails a turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from turnframe._hashing import digest
from turnframe.messages import UserTurn
from turnframe.narration.codes import TEXT_MODEL_LEAD
from turnframe.providers.base import ProviderRequest, Purpose
from turnframe.response import Block, BlockKind

LEAD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["lead"],
    "properties": {"lead": {"type": "string", "maxLength": 200}},
    "additionalProperties": False,
}
LEAD_SYSTEM = (
    "Write ONE short sentence that introduces the assistant's reply below. Restate nothing "
    'that is not in the reply; invent no values. Answer as JSON: {"lead": "..."}.'
)
LEAD_TEMPLATE_HASH = digest("prompt.template", {"narrate.lead": LEAD_SYSTEM})
MAX_LEAD = 200

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_QUOTED = re.compile(r"[“\"«]([^”\"»]+)[”\"»]")


def lead_request(turn: UserTurn, blocks: Sequence[Block]) -> ProviderRequest:
    reply = "\n".join(f"[{b.kind.value}] {b.text}" for b in blocks)
    return ProviderRequest.from_text(
        purpose=Purpose.NARRATE,
        turn_id=turn.turn_id,
        correlation_id=turn.turn_id,
        system=LEAD_SYSTEM,
        user=json.dumps({"user_said": turn.text, "reply": reply}, ensure_ascii=False),
        answer_schema=LEAD_SCHEMA,
        template_hash=LEAD_TEMPLATE_HASH,
    )


def accept_lead(answer: str, blocks: Sequence[Block]) -> str | None:
    """The lead sentence, or None when the answer is malformed or claims something new."""
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    if not isinstance(data, dict) or set(data) != {"lead"} or not isinstance(data["lead"], str):
        return None
    lead = " ".join(data["lead"].split())
    if not lead or len(lead) > MAX_LEAD or "\n" in data["lead"].strip():
        return None
    backed = " ".join(b.text for b in blocks)
    for number in _NUMBER.findall(lead):
        if number not in backed:
            return None
    for phrase in _QUOTED.findall(lead):
        if phrase not in backed:
            return None
    return lead


def lead_block(turn: UserTurn, lead: str, provider: str) -> Block:
    identity = {"account": turn.account_id, "turn": turn.turn_id, "lead": lead}
    return Block(
        block_id="blk_" + digest("response.block.lead", identity)[:32],
        kind=BlockKind.TEXT,
        code=TEXT_MODEL_LEAD,
        text=lead,
        data={"model_authored": True, "provider": provider},
    )
