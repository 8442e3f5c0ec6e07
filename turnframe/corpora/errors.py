"""What can go wrong while loading reviewed corpora: line reports and typed errors.

Nothing is left out silently: for every line that is skipped, overridden by a later line, retired
by a supersession, or whose retirement names no chain, the loader returns a :class:`Drop` naming
the file, the line and the reason. Only problems that stop a whole file from loading (missing
file, bad manifest, unknown pack) raise a :class:`CorpusError`.
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
UNKNOWN_RETIRED = "turnframe.corpus.unknown_retired_chain"
INVALID_FIELD = "turnframe.corpus.invalid_field"
UNKNOWN_PACK = "turnframe.corpus.unknown_pack"
SUBJECT_NOT_IN_PACK = "turnframe.corpus.subject_not_in_pack"
OBJECT_NOT_IN_PACK = "turnframe.corpus.object_not_in_pack"
SUPERSEDED = "turnframe.corpus.superseded"


class DropKind(enum.Enum):
    """What happened to a reported line.

    Defects (the line is left out, and an author should look at it):

    - ``malformed``: the line itself is wrong (not JSON, a missing or invalid field), or its
      retirement claim names no chain of the corpus;
    - ``gated``: the line is well formed but a load gate refused it (its subject or object is
      not in its pack).

    Normal curation (reported, not a defect):

    - ``unsupported``: a well-formed line of a kind this engine does not compose (an intent
      other than cause and verification); the rest of the file loads;
    - ``overridden``: a later line with the same lemma (lexicon) or chain id replaces it;
    - ``retired``: a later line names its chain in ``superseded_by``.
    """

    MALFORMED = "malformed"
    GATED = "gated"
    UNSUPPORTED = "unsupported"
    OVERRIDDEN = "overridden"
    RETIRED = "retired"


@attrs.frozen(kw_only=True)
class Drop:
    """One reported line: what happened to it (``kind``, ``code``) and why (``reason``)."""

    source: str
    line: int
    code: str
    kind: DropKind
    reason: str

    @property
    def is_defect(self) -> bool:
        """Malformed and gated lines are defects; skipped, overridden and retired ones are not."""
        return self.kind in _DEFECTS

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason} [{self.code}]"


_DEFECTS = frozenset({DropKind.MALFORMED, DropKind.GATED})


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
