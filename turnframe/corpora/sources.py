"""Loading a user's own packs and teaching files into a registry (``--pack`` / ``--chains``).

The seed project binds each chain file to its pack in code; turnframe finds the binding itself:

1. the pack named for the file (``ChainsSource(pack_id=...)``, or ``pack = "..."`` in config);
2. else the corpus manifest next to the file (``<stem>.manifest.json``), whose ``pack_path`` and
   ``extra_pack_paths`` are loaded too when they are not named already;
3. else the named pack that holds the subject and object of most of the file's lines (the
   earliest named on a tie); lines naming ``subject_pack_id`` / ``object_pack_id`` bind
   themselves and are not counted.

Packs register in the order named (the first pack that has a lemma answers for it), then the
chain files in the order named (the first corpus that has a (subject, intent) pair answers a
why-question). Every chain file can use every pack for cross-pack lines. The shipped corpora
come first unless ``shipped`` is false; by default they are left out when anything is named.
Nothing is refused for a bad line: :attr:`LoadedCorpora.reports` lists every line that was
skipped, overridden or retired. Only a file that cannot be read raises a :class:`CorpusError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import attrs

from turnframe.corpora.answer import DEFAULT_LIMITS, CompositionLimits
from turnframe.corpora.errors import CorpusError, Drop, UnknownPackError
from turnframe.corpora.jsonl import json_lines
from turnframe.corpora.keys import normalise_key
from turnframe.corpora.loader import (
    load_pack,
    manifest_path_for,
    read_corpus_manifest,
    read_text,
)
from turnframe.corpora.packs import Pack, PackLoad
from turnframe.corpora.registry import CorpusRegistry, default_registry
from turnframe.corpora.teaching import CorpusLoad, parse_teaching

#: The file names inside a pack folder; everything else ending in .jsonl is a teaching file.
PACK_FILES = frozenset({"lexicon.jsonl", "glosses.jsonl"})


@attrs.frozen(kw_only=True)
class ChainsSource:
    """A teaching file, and the id of its pack when it is not to be found by itself."""

    path: Path
    pack_id: str | None = None


@attrs.frozen(kw_only=True)
class CorpusSources:
    """What to load: pack folders and teaching files, in registration order, and the settings.

    ``shipped`` includes the shipped corpora (registered first); ``None`` means "only when no
    pack or teaching file is named".
    """

    packs: tuple[Path, ...] = ()
    chains: tuple[ChainsSource, ...] = ()
    shipped: bool | None = None
    limits: CompositionLimits = DEFAULT_LIMITS

    @property
    def names_any(self) -> bool:
        return bool(self.packs or self.chains)

    @property
    def includes_shipped(self) -> bool:
        return self.shipped if self.shipped is not None else not self.names_any

    def overridden_by(
        self,
        *,
        packs: Sequence[Path] = (),
        chains: Sequence[ChainsSource] = (),
        shipped: bool | None = None,
    ) -> CorpusSources:
        """These sources with the command line's on top: named files replace these files."""
        if packs or chains:
            return attrs.evolve(
                self,
                packs=tuple(packs),
                chains=tuple(chains),
                shipped=shipped,
            )
        return attrs.evolve(self, shipped=self.shipped if shipped is None else shipped)


@attrs.frozen(kw_only=True)
class LoadedCorpora:
    """A registry built from :class:`CorpusSources`, with what each file loaded and left out."""

    registry: CorpusRegistry
    packs: tuple[PackLoad, ...]
    corpora: tuple[CorpusLoad, ...]

    @property
    def reports(self) -> tuple[Drop, ...]:
        """Every reported line: the packs' in the order loaded, then the teaching files'."""
        return tuple(d for load in self.packs for d in load.drops) + tuple(
            d for load in self.corpora for d in load.drops
        )

    @property
    def defects(self) -> tuple[Drop, ...]:
        return tuple(d for d in self.reports if d.is_defect)


