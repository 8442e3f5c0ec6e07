"""``search``: the ranked candidates for a cue, grounded, without starting the protocol.

What ``turnframe recall search "cue"`` prints: Find, Rank and Ground exactly as the protocol
runs them (so the same cue finds the same sessions), every candidate grounded in its own
record; nothing is presented, asked or remembered, and no session's state changes.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from turnframe.clock import Clock, SystemClock
from turnframe.recall.cue import cue, input_type, track_of
from turnframe.recall.find import find, query_terms
from turnframe.recall.ground import Handles, ground
from turnframe.recall.rank import rank
from turnframe.recall.temporal import window
from turnframe.stores.protocol import Store
from turnframe.stores.recall import RecallScope


@attrs.frozen(kw_only=True)
class SearchHit:
    session_id: str
    turn_id: str | None
    excerpt: str
    resume: str | None
    locator: str
    started_at: datetime | None
    score: float
    matched: tuple[str, ...]
    evidence_mode: str | None
    fork_of: str | None


@attrs.frozen(kw_only=True)
class SearchResult:
    cue: str
    track: str
    scope: RecallScope
    candidates: tuple[SearchHit, ...]
    dropped: tuple[str, ...]  # candidates whose record could not be opened
    sessions: int
    indexed: int


async def search(
    store: Store,
    account_id: str,
    text: str,
    *,
    full_text: bool = False,
    limit: int = 10,
    store_location: str = "turnframe.db",
    clock: Clock | None = None,
) -> SearchResult:
    recall = cue(text)
    track = track_of(input_type(recall.trace))
    scope = RecallScope.FULL_TEXT if full_text else RecallScope.SPINE
    found = await find(store, account_id, recall, scope=scope, limit=max(limit, 1), coverage=True)
    now = (clock or SystemClock()).now()
    ranked = rank(found.candidates, recall.trace, track, window(recall.trace.temporal, now))
    handles = Handles(store_location=store_location, account_id=account_id)
    cue_words, _ = query_terms(recall)
    hits: list[SearchHit] = []
    dropped: list[str] = []
    for r in ranked[:limit]:
        excerpt = await ground(store, account_id, r.candidate, cue_words, handles)
        if not excerpt.text:
            if not excerpt.recall_only:
                dropped.append(r.candidate.session_id)
            continue
        mode = r.candidate.evidence_mode
        hits.append(
            SearchHit(
                session_id=excerpt.session_id,
                turn_id=excerpt.turn_id,
                excerpt=excerpt.text,
                resume=excerpt.handle,
                locator=excerpt.locator,
                started_at=excerpt.started_at,
                score=round(r.primary, 3),
                matched=r.candidate.matched_terms,
                evidence_mode=mode.value if mode is not None else None,
                fork_of=excerpt.fork_of,
            )
        )
    return SearchResult(
        cue=text,
        track=track.value,
        scope=scope,
        candidates=tuple(hits),
        dropped=tuple(dropped),
        sessions=found.sessions or 0,
        indexed=found.indexed or 0,
    )


__all__ = ["SearchHit", "SearchResult", "search"]
