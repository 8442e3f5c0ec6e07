"""The fixed surface templates. Every surface is one line built only from pack atoms, chain
content and the template words below: no prose generation.

    pack-grounded      {X} — pack-grounded ({pack}): {d1}; {d2}; {d3}.
    teaching-grounded  {X} — teaching-grounded ({corpus}): {dX}. Cause: {X} {conn} {O} ({dO}).
                       No session evidence yet.           ("Verification:" for a yes/no question)
    narrative-grounded {X} — narrative-grounded ({corpora}): {dX}. {X} {c1} {O1} ({dO1}); …
                       No session evidence yet.
    example-grounded   {X} — example-grounded ({corpora}): {dX}. Example: {S1} {c1} {X}; …
                       No session evidence yet.
    oov invitation     {X} — no reviewed entry yet. Tell me what {X} means and it can be
                       reviewed into a pack.

``{dX}`` is the subject's semantic domains in lexicon order, the first ``domains_subject_k``
of them (the object's first ``domains_object_k`` for an example header), joined by "; "; the
pack surface shows the first ``pack_domains``. ``{dO}`` is an object's first
``domains_object_k`` domains. A chain line's own k's win over the settings. Connectives are
humanised ("belongs_to" reads "belongs to"). ``{corpora}`` is the sorted corpus ids of the
chains shown, joined by " + ".
"""

from __future__ import annotations

from turnframe.corpora.aggregator import GroundedChain, PackHit
from turnframe.corpora.answer import CompositionLimits, GroundedAnswer, GroundingSource
from turnframe.corpora.intents import IntentTag
from turnframe.corpora.packs import LexiconEntry

NO_SESSION_EVIDENCE = "No session evidence yet."

_TEACHING_LABELS = {IntentTag.CAUSE: "Cause", IntentTag.VERIFICATION: "Verification"}


def pack_domains(entry: LexiconEntry, limits: CompositionLimits) -> str:
    return "; ".join(entry.semantic_domains[: limits.pack_domains])


def corpus_tag(corpora: tuple[str, ...]) -> str:
    return " + ".join(corpora)


def pack_grounded(hit: PackHit, intent: IntentTag, limits: CompositionLimits) -> GroundedAnswer:
    lemma = hit.entry.lemma
    return GroundedAnswer(
        intent=intent,
        subject=lemma,
        grounding_source=GroundingSource.PACK,
        surface=f"{lemma} — pack-grounded ({hit.pack_id}): {pack_domains(hit.entry, limits)}.",
        pack_id=hit.pack_id,
    )


def teaching_grounded(
    grounded: GroundedChain, intent: IntentTag, limits: CompositionLimits
) -> GroundedAnswer:
    chain = grounded.chain
    subject = grounded.subject_entry.lemma
    label = _TEACHING_LABELS.get(intent, "Cause")
    surface = (
        f"{subject} — teaching-grounded ({grounded.corpus_id}): "
        f"{grounded.subject_domains(limits)}. {label}: {grounded.example} "
        f"({grounded.object_domains(limits)}). {NO_SESSION_EVIDENCE}"
    )
    return GroundedAnswer(
        intent=intent,
        subject=subject,
        grounding_source=GroundingSource.TEACHING,
        surface=surface,
        pack_id=chain.subject_pack_id,
        corpus_ids=(grounded.corpus_id,),
        chain_ids=(chain.chain_id,),
    )


def oov_invitation(subject: str, intent: IntentTag) -> GroundedAnswer:
    return GroundedAnswer(
        intent=intent,
        subject=subject,
        grounding_source=GroundingSource.OOV,
        surface=(
            f"{subject} — no reviewed entry yet. "
            f"Tell me what {subject} means and it can be reviewed into a pack."
        ),
    )


def no_answer(intent: IntentTag, subject: str) -> GroundedAnswer:
    """Nothing to say from corpora (empty subject, RECALL, or not a knowledge question)."""
    return GroundedAnswer(
        intent=intent, subject=subject, grounding_source=GroundingSource.NONE, surface=None
    )
