"""EXAMPLE: reverse chain access — chains whose *object* is X, shown as examples of X.

Takes the aggregator's run for X as an object (every corpus, sorted by (intent, subject,
connective), then deduplicated by subject) and shows at most ``max_examples`` of them. The
header shows X's domains as the first shown chain's ``domains_object_k`` gives them; the tag is
the sorted ids of the corpora shown, joined by " + ".
"""

from __future__ import annotations

from turnframe.corpora.aggregator import ChainRun
from turnframe.corpora.answer import CompositionLimits, GroundedAnswer, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.surfaces import NO_SESSION_EVIDENCE, corpus_tag


def example_grounded(run: ChainRun | None, limits: CompositionLimits) -> GroundedAnswer | None:
    """The example surface for the chains ending on one object, or ``None`` if there are none."""
    if run is None:
        return None
    shown = limits.max_examples
    obj = run.entry.lemma
    corpora = run.corpora(shown)
    surface = (
        f"{obj} — example-grounded ({corpus_tag(corpora)}): "
        f"{run.chains[0].object_domains(limits)}. "
        f"Example: {'; '.join(run.fragments[:shown])}. {NO_SESSION_EVIDENCE}"
    )
    return GroundedAnswer(
        intent=IntentTag.EXAMPLE,
        subject=obj,
        grounding_source=GroundingSource.TEACHING,
        surface=surface,
        pack_id=run.pack_id,
        corpus_ids=corpora,
        chain_ids=run.chain_ids[:shown],
    )
