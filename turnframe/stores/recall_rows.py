"""Rows of a recall query to hits, shared by both SQL stores.

A query's rows are ``(session_id, score, term, source, turn_id, workflow, started_at,
last_active)``, one per place a term or identifier matched, grouped here into one
:class:`~turnframe.stores.recall.RecallHit` per session in the order the rows came (best first).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from turnframe.stores.recall import HitSource, RecallHit, RecallQuery


def collect_hits(
    rows: Sequence[Any],
    query: RecallQuery,
    *,
    time: Callable[[Any], datetime | None],
    started: Callable[[Any], datetime | None],
) -> tuple[RecallHit, ...]:
    order: list[str] = []
    grouped: dict[str, dict[str, Any]] = {}
    base = len(query.terms)
    for session_id, score, term, source, turn_id, workflow, created, last in rows:
        hit = grouped.get(session_id)
        if hit is None:
            order.append(session_id)
            hit = grouped[session_id] = {
                "score": int(score),
                "terms": {},
                "identifiers": {},
                "sources": {},
                "turns": {},
                "workflow": workflow,
                "started_at": started(created),
                "last_active": time(last),
            }
        term = int(term)
        if term < base:
            hit["terms"][term] = None
        else:
            hit["identifiers"][query.identifiers[term - base]] = None
        hit["sources"][HitSource(source)] = None
        if turn_id is not None:
            hit["turns"][turn_id] = None
    return tuple(
        RecallHit(
            session_id=session_id,
            score=grouped[session_id]["score"],
            terms=tuple(sorted(grouped[session_id]["terms"])),
            identifiers=tuple(grouped[session_id]["identifiers"]),
            sources=tuple(sorted(grouped[session_id]["sources"], key=list(HitSource).index)),
            turn_ids=tuple(sorted(grouped[session_id]["turns"])),
            workflow=grouped[session_id]["workflow"],
            started_at=grouped[session_id]["started_at"],
            last_active=grouped[session_id]["last_active"],
        )
        for session_id in order
    )


__all__ = ["collect_hits"]
