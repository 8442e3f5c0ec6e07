"""The registry of reviewed corpora: packs and teaching corpora in registration order.

Build it at startup, then only read it: every runtime starts from :func:`default_registry`
(the shipped corpora, unless ``include_shipped=False``) and each workflow registers its own pack
and teaching corpus, as paths or in-memory records::

    registry = default_registry()
    report = registry.register(
        pack=pack_from_entries(PackManifest(pack_id="policy_v1", language="en", version="1"),
                               [{"lemma": "refund", "surface": "refunds", "pos": "noun",
                                 "semantic_domains": ["policy.refund"]}, ...]),
        corpus=[{"chain_id": "refund_requires_receipt", "subject": "refund", ...}],
        corpus_id="policy_chains_v1",
    )
    report.drops  # every line that did not load, with its reason

Earlier registration wins a (subject, intent) collision, so a workflow cannot override a
corpus registered before it; register the workflow's corpus first if it must win.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from turnframe._hashing import digest
from turnframe.corpora.aggregator import CorpusIndex, build_index
from turnframe.corpora.answer import DEFAULT_LIMITS, CompositionLimits
from turnframe.corpora.errors import (
    Drop,
    DuplicateCorpusError,
    MalformedCorpusLineError,
    MissingCorpusIdError,
    UnknownPackError,
)
from turnframe.corpora.loader import (
    load_pack,
    load_shipped,
    load_teaching_file,
    manifest_path_for,
    read_corpus_manifest,
)
from turnframe.corpora.packs import Pack, PackLoad
from turnframe.corpora.teaching import CorpusLoad, TeachingCorpus, corpus_from_records

PackInput = Pack | PackLoad | Path
CorpusInput = TeachingCorpus | CorpusLoad | Path | Iterable[Mapping[str, Any]]


@attrs.frozen(kw_only=True)
class RegistrationReport:
    """What one :meth:`CorpusRegistry.register` call loaded and what it dropped."""

    pack_id: str
    corpus_id: str | None
    active_chains: int
    drops: tuple[Drop, ...]

    @property
    def defects(self) -> tuple[Drop, ...]:
        return tuple(d for d in self.drops if d.is_defect)


@attrs.define
class CorpusRegistry:
    """Packs and teaching corpora in registration order, and the composers' settings.

    ``limits`` are what :func:`~turnframe.corpora.compose` uses when it is given none: how many
    clauses, examples and domains a surface shows (the seed project's defaults).
    """

    limits: CompositionLimits = attrs.field(default=DEFAULT_LIMITS, kw_only=True)
    _packs: dict[str, Pack] = attrs.field(factory=dict, init=False)
    _corpora: dict[str, TeachingCorpus] = attrs.field(factory=dict, init=False)
    _index: CorpusIndex | None = attrs.field(default=None, init=False)

    @property
    def packs(self) -> tuple[Pack, ...]:
        return tuple(self._packs.values())

    @property
    def corpora(self) -> tuple[TeachingCorpus, ...]:
        return tuple(self._corpora.values())

    @property
    def index(self) -> CorpusIndex:
        """The cross-corpus aggregator for the current registrations (built on first use)."""
        if self._index is None:
            self._index = build_index(self._packs.values(), self._corpora.values(), self.limits)
        return self._index

    def register(
        self,
        *,
        pack: PackInput,
        corpus: CorpusInput | None = None,
        corpus_id: str | None = None,
        strict: bool = False,
    ) -> RegistrationReport:
        """Register a pack and, optionally, a teaching corpus bound to it.

        ``pack`` is a :class:`Pack`, a :class:`PackLoad` or a pack folder. ``corpus`` is a loaded
        corpus, a ``.jsonl`` path (its id from the manifest next to it, else the file stem) or
        in-memory chain records (then ``corpus_id`` is required). Cross-pack chains may name any
        pack registered before. With ``strict=True`` the first malformed or gated line raises
        :class:`MalformedCorpusLineError` and nothing is registered.
        """
        pack_load = _as_pack_load(pack)
        packs = {**self._packs, pack_load.pack.pack_id: pack_load.pack}
        corpus_load = (
            None if corpus is None else self._load_corpus(corpus, pack_load.pack, packs, corpus_id)
        )
        drops = pack_load.drops + (corpus_load.drops if corpus_load else ())
        if strict:
            for drop in drops:
                if drop.is_defect:
                    raise MalformedCorpusLineError(drop)
        self._check_new(pack_load.pack, corpus_load.corpus if corpus_load else None)
        self._packs.setdefault(pack_load.pack.pack_id, pack_load.pack)
        if corpus_load is not None:
            self._corpora[corpus_load.corpus.corpus_id] = corpus_load.corpus
        self._index = None
        return RegistrationReport(
            pack_id=pack_load.pack.pack_id,
            corpus_id=corpus_load.corpus.corpus_id if corpus_load else None,
            active_chains=len(corpus_load.corpus.chains) if corpus_load else 0,
            drops=drops,
        )

    def digest(self) -> str:
        """A digest of everything registered, for replay records: same corpora, same digest."""
        return digest(
            "corpora.registry",
            {
                "packs": [[p.pack_id, p.content_digest()] for p in self._packs.values()],
                "corpora": [
                    [c.corpus_id, c.pack_id, [ch.chain_id for ch in c.chains]]
                    for c in self._corpora.values()
                ],
            },
        )

    def _load_corpus(
        self,
        corpus: CorpusInput,
        pack: Pack,
        packs: Mapping[str, Pack],
        corpus_id: str | None,
    ) -> CorpusLoad:
        if isinstance(corpus, CorpusLoad):
            loaded = corpus
        elif isinstance(corpus, TeachingCorpus):
            loaded = CorpusLoad(corpus=corpus, drops=())
        elif isinstance(corpus, Path):
            manifest = read_corpus_manifest(corpus, manifest_path_for(corpus))
            if manifest.pack_id not in (None, pack.pack_id):
                raise UnknownPackError(
                    f"{corpus}: its manifest binds it to pack {manifest.pack_id!r}, "
                    f"not {pack.pack_id!r}"
                )
            return load_teaching_file(
                corpus, pack=pack, packs=packs, corpus_id=corpus_id or manifest.corpus_id
            )
        else:
            if corpus_id is None:
                raise MissingCorpusIdError(
                    "in-memory chain records need a corpus_id",
                    hint="pass corpus_id='<name>_v1' to register()",
                )
            return corpus_from_records(
                corpus, corpus_id=corpus_id, pack=pack, packs=packs, source=f"<{corpus_id}>"
            )
        if loaded.corpus.pack_id != pack.pack_id:
            raise UnknownPackError(
                f"corpus {loaded.corpus.corpus_id!r} is bound to pack {loaded.corpus.pack_id!r}, "
                f"not {pack.pack_id!r}"
            )
        for chain in loaded.corpus.chains:
            for pack_id in (chain.subject_pack_id, chain.object_pack_id):
                if pack_id not in packs:
                    raise UnknownPackError(
                        f"chain {chain.chain_id!r} names pack {pack_id!r}, which is not registered",
                        hint="register that pack first",
                    )
        return loaded

    def _check_new(self, pack: Pack, corpus: TeachingCorpus | None) -> None:
        known = self._packs.get(pack.pack_id)
        if known is not None and (known.manifest, known.entries) != (pack.manifest, pack.entries):
            raise DuplicateCorpusError(
                f"pack {pack.pack_id!r} is already registered with different content",
                hint="give the new pack its own pack_id (e.g. bump the _vN suffix)",
            )
        if corpus is not None and corpus.corpus_id in self._corpora:
            raise DuplicateCorpusError(
                f"corpus {corpus.corpus_id!r} is already registered",
                hint="give the new corpus its own corpus_id (e.g. bump the _vN suffix)",
            )


def default_registry(
    *, include_shipped: bool = True, limits: CompositionLimits = DEFAULT_LIMITS
) -> CorpusRegistry:
    """A fresh registry, holding the shipped corpora unless ``include_shipped`` is false."""
    registry = CorpusRegistry(limits=limits)
    if include_shipped:
        for pack_load, corpus_load in load_shipped():
            registry.register(pack=pack_load, corpus=corpus_load, strict=True)
    return registry


def _as_pack_load(pack: PackInput) -> PackLoad:
    if isinstance(pack, PackLoad):
        return pack
    if isinstance(pack, Pack):
        return PackLoad(pack=pack, drops=())
    return load_pack(pack)
