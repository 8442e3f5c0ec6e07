"""The pure half of the NarratorActor: ordered response blocks from what the turn decided and did.

::

    blocks = compose_blocks(turn=turn, plan=plan, reduction=reduction, execution=report,
                            cards=persisted_cards, answers=answers, cases=snapshots)

Receipts come only from committed events; every act is rendered by some block (receipt,
notice, card, answer or text); cards only for interactions actually persisted; texts are fixed
templates; the same inputs give the same blocks byte for byte. Codes: :mod:`.codes`.
"""

from __future__ import annotations

from turnframe.narration.acts import CHITCHAT_REPLY
from turnframe.narration.compose import compose_blocks
from turnframe.narration.coverage import unbacked_receipts, uncovered_acts
from turnframe.narration.failure import NarrationError, TurnFailure, TurnFailureKind

__all__ = [
    "CHITCHAT_REPLY",
    "NarrationError",
    "TurnFailure",
    "TurnFailureKind",
    "compose_blocks",
    "unbacked_receipts",
    "uncovered_acts",
]
