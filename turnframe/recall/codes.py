"""The recall stage's stable block codes (``turnframe chat --json`` shows them; docs/recall.md).

Every recall block carries exactly one of these, whatever its wording.
"""

from __future__ import annotations

#: Grounded candidates shown for the user to recognise; the turn waits for their answer.
RECALL_PRESENTED = "turnframe.recall.presented"
#: The user recognised the presented candidate: the recalled context, with the currency caveat.
RECALL_IDENTIFIED = "turnframe.recall.identified"
#: The user moved on (or said to drop it): nothing was recalled.
RECALL_WITHDRAWN = "turnframe.recall.withdrawn"
#: The first search found nothing: one open question for what else the user remembers.
RECALL_ASK = "turnframe.recall.ask"
#: Nothing found after a round trip: a card offering to search every turn's full text.
RECALL_EXPAND = "turnframe.recall.expand"
#: Nothing found, and nothing left to widen: no recall.
RECALL_NULL_MATCH = "turnframe.recall.null_match"
#: The tries are spent: the closest grounded candidate, named, with no identification claimed.
RECALL_EXHAUSTED = "turnframe.recall.exhausted"
#: The user named the session outright (its id): its opening and handle, no protocol started.
RECALL_RELAYED = "turnframe.recall.relayed"
#: A recall that gives nothing to look for (no words of its own, none bound from the previous
#: message): no recall starts, or the one in progress still waits where it stood. Never an
#: identification, never a correction.
RECALL_NO_CUE = "turnframe.recall.no_cue"

RECALL_CODES: frozenset[str] = frozenset(
    value for name, value in dict(globals()).items() if name.startswith("RECALL_")
)

#: The words every recalled context carries: recall establishes identity, not current truth.
CURRENCY_CAVEAT = "Recall shows that this was discussed, not that it still holds."
