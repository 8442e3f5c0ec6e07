"""NARRATIVE: everything reviewed about X, as clauses of the chains rooted on X.

Takes the aggregator's run for X (every corpus, deduplicated by (connective, object), sorted by
(intent, connective, object)) and shows at most ``max_clauses`` of its clauses.
"""

from __future__ import annotations

from turnframe.corpora.aggregator import ChainRun
from turnframe.corpora.answer import CompositionLimits, GroundedAnswer, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.surfaces import NO_SESSION_EVIDENCE, domains


def narrative_grounded(run: ChainRun | None, limits: CompositionLimits) -> GroundedAnswer | None:
    """The narrative surface for the chains rooted on one subject, or ``None`` if there are none."""
    if run is None:
        return None
    shown = limits.max_clauses
    subject = run.entry.lemma
    corpora = run.corpora(shown)
    surface = (
        f"{subject} — narrative-grounded ({', '.join(corpora)}): {domains(run.entry, limits)}. "
        f"{'; '.join(run.fragments[:shown])}. {NO_SESSION_EVIDENCE}"
    )
    return GroundedAnswer(
        intent=IntentTag.NARRATIVE,
        subject=subject,
        grounding_source=GroundingSource.TEACHING,
        surface=surface,
        pack_id=run.pack_id,
        corpus_ids=corpora,
        chain_ids=run.chain_ids[:shown],
    )
