"""Find (Phase 1): candidate sessions from the INDEX and the record spines, bodies on election.

The cue becomes one store query: every content word and association (with its plural or
singular), every identifier's canonical literal, and the words an identifier was written with
(so a session never indexed is still reached through its spine: "PR 309" in a first turn holds
the word ``309``). The store answers at ``spine`` scope (entries, identifiers, first user turns)
until the user elects full text. Each hit becomes a :class:`Candidate` carrying what its entry
says (when it has one) and what it matched; the current session and the candidates the user
already turned down are never among them, and neither are recall turns or recall replies (the
stores leave them out of the words a cue can reach: they ask about the past, they are not it).
Nothing here is evidence: a candidate only says where to look.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from turnframe.recall.cue import CueIdentifier, VagueRecall
from turnframe.recall.entry import (
    EvidenceMode,
    IndexEntry,
    SourceScan,
    StructuredAnchor,
    entry_from_json,
    strongest,
)
from turnframe.recall.salience import MarkerProfile
from turnframe.recall.words import STOPWORDS, variants, words
from turnframe.stores.protocol import Store
from turnframe.stores.recall import HitSource, RecallHit, RecallQuery, RecallScope, RecallTerm

KEYWORD_WEIGHT = 1
ASSOCIATION_WEIGHT = 2
IDENTIFIER_WORD_WEIGHT = 2
IDENTIFIER_WEIGHT = 4
FIND_LIMIT = 16


@attrs.frozen(kw_only=True)
class IdentifierMatch:
    literal: str
    namespace: str
    precision: float  # 1 / (1 + other sessions holding it), counted when Find ran
    exact: bool  # matched by the canonical literal (an entry), not only by its words


@attrs.frozen(kw_only=True)
class Candidate:
    """A session Find reached: enough to order, never to assert (no excerpt yet)."""

    session_id: str
    record: str | None  # the session whose record Ground opens; None when it is gone
    recency: datetime | None
    started_at: datetime | None
    workflow: str | None
    topic: str = ""
    keywords: tuple[str, ...] = ()
    fingerprint: str = ""  # the INDEX gist: a cue, never evidence
    cross_refs: tuple[StructuredAnchor, ...] = ()
    markers: MarkerProfile = attrs.field(factory=MarkerProfile)
    settled: tuple[str, ...] = ()  # coinages its record marks settled
    identifier_literals: tuple[str, ...] = ()  # every identifier its entry holds
    case_ids: tuple[str, ...] = ()
    evidence_mode: EvidenceMode | None = None
    source_scan: SourceScan | None = None
    fork_marker: bool = False
    parent_pointer: str | None = None
    indexed: bool = False  # whether an (readable) index entry stood behind it
    matched_terms: tuple[str, ...] = ()
    identifiers: tuple[IdentifierMatch, ...] = ()
    sources: tuple[HitSource, ...] = ()
    turn_ids: tuple[str, ...] = ()  # the turns whose text matched (where Ground looks first)


@attrs.frozen(kw_only=True)
class Found:
    candidates: tuple[Candidate, ...]
    scope: RecallScope
    sessions: int | None  # the account's sessions: the coverage searched (None: not counted)
    indexed: int | None  # of which have an index entry


def query_terms(recall: VagueRecall) -> tuple[list[str], list[RecallTerm]]:
    """The cue's words (as shown to the ranker) and the store terms they become."""
    trace = recall.trace
    shown: list[str] = []
    terms: list[RecallTerm] = []

    def add(word: str, weight: int) -> None:
        if word in shown or (word in STOPWORDS and not word.isdigit()):
            return
        shown.append(word)
        terms.append(RecallTerm(forms=variants(word), weight=weight))

    for identifier in trace.identifiers:
        for word in identifier.surface:
            add(word, IDENTIFIER_WORD_WEIGHT)
    for association in trace.associations:
        for word in words(association):
            add(word, ASSOCIATION_WEIGHT)
    for word in trace.keywords:
        add(word, KEYWORD_WEIGHT)
    return shown, terms


