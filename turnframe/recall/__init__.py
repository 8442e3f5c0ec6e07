"""Recall: vague references to earlier conversations, resolved by recognition (docs/recall.md).

A user says "what was that thing we settled about the pool last week?". The recall stage finds
candidate past sessions (the derived INDEX and each session's spine; every turn's full text only
once the user chooses), opens each candidate's own record for the words the cue reaches, and
presents those words with where they are and how to resume them. Only the user's own answer
makes them recalled context; silence never does. Recall commits no event, and recalled context
is never evidence for an act.

The names an adopter uses load on first use, so importing a pure submodule stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from turnframe.recall.codes import CURRENCY_CAVEAT, RECALL_CODES
    from turnframe.recall.preview import SearchResult, search
    from turnframe.recall.settings import RecallSettings
    from turnframe.recall.state import RecalledContext, recalled_contexts
    from turnframe.recall.writer import IndexReport, index_account, index_session

_LAZY = {
    "CURRENCY_CAVEAT": "turnframe.recall.codes",
    "RECALL_CODES": "turnframe.recall.codes",
    "RecallSettings": "turnframe.recall.settings",
    "RecalledContext": "turnframe.recall.state",
    "recalled_contexts": "turnframe.recall.state",
    "IndexReport": "turnframe.recall.writer",
    "index_account": "turnframe.recall.writer",
    "index_session": "turnframe.recall.writer",
    "SearchResult": "turnframe.recall.preview",
    "search": "turnframe.recall.preview",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'turnframe.recall' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "CURRENCY_CAVEAT",
    "RECALL_CODES",
    "IndexReport",
    "RecallSettings",
    "RecalledContext",
    "SearchResult",
    "index_account",
    "index_session",
    "recalled_contexts",
    "search",
]
