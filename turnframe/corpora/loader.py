"""Reading packs and teaching corpora from files: the only I/O in ``turnframe.corpora``.

Layout (the shipped data in ``turnframe/corpora/data/`` follows it)::

    packs/<pack_id>/manifest.json        {"pack_id", "language", "version", ...}
    packs/<pack_id>/lexicon.jsonl        one lexicon entry per line
    teaching/<corpus_id>.jsonl           one reviewed chain per line
    teaching/<corpus_id>.manifest.json   {"corpus_id", "pack_id", "pack_path", "extra_pack_paths"}

The corpus manifest sits next to the corpus file and binds it to its pack: ``pack_path`` (and
each of ``extra_pack_paths``, for cross-pack chains) is a pack folder relative to the manifest.
Without a manifest the corpus id is the file's stem and the pack must be given by the caller.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import attrs

from turnframe.corpora.errors import CorpusFileError, MalformedManifestError
from turnframe.corpora.packs import Pack, PackLoad, parse_lexicon, parse_manifest
from turnframe.corpora.teaching import CorpusLoad, parse_teaching

#: The shipped teaching corpora, in registration order (earlier wins on a collision).
SHIPPED_CORPORA: tuple[str, ...] = ("cognition_chains_v1", "relations_chains_v2")

MANIFEST_SUFFIX = ".manifest.json"


@attrs.frozen(kw_only=True)
class CorpusManifest:
    corpus_id: str
    pack_id: str | None = None
    pack_path: str | None = None
    extra_pack_paths: tuple[str, ...] = ()


def load_pack(folder: Traversable) -> PackLoad:
    """Load a pack folder (``manifest.json`` + ``lexicon.jsonl``)."""
    manifest_file = folder / "manifest.json"
    lexicon_file = folder / "lexicon.jsonl"
    manifest = parse_manifest(
        read_text(manifest_file), source=str(manifest_file), default_id=folder.name
    )
    return parse_lexicon(read_text(lexicon_file), manifest=manifest, source=str(lexicon_file))


def manifest_path_for(corpus_file: Path) -> Path:
    return corpus_file.with_name(corpus_file.name.removesuffix(".jsonl") + MANIFEST_SUFFIX)


def read_corpus_manifest(corpus_file: Traversable, manifest_file: Traversable) -> CorpusManifest:
    """The manifest next to ``corpus_file``, or a default one (id = file stem) if there is none."""
    stem = corpus_file.name.removesuffix(".jsonl")
    if not manifest_file.is_file():
        return CorpusManifest(corpus_id=stem)
    source = str(manifest_file)
    try:
        data = json.loads(read_text(manifest_file))
    except json.JSONDecodeError as exc:
        raise MalformedManifestError(f"{source}: not valid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise MalformedManifestError(f"{source}: a manifest is a JSON object")
    extra = data.get("extra_pack_paths", [])
    texts = {name: data.get(name) for name in ("corpus_id", "pack_id", "pack_path")}
    if not all(v is None or (isinstance(v, str) and v.strip()) for v in texts.values()) or not (
        isinstance(extra, list) and all(isinstance(p, str) and p.strip() for p in extra)
    ):
        raise MalformedManifestError(
            f"{source}: corpus_id, pack_id and pack_path are non-empty strings and "
            "extra_pack_paths a list of them"
        )
    return CorpusManifest(
        corpus_id=texts["corpus_id"] or stem,
        pack_id=texts["pack_id"],
        pack_path=texts["pack_path"],
        extra_pack_paths=tuple(extra),
    )


def load_teaching_file(
    corpus_file: Traversable,
    *,
    pack: Pack,
    packs: Mapping[str, Pack] | None = None,
    corpus_id: str | None = None,
) -> CorpusLoad:
    """Load one teaching-corpus file bound to ``pack`` (``packs`` serve cross-pack chains)."""
    return parse_teaching(
        read_text(corpus_file),
        corpus_id=corpus_id or corpus_file.name.removesuffix(".jsonl"),
        pack=pack,
        packs=packs,
        source=str(corpus_file),
    )


def shipped_data() -> Traversable:
    return resources.files("turnframe.corpora") / "data"


@functools.cache
def load_shipped() -> tuple[tuple[PackLoad, CorpusLoad], ...]:
    """The shipped packs and corpora, in registration order (parsed once per process)."""
    data = shipped_data()
    loaded: list[tuple[PackLoad, CorpusLoad]] = []
    for corpus_id in SHIPPED_CORPORA:
        corpus_file = data / "teaching" / f"{corpus_id}.jsonl"
        manifest = read_corpus_manifest(
            corpus_file, data / "teaching" / f"{corpus_id}{MANIFEST_SUFFIX}"
        )
        if manifest.pack_id is None:
            raise MalformedManifestError(f"shipped corpus {corpus_id!r} names no pack_id")
        pack_load = load_pack(data / "packs" / manifest.pack_id)
        corpus_load = load_teaching_file(corpus_file, pack=pack_load.pack, corpus_id=corpus_id)
        loaded.append((pack_load, corpus_load))
    return tuple(loaded)


def read_text(file: Traversable) -> str:
    """The UTF-8 text of ``file``; a missing or unreadable file is a :class:`CorpusFileError`."""
    try:
        return file.read_text(encoding="utf-8")
    except OSError as exc:
        raise CorpusFileError(
            f"{file}: cannot read ({exc.strerror or type(exc).__name__})",
            hint="check the path; a pack is a folder with manifest.json and lexicon.jsonl",
        ) from exc
    except UnicodeDecodeError as exc:
        raise CorpusFileError(f"{file}: not UTF-8 text") from exc
