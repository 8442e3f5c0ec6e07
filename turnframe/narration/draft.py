"""A block before it has its place: what it says and which acts it covers.

The composer sorts drafts into the turn's order and gives each a deterministic id. A draft's
``refs`` are act references: acts of this turn's plan go into ``Block.acts``, pending acts of an
answered card into ``data["pending_acts"]``. ``at`` places a draft that covers no act of the plan
(``-2`` failures, ``-1`` the answered card's outcome, ``k - 0.5`` a span between acts).
"""

from __future__ import annotations

from typing import Any

import attrs

from turnframe.response import BlockKind
from turnframe.results import ActRef


@attrs.frozen(kw_only=True)
class Draft:
    kind: BlockKind
    code: str
    text: str
    refs: tuple[ActRef, ...] = ()
    data: dict[str, Any] = attrs.field(factory=dict)
    at: float = -1.0

    @property
    def position(self) -> float:
        own = [r.index for r in self.refs if r.interaction_id is None]
        return float(min(own)) if own else self.at


def sentence(text: str) -> str:
    """``text`` ending with a full stop unless it already ends a sentence."""
    text = text.strip()
    return text if text[-1:] in (".", "!", "?") else text + "."
