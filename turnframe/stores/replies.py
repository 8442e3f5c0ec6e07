"""A turn's reply inside its commit bundle (ADR 0022): composed in the transaction, never at
the cost of the bundle.

Both stores call :func:`compose` after the bundle's phase move and, when it gives a reply,
write it with the move ``committed`` → ``delivered`` inside a savepoint: a reply that cannot be
composed or written is left out, the bundle still commits, and the caller stores the reply
afterwards (``save_assistant_turn``), as it would after a crash between the two.
"""

from __future__ import annotations

import logging

from turnframe.lifecycle import TurnPhase
from turnframe.stores.inputs import BundleReply, CommitBundle, PhaseMove
from turnframe.stores.records import BundleReceipt

logger = logging.getLogger("turnframe.store")

#: The move the reply makes, after the bundle's own move to ``committed``.
DELIVER = PhaseMove(expected=TurnPhase.COMMITTED, new=TurnPhase.DELIVERED)


def compose(bundle: CommitBundle, receipt: BundleReceipt) -> BundleReply | None:
    """The bundle's reply, or None: none asked for, the bundle does not end ``committed``, or
    composing it failed (logged; the caller composes again outside and sees the error)."""
    if bundle.reply is None or bundle.phase is None:
        return None
    if bundle.phase.new is not TurnPhase.COMMITTED:
        return None
    try:
        return bundle.reply(receipt)
    except Exception as error:
        logger.warning(
            "turn %r: the reply was not composed in its commit bundle (stored after): %s",
            bundle.turn_id,
            error,
        )
        return None


def left_out(bundle: CommitBundle, error: Exception) -> None:
    logger.warning(
        "turn %r: the reply could not be written with its commit bundle (stored after): %s",
        bundle.turn_id,
        error,
    )


__all__ = ["DELIVER", "compose", "left_out"]
