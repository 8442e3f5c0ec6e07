"""What can go wrong while loading reviewed corpora: drop reasons and typed errors.

A line that fails a load gate is *dropped*, never silently: the loader returns a :class:`Drop`
naming the file, the line and the reason. Problems that stop a whole file from loading (missing
file, bad manifest, unknown pack) raise a :class:`CorpusError` instead.
"""

from __future__ import annotations

import enum

import attrs

from turnframe.errors import TurnframeError

# Stable drop codes: logs, tests and `turnframe corpus check` match on these.
MALFORMED_LINE = "turnframe.corpus.malformed_line"
MISSING_FIELD = "turnframe.corpus.missing_field"
UNKNOWN_INTENT = "turnframe.corpus.unknown_intent"
DUPLICATE_CHAIN_ID = "turnframe.corpus.duplicate_chain_id"
DUPLICATE_LEMMA = "turnframe.corpus.duplicate_lemma"
SELF_SUPERSESSION = "turnframe.corpus.self_supersession"
UNKNOWN_SUCCESSOR = "turnframe.corpus.unknown_successor"
UNKNOWN_RETIRED = "turnframe.corpus.unknown_retired_chain"
UNKNOWN_PACK = "turnframe.corpus.unknown_pack"
SUBJECT_NOT_IN_PACK = "turnframe.corpus.subject_not_in_pack"
OBJECT_NOT_IN_PACK = "turnframe.corpus.object_not_in_pack"
SUPERSEDED = "turnframe.corpus.superseded"


class DropKind(enum.Enum):
    """Why a line is not in the active view.

    ``malformed``: the line itself is wrong (JSON, fields, intent, duplicate id). ``gated``: the
    line is well formed but a load gate refused it (its subject or object is not in the bound
    pack). ``retired``: an append-only supersession record retired the chain; that is normal
    curation, so it is reported but is not a defect.
    """

    MALFORMED = "malformed"
    GATED = "gated"
    RETIRED = "retired"


@attrs.frozen(kw_only=True)
class Drop:
    """One line left out of the active view, and why."""

    source: str
    line: int
    code: str
    kind: DropKind
    reason: str

    @property
    def is_defect(self) -> bool:
        """Malformed and gated lines are defects; retired chains are not."""
        return self.kind is not DropKind.RETIRED

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason} [{self.code}]"


class CorpusError(TurnframeError):
    """A pack or teaching corpus cannot be loaded or registered at all."""

    code = "turnframe.corpus.error"


class CorpusFileError(CorpusError):
    """A corpus file or pack folder is missing or unreadable."""

    code = "turnframe.corpus.unreadable"


class MalformedManifestError(CorpusError):
    """A pack or corpus manifest is not the expected JSON object."""

    code = "turnframe.corpus.malformed_manifest"


class MalformedCorpusLineError(CorpusError):
    """Raised in strict mode for the first defective line; names the file, line and reason."""

    code = MALFORMED_LINE

    def __init__(self, drop: Drop) -> None:
        super().__init__(
            str(drop), hint="fix the line or drop strict mode to load the rest of the file"
        )
        self.drop = drop


class UnknownPackError(CorpusError):
    """A corpus is bound to a pack id that is not registered."""

    code = UNKNOWN_PACK


class MissingCorpusIdError(CorpusError):
    """In-memory chain records were registered without a corpus id."""

    code = "turnframe.corpus.missing_id"


class DuplicateCorpusError(CorpusError):
    """A pack or corpus id is registered twice with different content."""

    code = "turnframe.corpus.duplicate_id"
