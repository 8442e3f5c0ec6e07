"""Above session scope: candidates joined into lines, topics and concepts by explicit edge rules.

The seed leaves the edge rules open; ours are these (ADR 0017, docs/recall.md). Each rule reads
only what a candidate carries (its scope, times, anchors, topic, keywords, coinages), so an edge
is inferred at read time and recorded with the words it rests on:

- **succession** (a line): two sessions of the same workflow that share an anchor (an
  identifier, a case, or one naming the other's session id), the later one starting within
  :data:`SUCCESSION_DAYS` of the earlier one's last activity. Members in time order.
- **topic**: two sessions with the same topic, or at least :data:`TOPIC_SHARED` keywords in
  common. Members in rank order.
- **concept**: two sessions sharing a coinage that at least one of them marks settled. Members
  from the one that forged it (the earliest) to the one that settled it.

Joining grows from the best-ranked candidate (every candidate an edge reaches from it joins),
then from the best one left, and so on. A recognizable of one member is at session scope. An
anchor naming a session that is not on record (or a ``memory/`` note, which recall never
scans) is a *skipped link*: recorded, never an error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import timedelta

import attrs

from turnframe.recall.cue import Unit
from turnframe.recall.find import Candidate
from turnframe.recall.rank import Ranked

SUCCESSION_DAYS = 30
TOPIC_SHARED = 2
CONNECTIVITY = 0.5  # what each edge adds to a recognizable's standing


@attrs.frozen(kw_only=True)
class Edge:
    source: str
    target: str
    rule: str  # succession | topic | concept
    shared: tuple[str, ...]


@attrs.frozen(kw_only=True)
class SkippedLink:
    member: str
    anchor: str
    reason: str


@attrs.frozen(kw_only=True)
class Assembly:
    joined: tuple[Edge, ...] = ()
    skipped: tuple[SkippedLink, ...] = ()


@attrs.frozen(kw_only=True)
class Recognizable:
    """The one shape at every scope: ``unit`` is session exactly when there is one member."""

    unit: Unit
    members: tuple[Candidate, ...]
    score: float
    assembly: Assembly | None = None

    @property
    def head(self) -> Candidate:
        return self.members[0]


def _anchors(c: Candidate) -> set[str]:
    found = set(c.identifier_literals) | {f"case:{i}" for i in c.case_ids}
    found |= {a.ref for a in c.cross_refs}
    return found


def succession(a: Candidate, b: Candidate) -> tuple[str, ...] | None:
    if a.workflow is None or a.workflow != b.workflow:
        return None
    first, second = sorted((a, b), key=lambda c: (c.started_at is None, c.started_at))
    gap = (
        second.started_at - first.recency
        if first.recency is not None and second.started_at is not None
        else timedelta(0)
    )
    if gap > timedelta(days=SUCCESSION_DAYS):
        return None
    shared = (_anchors(a) & _anchors(b)) | (
        {b.session_id} & _anchors(a) | {a.session_id} & _anchors(b)
    )
    return tuple(sorted(shared)) or None


def topic(a: Candidate, b: Candidate) -> tuple[str, ...] | None:
    if a.topic and a.topic == b.topic:
        return (a.topic,)
    shared = [k for k in a.keywords if k in b.keywords]
    return tuple(shared) if len(shared) >= TOPIC_SHARED else None


def concept(a: Candidate, b: Candidate) -> tuple[str, ...] | None:
    shared = set(a.markers.coinage) & set(b.markers.coinage)
    settled = [c for c in sorted(shared) if c in a.settled or c in b.settled]
    return tuple(settled) or None


RULES: dict[Unit, tuple[str, Callable[[Candidate, Candidate], tuple[str, ...] | None]]] = {
    Unit.LINE: ("succession", succession),
    Unit.TOPIC: ("topic", topic),
    Unit.CONCEPT: ("concept", concept),
}


def skipped_links(members: Sequence[Candidate], on_record: Collection[str]) -> list[SkippedLink]:
    """Anchors of ``members`` that resolve to no written record."""
    skipped = []
    for member in members:
        for anchor in member.cross_refs:
            if anchor.kind == "memory":
                skipped.append(
                    SkippedLink(member=member.session_id, anchor=anchor.ref, reason="memory_note")
                )
            elif anchor.kind == "session" and anchor.ref not in on_record:
                skipped.append(
                    SkippedLink(member=member.session_id, anchor=anchor.ref, reason="no_record")
                )
    return skipped


def assemble(
    ranked: Sequence[Ranked], unit: Unit, on_record: Collection[str] = ()
) -> list[Recognizable]:
    """The ranked candidates as recognizables at ``unit``, best first. ``on_record`` are the
    session ids anchors name that exist in the store (the stage looks them up)."""
    if unit is Unit.SESSION or unit not in RULES:
        return [
            Recognizable(unit=Unit.SESSION, members=(r.candidate,), score=r.primary)
            for r in ranked
        ]
    name, rule = RULES[unit]
    left = list(ranked)
    built: list[Recognizable] = []
    while left:
        seed = left.pop(0)
        group = [seed]
        edges: list[Edge] = []
        grew = True
        while grew:
            grew = False
            for other in list(left):
                for member in group:
                    shared = rule(member.candidate, other.candidate)
                    if shared:
                        edges.append(
                            Edge(
                                source=member.candidate.session_id,
                                target=other.candidate.session_id,
                                rule=name,
                                shared=shared,
                            )
                        )
                        group.append(other)
                        left.remove(other)
                        grew = True
                        break
        members = _ordered([g.candidate for g in group], unit)
        score = max(g.primary for g in group) + CONNECTIVITY * len(edges)
        if len(members) == 1:
            built.append(Recognizable(unit=Unit.SESSION, members=members, score=score))
            continue
        assembly = Assembly(joined=tuple(edges), skipped=tuple(skipped_links(members, on_record)))
        built.append(Recognizable(unit=unit, members=members, score=score, assembly=assembly))
    return sorted(built, key=lambda r: -r.score)


def _ordered(members: list[Candidate], unit: Unit) -> tuple[Candidate, ...]:
    if unit in (Unit.LINE, Unit.CONCEPT):
        # A line in time order; a concept from where it was forged to where it was settled.
        return tuple(sorted(members, key=lambda c: (c.started_at is None, c.started_at)))
    return tuple(members)


__all__ = [
    "CONNECTIVITY",
    "RULES",
    "SUCCESSION_DAYS",
    "TOPIC_SHARED",
    "Assembly",
    "Edge",
    "Recognizable",
    "SkippedLink",
    "assemble",
    "concept",
    "skipped_links",
    "succession",
    "topic",
]