def load_corpora(
    sources: CorpusSources, *, on_file: Callable[[Path], None] | None = None
) -> LoadedCorpora:
    """Build a registry from ``sources``; ``on_file`` is told of each file as it is loaded."""
    registry = default_registry(include_shipped=sources.includes_shipped, limits=sources.limits)
    loader = _Loader(registry=registry, on_file=on_file or (lambda _path: None))
    for folder in sources.packs:
        loader.pack(folder)
    for source in sources.chains:
        loader.chains(source)
    return LoadedCorpora(
        registry=registry, packs=tuple(loader.pack_loads), corpora=tuple(loader.corpus_loads)
    )


def discover(folder: Path) -> tuple[list[Path], list[ChainsSource]]:
    """The pack folders (holding a ``lexicon.jsonl``) and teaching files under ``folder``, in
    path order. A folder that is itself a pack is just that pack."""
    if is_pack_folder(folder):
        return [folder], []
    packs = sorted(lexicon.parent for lexicon in folder.rglob("lexicon.jsonl"))
    inside = set(packs)
    chains = [
        ChainsSource(path=path)
        for path in sorted(folder.rglob("*.jsonl"))
        if path.name not in PACK_FILES and not inside.intersection(path.parents)
    ]
    return packs, chains


def is_pack_folder(path: Path) -> bool:
    return path.is_dir() and (path / "lexicon.jsonl").is_file()


@attrs.define
class _Loader:
    registry: CorpusRegistry
    on_file: Callable[[Path], None]
    pack_loads: list[PackLoad] = attrs.field(factory=list)
    corpus_loads: list[CorpusLoad] = attrs.field(factory=list)
    _folders: dict[Path, Pack] = attrs.field(factory=dict)
    _by_id: dict[str, Pack] = attrs.field(factory=dict)

    def pack(self, folder: Path) -> Pack:
        key = folder.resolve()
        known = self._folders.get(key)
        if known is not None:
            return known
        self.on_file(folder)
        loaded = load_pack(folder)
        self.registry.register(pack=loaded.pack)  # the same id twice is refused unless equal
        self.pack_loads.append(loaded)
        self._folders[key] = loaded.pack
        self._by_id.setdefault(loaded.pack.pack_id, loaded.pack)
        return loaded.pack

    def chains(self, source: ChainsSource) -> None:
        path = source.path
        self.on_file(path)
        text = read_text(path)
        manifest_file = manifest_path_for(path)
        manifest = read_corpus_manifest(path, manifest_file)
        if manifest.pack_path is not None:
            base = manifest_file.parent
            for folder in (manifest.pack_path, *manifest.extra_pack_paths):
                self.pack(base / folder)
        pack_id = source.pack_id or manifest.pack_id or self._best_pack(text, path)
        bound = self._by_id.get(pack_id)
        if bound is None:
            raise UnknownPackError(
                f"{path}: its pack {pack_id!r} is not loaded",
                hint="name that pack's folder too (--pack DIR, or packs = [...] in the config)",
            )
        loaded = parse_teaching(
            text,
            corpus_id=manifest.corpus_id,
            pack=bound,
            packs=self._by_id,
            source=str(path),
        )
        self.registry.register(pack=bound, corpus=loaded)
        self.corpus_loads.append(loaded)

    def _best_pack(self, text: str, path: Path) -> str:
        if not self._by_id:
            raise CorpusError(
                f"{path}: no pack to check it against",
                hint=f"pass --pack DIR or write {manifest_path_for(path).name} with a pack_path",
            )
        pairs = list(_subject_object_pairs(text, str(path)))
        scores = {
            pack_id: sum(1 for s, o in pairs if s in pack.entries and o in pack.entries)
            for pack_id, pack in self._by_id.items()
        }
        # max() keeps the first of equal scores: the earliest named pack wins a tie.
        return max(scores, key=lambda pack_id: scores[pack_id])


def _subject_object_pairs(text: str, source: str) -> Iterable[tuple[str, str]]:
    """The (subject, object) keys of the lines that do not name their own packs."""
    for _, record in json_lines(text, source=source):
        if isinstance(record, Drop) or "subject_pack_id" in record or "object_pack_id" in record:
            continue
        subject, obj = record.get("subject"), record.get("object")
        if isinstance(subject, str) and isinstance(obj, str):
            yield normalise_key(subject), normalise_key(obj)


__all__ = [
    "ChainsSource",
    "CorpusSources",
    "LoadedCorpora",
    "discover",
    "is_pack_folder",
    "load_corpora",
]