async def find(
    store: Store,
    account_id: str,
    recall: VagueRecall,
    *,
    scope: RecallScope,
    exclude: Sequence[str] = (),
    limit: int = FIND_LIMIT,
    coverage: bool = False,
) -> Found:
    shown, terms = query_terms(recall)
    literals = [i.literal for i in recall.trace.identifiers]
    query = RecallQuery(
        terms=tuple(terms),
        identifiers=tuple(literals),
        identifier_weight=IDENTIFIER_WEIGHT,
        scope=scope,
        exclude_sessions=tuple(exclude),
        limit=limit,
        coverage=coverage,
    )
    result = await store.find_recall(account_id, query)
    hits = [h for h in result.hits if h.session_id not in query.exclude_sessions]
    if not hits:
        return Found(candidates=(), scope=scope, sessions=result.sessions, indexed=result.indexed)
    holding: dict[str, int] = {}
    if literals:
        counts = await store.count_recall_terms(account_id, identifiers=literals)
        holding = counts.identifiers
    stored = await store.get_recall_entries(account_id, [h.session_id for h in hits])
    entries = {r.session_id: entry_from_json(r.entry) for r in stored}
    candidates = [
        _candidate(hit, entries.get(hit.session_id), shown, recall.trace.identifiers, holding)
        for hit in hits
    ]
    return Found(
        candidates=tuple(candidates), scope=scope, sessions=result.sessions, indexed=result.indexed
    )


def _candidate(
    hit: RecallHit,
    entry: IndexEntry | None,
    shown: list[str],
    cue_identifiers: Sequence[CueIdentifier],
    holding: dict[str, int],
) -> Candidate:
    matched_terms = tuple(shown[i] for i in hit.terms if i < len(shown))
    exact = set(hit.identifiers)
    matches = []
    for identifier in cue_identifiers:
        # Its words alone (say "309") anchor only a session no entry speaks for: an entry that
        # does not hold the literal read those words as something else (order 309, a price).
        by_words = (
            entry is None
            and bool(identifier.surface)
            and all(w in matched_terms for w in identifier.surface)
        )
        if identifier.literal in exact or by_words:
            others = max(0, holding.get(identifier.literal, 0) - 1)
            matches.append(
                IdentifierMatch(
                    literal=identifier.literal,
                    namespace=identifier.namespace,
                    precision=1.0 / (1 + others),
                    exact=identifier.literal in exact,
                )
            )
    modes: list[EvidenceMode | None] = []
    if entry is not None:
        modes = [entry.mode_of(t) for t in matched_terms] + [
            entry.mode_of(m.literal) for m in matches
        ]
    if HitSource.SPINE in hit.sources or HitSource.BODY in hit.sources:
        modes.append(EvidenceMode.USER_CONSTITUTED)
    if HitSource.REPLY in hit.sources:
        modes.append(EvidenceMode.OBSERVED)
    return Candidate(
        session_id=hit.session_id,
        record=hit.session_id if hit.workflow is not None else None,
        recency=entry.recency if entry is not None else hit.last_active,
        started_at=entry.started_at if entry is not None else hit.started_at,
        workflow=hit.workflow or (entry.scope.workflow if entry is not None else None),
        topic=entry.topic if entry is not None else "",
        keywords=entry.keywords if entry is not None else (),
        fingerprint=entry.gist if entry is not None else "",
        cross_refs=entry.cross_refs if entry is not None else (),
        markers=entry.markers if entry is not None else MarkerProfile(),
        settled=entry.settled if entry is not None else (),
        identifier_literals=(
            tuple(i.literal for i in entry.identifiers) if entry is not None else ()
        ),
        case_ids=entry.scope.case_ids if entry is not None else (),
        evidence_mode=strongest(modes),
        source_scan=entry.source_scan if entry is not None else None,
        fork_marker=entry.fork_marker if entry is not None else False,
        parent_pointer=entry.parent_pointer if entry is not None else None,
        indexed=entry is not None,
        matched_terms=matched_terms,
        identifiers=tuple(matches),
        sources=hit.sources,
        turn_ids=hit.turn_ids,
    )


__all__ = ["Candidate", "Found", "IdentifierMatch", "find", "query_terms"]
