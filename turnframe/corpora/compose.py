"""The composer entry point: (intent, subject) + registry + thread → one grounded answer.

Pure: it reads the registry's aggregator and the thread and returns a value. Dispatch:

- NARRATIVE → narrative-grounded; EXAMPLE → example-grounded; when the subject is known but no
  chain is rooted on it (or ends on it), the pack-grounded surface.
- DEFINITION → pack-grounded (the first registered pack that has the lemma).
- CAUSE / VERIFICATION → teaching-grounded whenever the subject has a chain for the intent (in
  the first corpus that has the pair): the first chain whose object the question names, else the
  subject's latest chain (the last active line: files are append-only). "Why does light exist?"
  is answered from light's cause chain, as in the seed project. No chain → pack-grounded.
- An unknown subject → the OOV invitation. An empty subject, RECALL and OTHER → no surface.

With ``anaphora=True`` a pack/teaching answer may get the thread prefix (see
:mod:`turnframe.corpora.anaphora`). With it off the surface is byte-identical to having no thread.
"""

from __future__ import annotations

import attrs

from turnframe.corpora.aggregator import CorpusIndex, GroundedChain
from turnframe.corpora.anaphora import prefix_for, recalled_summary
from turnframe.corpora.answer import CompositionLimits, GroundedAnswer
from turnframe.corpora.example import example_grounded
from turnframe.corpora.intents import CLAUSE_INTENTS, IntentTag, classify_question
from turnframe.corpora.keys import normalise_key
from turnframe.corpora.narrative import narrative_grounded
from turnframe.corpora.registry import CorpusRegistry
from turnframe.corpora.surfaces import no_answer, oov_invitation, pack_grounded, teaching_grounded
from turnframe.corpora.teaching import ChainIntent
from turnframe.corpora.thread import ThreadContext


def compose(
    intent: IntentTag,
    subject: str,
    registry: CorpusRegistry,
    *,
    thread: ThreadContext | None = None,
    anaphora: bool = False,
    limits: CompositionLimits | None = None,
    turn_index: int | None = None,
) -> GroundedAnswer:
    """Answer one classified question from the reviewed corpora.

    ``limits`` default to the registry's settings. ``turn_index`` is the current turn; when
    given, only earlier turns of ``thread`` are recalled (so regenerating a turn whose summary is
    already pushed gives the same bytes).
    """
    index = registry.index
    answer = _ground(intent, normalise_key(subject), index, limits or index.limits)
    if not anaphora or thread is None or answer.surface is None:
        return answer
    recalled = recalled_summary(
        thread,
        subject=answer.subject,
        intent=intent,
        source=answer.grounding_source,
        before_turn=turn_index,
    )
    if recalled is None:
        return answer
    return attrs.evolve(
        answer,
        surface=prefix_for(recalled, answer.subject) + answer.surface,
        recalled_turn=recalled.turn_index,
    )


def answer_question(
    text: str,
    registry: CorpusRegistry,
    *,
    thread: ThreadContext | None = None,
    anaphora: bool = False,
    limits: CompositionLimits | None = None,
    turn_index: int | None = None,
) -> GroundedAnswer:
    """Classify ``text`` with the intent rules, then :func:`compose`."""
    question = classify_question(text)
    return compose(
        question.intent,
        question.subject,
        registry,
        thread=thread,
        anaphora=anaphora,
        limits=limits,
        turn_index=turn_index,
    )


def _ground(
    intent: IntentTag, subject: str, index: CorpusIndex, limits: CompositionLimits
) -> GroundedAnswer:
    if not subject or intent in (IntentTag.RECALL, IntentTag.OTHER):
        return no_answer(intent, subject)
    if intent in CLAUSE_INTENTS:
        return _ground_clause(intent, subject, index, limits)
    hit = index.resolve(subject)
    if hit is None:
        return oov_invitation(subject, intent)
    composed: GroundedAnswer | None = None
    if intent is IntentTag.NARRATIVE:
        composed = narrative_grounded(hit.rooted, index, limits)
    elif intent is IntentTag.EXAMPLE:
        composed = example_grounded(hit.examples, limits)
    return composed or pack_grounded(hit, intent, limits)


def _ground_clause(
    intent: IntentTag, subject: str, index: CorpusIndex, limits: CompositionLimits
) -> GroundedAnswer:
    resolved = index.resolve_prefix(subject)
    if resolved is None:
        return oov_invitation(subject.split()[0], intent)
    hit, rest = resolved
    candidates = index.teaching.get((hit.key, ChainIntent(intent.value)), ())
    if not candidates:
        return pack_grounded(hit, intent, limits)
    chosen = _named_by(candidates, rest) or candidates[-1]
    return teaching_grounded(chosen, intent, limits)


def _named_by(candidates: tuple[GroundedChain, ...], rest: str) -> GroundedChain | None:
    """The first chain whose object the rest of the question names, if any."""
    if not rest:
        return None
    padded = f" {rest} "
    for grounded in candidates:
        obj = grounded.object_entry
        forms = {normalise_key(obj.lemma), normalise_key(obj.surface)}
        if any(f" {form} " in padded or f" {form}s " in padded for form in forms):
            return grounded
    return None
