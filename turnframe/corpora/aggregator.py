"""The cross-corpus aggregator: indexes over every registered pack and corpus.

Built once per registry state, in registration order, so each lookup a composer makes is a dict
access plus a slice: the cost of a surface does not grow with the size of the corpora.

- ``lemmas`` / ``surfaces``: lemma (or surface form) → the first registered pack that has it.
- ``rooted``: subject → the run of chains rooted on it, sorted by (intent, connective, object)
  and then deduplicated by (connective, object), keeping the first in that order (so a cause
  chain wins over a verification chain saying the same). Feeds NARRATIVE.
- ``examples``: object → the run of chains ending on it, sorted by (intent, subject,
  connective), then deduplicated by subject. Feeds EXAMPLE (reverse access).
- ``teaching``: (subject, intent) → the chains of the *first* corpus that has that pair, in file
  order: earlier registration wins a collision. Feeds CAUSE and VERIFICATION.

Connectives sort and deduplicate as written and are humanised when shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import attrs

from turnframe.corpora.answer import CompositionLimits
from turnframe.corpora.keys import normalise_key
from turnframe.corpora.packs import LexiconEntry, Pack
from turnframe.corpora.teaching import Chain, ChainIntent, TeachingCorpus

#: Longest subject phrase, in words, tried when a clause question is resolved by prefix.
MAX_SUBJECT_WORDS = 6


@attrs.frozen(kw_only=True)
class GroundedChain:
    """A chain with its corpus (and its registration rank), its subject and object entries, and
    its two surface fragments, rendered once here so a composer only joins them:
    ``example`` "{S} {conn} {O}" (the connective humanised) and ``clause`` "{example} ({dO})",
    where {dO} are the object's first domains under the index's settings."""

    chain: Chain
    corpus_id: str
    corpus_rank: int
    subject_entry: LexiconEntry
    object_entry: LexiconEntry
    clause: str
    example: str

    def subject_domains(self, limits: CompositionLimits) -> str:
        k = self.chain.domains_subject_k or limits.domains_subject_k
        return "; ".join(self.subject_entry.semantic_domains[:k])

    def object_domains(self, limits: CompositionLimits) -> str:
        k = self.chain.domains_object_k or limits.domains_object_k
        return "; ".join(self.object_entry.semantic_domains[:k])


@attrs.frozen(kw_only=True, eq=False)
class ChainRun:
    """The chains rooted on (or ending at) one lemma, sorted and deduplicated, with their
    fragments and ids laid out in parallel tuples: a composer slices them and touches little
    else, so a surface costs the same whatever the size of the corpora.

    ``entry`` and ``pack_id`` are the lemma's entry as the first chain of the run binds it (the
    surface header shows it). ``single_corpus`` is set when every chain comes from one corpus.
    """

    entry: LexiconEntry
    pack_id: str
    fragments: tuple[str, ...]
    chain_ids: tuple[str, ...]
    corpus_ids: tuple[str, ...]
    single_corpus: str | None
    chains: tuple[GroundedChain, ...]

    def corpora(self, shown: int) -> tuple[str, ...]:
        """The corpora of the first ``shown`` chains, sorted by id (the surface's tag)."""
        if self.single_corpus is not None:
            return (self.single_corpus,)
        return tuple(sorted(set(self.corpus_ids[:shown])))


@attrs.frozen(kw_only=True, eq=False)
class PackHit:
    """A lemma's entry in the first registered pack that has it, with the runs of chains rooted
    on it and ending at it attached, so one lookup gives a composer everything it reads."""

    pack_id: str
    entry: LexiconEntry
    key: str
    rooted: ChainRun | None = None
    examples: ChainRun | None = None


@attrs.frozen(kw_only=True, eq=False)
class CorpusIndex:
    limits: CompositionLimits
    lemmas: Mapping[str, PackHit]
    surfaces: Mapping[str, PackHit]
    rooted: Mapping[str, ChainRun]
    examples: Mapping[str, ChainRun]
    teaching: Mapping[tuple[str, ChainIntent], tuple[GroundedChain, ...]]

    def resolve(self, phrase: str) -> PackHit | None:
        """The pack entry a subject phrase names: lemma, then surface form, then a singular."""
        key = normalise_key(phrase)
        if not key:
            return None
        hit = self.lemmas.get(key) or self.surfaces.get(key)
        if hit is not None:
            return hit
        for singular in _singulars(key):
            hit = self.lemmas.get(singular)
            if hit is not None:
                return hit
        return None

    def resolve_prefix(self, phrase: str) -> tuple[PackHit, str] | None:
        """The longest leading words of a clause that name an entry, and the words after them."""
        words = normalise_key(phrase).split()
        for size in range(min(len(words), MAX_SUBJECT_WORDS), 0, -1):
            hit = self.resolve(" ".join(words[:size]))
            if hit is not None:
                return hit, " ".join(words[size:])
        return None


def build_index(
    packs: Iterable[Pack], corpora: Iterable[TeachingCorpus], limits: CompositionLimits
) -> CorpusIndex:
    packs = tuple(packs)
    by_id = {pack.pack_id: pack for pack in reversed(packs)}
    rooted: dict[str, list[GroundedChain]] = {}
    examples: dict[str, list[GroundedChain]] = {}
    teaching: dict[tuple[str, ChainIntent], list[GroundedChain]] = {}
    owner: dict[tuple[str, ChainIntent], str] = {}
    for rank, corpus in enumerate(corpora):
        for chain in corpus.chains:
            grounded = _ground(chain, corpus.corpus_id, rank, by_id, limits)
            rooted.setdefault(chain.subject, []).append(grounded)
            examples.setdefault(chain.object, []).append(grounded)
            pair = (chain.subject, chain.intent)
            if owner.setdefault(pair, corpus.corpus_id) == corpus.corpus_id:
                teaching.setdefault(pair, []).append(grounded)
    rooted_runs = {
        subject: _run(_first_per(chains, _narrative_order, _clause_key), as_subject=True)
        for subject, chains in rooted.items()
    }
    example_runs = {
        obj: _run(_first_per(chains, _example_order, _subject_key), as_subject=False)
        for obj, chains in examples.items()
    }

    lemmas: dict[str, PackHit] = {}
    surfaces: dict[str, PackHit] = {}
    for pack in packs:
        for key, entry in pack.entries.items():
            if key in lemmas:
                hit = lemmas[key]
            else:
                hit = PackHit(
                    pack_id=pack.pack_id,
                    entry=entry,
                    key=key,
                    rooted=rooted_runs.get(key),
                    examples=example_runs.get(key),
                )
                lemmas[key] = hit
            surfaces.setdefault(normalise_key(entry.surface), hit)

    return CorpusIndex(
        limits=limits,
        lemmas=lemmas,
        surfaces=surfaces,
        rooted=rooted_runs,
        examples=example_runs,
        teaching={pair: tuple(chains) for pair, chains in teaching.items()},
    )


def humanise(connective: str) -> str:
    """How a connective reads: underscores become spaces ("belongs_to" → "belongs to")."""
    return " ".join(connective.replace("_", " ").split())


def _ground(
    chain: Chain, corpus_id: str, rank: int, packs: Mapping[str, Pack], limits: CompositionLimits
) -> GroundedChain:
    subject = packs[chain.subject_pack_id].entries[chain.subject]
    obj = packs[chain.object_pack_id].entries[chain.object]
    example = f"{subject.lemma} {humanise(chain.connective)} {obj.lemma}"
    k = chain.domains_object_k or limits.domains_object_k
    return GroundedChain(
        chain=chain,
        corpus_id=corpus_id,
        corpus_rank=rank,
        subject_entry=subject,
        object_entry=obj,
        clause=f"{example} ({'; '.join(obj.semantic_domains[:k])})",
        example=example,
    )


def _first_per(
    chains: list[GroundedChain],
    order: Callable[[GroundedChain], tuple[str | int, ...]],
    key: Callable[[GroundedChain], object],
) -> list[GroundedChain]:
    """Sort, then keep the first chain of each key (the seed's order: sort, then deduplicate)."""
    seen: set[object] = set()
    kept: list[GroundedChain] = []
    for grounded in sorted(chains, key=order):
        if key(grounded) not in seen:
            seen.add(key(grounded))
            kept.append(grounded)
    return kept


def _run(chains: list[GroundedChain], *, as_subject: bool) -> ChainRun:
    first = chains[0]
    corpus_ids = tuple(g.corpus_id for g in chains)
    return ChainRun(
        entry=first.subject_entry if as_subject else first.object_entry,
        pack_id=first.chain.subject_pack_id if as_subject else first.chain.object_pack_id,
        fragments=tuple(g.clause if as_subject else g.example for g in chains),
        chain_ids=tuple(g.chain.chain_id for g in chains),
        corpus_ids=corpus_ids,
        single_corpus=corpus_ids[0] if len(set(corpus_ids)) == 1 else None,
        chains=tuple(chains),
    )


# Ties (the same sort key in two corpora, or twice in one) go to the earliest registered line.
def _narrative_order(g: GroundedChain) -> tuple[str | int, ...]:
    c = g.chain
    return (c.intent.value, c.connective, c.object, g.corpus_rank, c.line)


def _example_order(g: GroundedChain) -> tuple[str | int, ...]:
    c = g.chain
    return (c.intent.value, c.subject, c.connective, g.corpus_rank, c.line)


def _clause_key(g: GroundedChain) -> tuple[str, str]:
    return (g.chain.connective, g.chain.object)


def _subject_key(g: GroundedChain) -> str:
    return g.chain.subject


def _singulars(key: str) -> tuple[str, ...]:
    """Plural fallbacks for the last word: policies → policy, boxes → box, refunds → refund."""
    head, _, last = key.rpartition(" ")
    prefix = f"{head} " if head else ""
    forms: list[str] = []
    if last.endswith("ies") and len(last) > 3:
        forms.append(last[:-3] + "y")
    if last.endswith("es") and len(last) > 2:
        forms.append(last[:-2])
    if last.endswith("s") and not last.endswith("ss") and len(last) > 1:
        forms.append(last[:-1])
    return tuple(prefix + form for form in forms)
