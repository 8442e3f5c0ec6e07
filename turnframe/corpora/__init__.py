"""Reviewed knowledge: packs, teaching chains, the registry, intent rules and surfaces.

Questions about what a workflow knows are answered only from reviewed corpora, by fixed
templates, with provenance. The files are in the seed project's format, so its corpora load as
they are. Everything here is pure except :mod:`turnframe.corpora.loader` and
:mod:`turnframe.corpora.sources`, which read files::

    registry = default_registry()                      # shipped corpora; include_shipped=False
    registry = load_corpora(CorpusSources(packs=(folder,), chains=(ChainsSource(path=f),))).registry
    question = classify_question("Tell me about truth.")
    answer = compose(question.intent, question.subject, registry, thread=thread, anaphora=True)
    thread = thread.push(summarise_turn(turn_index, [answer]))
"""

from __future__ import annotations

from turnframe.corpora.aggregator import CorpusIndex, GroundedChain, PackHit
from turnframe.corpora.anaphora import thread_anaphora_prefix
from turnframe.corpora.answer import (
    DEFAULT_LIMITS,
    CompositionLimits,
    GroundedAnswer,
    GroundingSource,
)
from turnframe.corpora.compose import answer_question, compose
from turnframe.corpora.errors import (
    CorpusError,
    CorpusFileError,
    Drop,
    DropKind,
    DuplicateCorpusError,
    MalformedCorpusLineError,
    MalformedManifestError,
    MissingCorpusIdError,
    UnknownPackError,
)
from turnframe.corpora.intents import (
    INTENT_RULES,
    ClassifiedQuestion,
    IntentRule,
    IntentTag,
    classify_question,
    normalise_subject,
)
from turnframe.corpora.loader import SHIPPED_CORPORA, load_pack, load_teaching_file
from turnframe.corpora.packs import LexiconEntry, Pack, PackLoad, PackManifest, pack_from_entries
from turnframe.corpora.registry import CorpusRegistry, RegistrationReport, default_registry
from turnframe.corpora.sources import ChainsSource, CorpusSources, LoadedCorpora, load_corpora
from turnframe.corpora.teaching import (
    Chain,
    ChainIntent,
    CorpusLoad,
    TeachingCorpus,
    corpus_from_records,
    parse_teaching,
)
from turnframe.corpora.thread import (
    MAX_THREAD_TURNS,
    ThreadContext,
    ThreadOrderError,
    TurnSummary,
    summarise_turn,
)

__all__ = [
    "DEFAULT_LIMITS",
    "INTENT_RULES",
    "MAX_THREAD_TURNS",
    "SHIPPED_CORPORA",
    "Chain",
    "ChainIntent",
    "ChainsSource",
    "ClassifiedQuestion",
    "CompositionLimits",
    "CorpusError",
    "CorpusFileError",
    "CorpusIndex",
    "CorpusLoad",
    "CorpusRegistry",
    "CorpusSources",
    "Drop",
    "DropKind",
    "DuplicateCorpusError",
    "GroundedAnswer",
    "GroundedChain",
    "GroundingSource",
    "IntentRule",
    "IntentTag",
    "LexiconEntry",
    "LoadedCorpora",
    "MalformedCorpusLineError",
    "MalformedManifestError",
    "MissingCorpusIdError",
    "Pack",
    "PackHit",
    "PackLoad",
    "PackManifest",
    "RegistrationReport",
    "TeachingCorpus",
    "ThreadContext",
    "ThreadOrderError",
    "TurnSummary",
    "UnknownPackError",
    "answer_question",
    "classify_question",
    "compose",
    "corpus_from_records",
    "default_registry",
    "load_corpora",
    "load_pack",
    "load_teaching_file",
    "normalise_subject",
    "pack_from_entries",
    "parse_teaching",
    "summarise_turn",
    "thread_anaphora_prefix",
]
