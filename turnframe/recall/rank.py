"""Rank: ordering only. It decides which candidate Ground opens first, never which one exists.

Every candidate keeps its place in the list; the order comes from how well each matches the
cue, in this priority:

1. the track's own signal: on the entropy track the identifiers it anchors (each weighted by
   its precision, 1 / (1 + other sessions holding it), and only where the identifier's
   namespace authorizes the cue's claim kind); on the salience track the cue words it shares
   (words from the user's own turns and the entry count fully, words only in later turns or
   replies less), associations and coinages double, and a session inside the cue's time
   window gains; the hybrid track adds both;
2. the other track's signal;
3. the evidence mode of what matched (user_constituted > attested > observed > inferred; a
   candidate without one is neutral, between observed and inferred);
4. recency (the newer first; unknown is neutral);
5. the session id, so equal candidates keep one order.

An unknown recency sorts as the median of the known ones: neither rewarded nor penalised.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from turnframe.recall.cue import RecallTrace, Track
from turnframe.recall.find import Candidate
from turnframe.recall.identifiers import authorizes
from turnframe.recall.temporal import Window
from turnframe.recall.words import words
from turnframe.stores.recall import HitSource

NEUTRAL_TIER = 1.5
_FULL = (HitSource.INDEX, HitSource.SPINE, HitSource.IDENTIFIER)


@attrs.frozen(kw_only=True)
class Ranked:
    candidate: Candidate
    entropy: float
    salience: float
    primary: float


def entropy_signal(candidate: Candidate, trace: RecallTrace) -> float:
    namespaces = {i.literal: i.namespace for i in trace.identifiers}
    return sum(
        m.precision * (1.0 if m.exact else 0.5)
        for m in candidate.identifiers
        if authorizes(m.namespace, namespaces.get(m.literal, m.namespace))
    )


def salience_signal(candidate: Candidate, trace: RecallTrace, window: Window | None) -> float:
    strong = {w for a in trace.associations for w in words(a)}
    marked = {
        w for item in (*candidate.markers.coinage, *candidate.markers.actor) for w in words(item)
    }
    full = any(s in _FULL for s in candidate.sources)
    identifier_words = {w for i in trace.identifiers for w in i.surface}
    score = 0.0
    for term in candidate.matched_terms:
        if term in identifier_words:
            continue  # counted on the entropy track
        weight = 1.0 if full else 0.6
        if term in strong or term in marked:
            weight *= 2
        score += weight
    if window is not None and candidate.recency is not None and window.holds(candidate.recency):
        score += 0.75
    return score


def rank(
    candidates: Sequence[Candidate], trace: RecallTrace, track: Track, window: Window | None
) -> list[Ranked]:
    ranked = []
    for c in candidates:
        entropy = entropy_signal(c, trace)
        salience = salience_signal(c, trace, window)
        primary = {
            Track.ENTROPY: entropy,
            Track.SALIENCE: salience,
            Track.HYBRID: entropy + salience,
        }[track]
        ranked.append(Ranked(candidate=c, entropy=entropy, salience=salience, primary=primary))

    known = sorted(c.recency.timestamp() for c in candidates if c.recency is not None)
    neutral = known[len(known) // 2] if known else 0.0

    def key(r: Ranked) -> tuple[float, float, float, float, str]:
        secondary = r.salience if track is Track.ENTROPY else r.entropy
        mode = r.candidate.evidence_mode
        tier = mode.tier if mode is not None else NEUTRAL_TIER
        when = _timestamp(r.candidate.recency, neutral)
        return (-r.primary, -secondary, -tier, -when, r.candidate.session_id)

    return sorted(ranked, key=key)


def _timestamp(when: datetime | None, neutral: float) -> float:
    return when.timestamp() if when is not None else neutral


__all__ = ["NEUTRAL_TIER", "Ranked", "entropy_signal", "rank", "salience_signal"]
