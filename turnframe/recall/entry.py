"""One INDEX entry per session: derived from the stored turns, a cue for finding, never evidence.

The stored turns are the single source of truth (the user's words verbatim, the replies). An
entry is rebuilt from them at any time (``turnframe recall index``); when it is stale or
missing the session is still found by its spine or by full text, so nothing depends on it being
current. Its ``gist`` in particular is prose the writer composed: it helps find a session and is
never shown as what was said.

Evidence modes rank what stands behind a signal, by how the signal was produced (never judged
by a model): ``user_constituted`` (the user's own words) > ``attested`` (asserted by the system
with a verbatim witness: committed events and their receipts) > ``observed`` (mechanically
present: metadata, reply text) > ``inferred`` (composed by the writer: topic, gist). A signal
without a mode is neutral.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

import attrs
import cattrs

from turnframe._converter import converter
from turnframe.recall.salience import MarkerProfile

#: Bumped when the writer derives entries differently; older entries are rewritten by
#: ``turnframe recall index``. 2: recall turns and recall blocks are left out of every signal.
WRITER_VERSION = 2


class EvidenceMode(enum.StrEnum):
    USER_CONSTITUTED = "user_constituted"
    ATTESTED = "attested"
    OBSERVED = "observed"
    INFERRED = "inferred"

    @property
    def tier(self) -> int:
        """Higher stands more firmly: user_constituted 4 … inferred 1."""
        return _TIERS[self]


_TIERS = {
    EvidenceMode.USER_CONSTITUTED: 4,
    EvidenceMode.ATTESTED: 3,
    EvidenceMode.OBSERVED: 2,
    EvidenceMode.INFERRED: 1,
}


def strongest(modes: list[EvidenceMode | None]) -> EvidenceMode | None:
    present = [m for m in modes if m is not None]
    return max(present, key=lambda m: m.tier) if present else None


@attrs.frozen(kw_only=True)
class IdentifierTuple:
    """An entropy-track anchor: the canonical literal, where it was read (``source``: a turn
    locator), the extractor's namespace, and its precision when the entry was written
    (1 / (1 + sessions elsewhere in the store holding the same literal))."""

    literal: str
    source: str
    source_namespace: str
    precision: float
    evidence_mode: EvidenceMode


class AnchorChannel(enum.StrEnum):
    USER = "user"
    TRANSCRIPT = "transcript"


@attrs.frozen(kw_only=True)
class StructuredAnchor:
    """A cross-reference: what kind (``memory``, ``github_issue``, ``github_pr``, ``session``,
    ``url``), the canonical ref, and the channel it was read from (the user's own words win
    over the transcript when both hold it). An annotation, never authoritative by form."""

    kind: str
    ref: str
    channel: AnchorChannel


@attrs.frozen(kw_only=True)
class SourceScan:
    """How completely the record reached the writer: turns whose text could not be read,
    user turns the runtime never cross-checked (no interpretation recorded), and characters a
    bounded extraction left out of a long session. Any non-zero count: the entry was built
    from less than its whole source, and a recall of it says so."""

    skipped_lines: int = 0
    unverified_user_turns: int = 0
    omitted_chars: int = 0

    @property
    def partial(self) -> bool:
        return bool(self.skipped_lines or self.unverified_user_turns or self.omitted_chars)


@attrs.frozen(kw_only=True)
class Scope:
    workflow: str
    account_id: str
    case_ids: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class IndexEntry:
    session_id: str
    topic: str
    keywords: tuple[str, ...]
    gist: str
    identifiers: tuple[IdentifierTuple, ...]
    markers: MarkerProfile
    cross_refs: tuple[StructuredAnchor, ...]
    #: Coinages a user turn of the record marks settled ("let's go with Bluebird").
    settled: tuple[str, ...]
    #: The evidence mode of every signal term (keywords, identifiers, markers, topic words).
    signals: dict[str, EvidenceMode]
    source_scan: SourceScan
    started_at: datetime | None
    recency: datetime | None  # the record's last activity
    scope: Scope
    fork_marker: bool = False
    parent_pointer: str | None = None
    turn_count: int = 0
    indexed_through: str | None = None  # the last turn the entry covers
    #: Turns in which the user was recalling another conversation: they ask about the past,
    #: they are not it, so the entry is derived without them.
    recall_turns: tuple[str, ...] = ()
    writer_version: int = WRITER_VERSION

    def mode_of(self, term: str) -> EvidenceMode | None:
        return self.signals.get(term)


def entry_json(entry: IndexEntry) -> dict[str, Any]:
    data: dict[str, Any] = converter.unstructure(entry)
    return data


def entry_from_json(data: Any) -> IndexEntry | None:
    """The stored entry, or None when it cannot be read (derived data: a bad entry is as good
    as a missing one, and the session is still found by its spine)."""
    try:
        entry: IndexEntry = converter.structure(data, IndexEntry)
    except (cattrs.BaseValidationError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return entry


__all__ = [
    "WRITER_VERSION",
    "AnchorChannel",
    "EvidenceMode",
    "IdentifierTuple",
    "IndexEntry",
    "Scope",
    "SourceScan",
    "StructuredAnchor",
    "entry_from_json",
    "entry_json",
    "strongest",
]
