"""NARRATIVE: everything reviewed about X, as clauses of the chains rooted on X.

Takes the aggregator's run for X (every corpus, sorted by (intent, connective, object), then
deduplicated by (connective, object)) and shows at most ``max_clauses`` of its clauses. The
header shows the first shown chain's subject domains (``domains_subject_k``); the tag is the
sorted ids of the corpora shown, joined by " + ".
"""

from __future__ import annotations

from turnframe.corpora.aggregator import ChainRun, CorpusIndex
from turnframe.corpora.answer import CompositionLimits, GroundedAnswer, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.surfaces import NO_SESSION_EVIDENCE, corpus_tag


def narrative_grounded(
    run: ChainRun | None, index: CorpusIndex, limits: CompositionLimits
) -> GroundedAnswer | None:
    """The narrative surface for the chains rooted on one subject, or ``None`` if there are none."""
    if run is None:
        return None
    shown = limits.max_clauses
    subject = run.entry.lemma
    corpora = run.corpora(shown)
    if limits == index.limits:
        clauses = run.fragments[:shown]
    else:  # settings other than the index's: render the few clauses shown
        clauses = tuple(f"{g.example} ({g.object_domains(limits)})" for g in run.chains[:shown])
    surface = (
        f"{subject} — narrative-grounded ({corpus_tag(corpora)}): "
        f"{run.chains[0].subject_domains(limits)}. {'; '.join(clauses)}. {NO_SESSION_EVIDENCE}"
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
