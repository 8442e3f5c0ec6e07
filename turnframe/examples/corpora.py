"""The sample desks' reviewed policy corpora, shipped as package data.

``turnframe/examples/data/`` follows the corpora layout (``packs/<pack_id>/``,
``teaching/<corpus_id>.jsonl`` with its manifest), so ``turnframe corpus check`` reads it too.
Registration goes through :meth:`CorpusRegistry.register`, which applies every load gate.
"""

from __future__ import annotations

import functools
from importlib import resources
from importlib.resources.abc import Traversable

from turnframe.corpora import (
    CorpusLoad,
    CorpusRegistry,
    MalformedManifestError,
    PackLoad,
    RegistrationReport,
)
from turnframe.corpora.loader import MANIFEST_SUFFIX, load_pack, load_teaching_file
from turnframe.corpora.loader import read_corpus_manifest as _read_manifest

TRAVEL_POLICY = "travel_policy_chains_v1"
REFUND_POLICY = "refund_policy_chains_v1"


def data_folder() -> Traversable:
    return resources.files("turnframe.examples") / "data"


@functools.cache
def load_policy_corpus(corpus_id: str) -> tuple[PackLoad, CorpusLoad]:
    """One shipped sample corpus and the pack its manifest binds it to (parsed once)."""
    teaching = data_folder() / "teaching"
    corpus_file = teaching / f"{corpus_id}.jsonl"
    manifest = _read_manifest(corpus_file, teaching / f"{corpus_id}{MANIFEST_SUFFIX}")
    if manifest.pack_id is None:
        raise MalformedManifestError(f"sample corpus {corpus_id!r}: its manifest names no pack_id")
    pack = load_pack(data_folder() / "packs" / manifest.pack_id)
    corpus = load_teaching_file(corpus_file, pack=pack.pack, corpus_id=manifest.corpus_id)
    return pack, corpus


def register_policy_corpus(registry: CorpusRegistry, corpus_id: str) -> RegistrationReport:
    """Register a sample corpus strictly: a defect in the shipped data is a bug, not a drop."""
    pack, corpus = load_policy_corpus(corpus_id)
    return registry.register(pack=pack, corpus=corpus, strict=True)
