"""Builders for small in-memory packs and corpora (imported by the corpora tests)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from turnframe.corpora import CorpusRegistry, Pack, PackManifest, pack_from_entries


def lexicon(*lemmas: str, domain_prefix: str = "test") -> list[dict[str, Any]]:
    """One entry per lemma, with two domains: ``<prefix>.<lemma>`` and ``<prefix>.core``."""
    return [
        {
            "lemma": lemma,
            "surface": lemma,
            "pos": "noun",
            "semantic_domains": [f"{domain_prefix}.{lemma}", f"{domain_prefix}.core"],
        }
        for lemma in lemmas
    ]


def make_pack(pack_id: str, *lemmas: str) -> Pack:
    manifest = PackManifest(pack_id=pack_id, language="en", version="1")
    return pack_from_entries(manifest, lexicon(*lemmas, domain_prefix=pack_id)).pack


def chain(
    chain_id: str, subject: str, connective: str, obj: str, intent: str = "cause", **extra: Any
) -> dict[str, Any]:
    return {
        "chain_id": chain_id,
        "subject": subject,
        "intent": intent,
        "connective": connective,
        "object": obj,
        "provenance": "test review",
        **extra,
    }


def registry_of(*corpora: tuple[Pack, str, Iterable[Mapping[str, Any]]]) -> CorpusRegistry:
    """A registry of (pack, corpus_id, chain records), registered in the order given."""
    registry = CorpusRegistry()
    for pack, corpus_id, records in corpora:
        registry.register(pack=pack, corpus=list(records), corpus_id=corpus_id, strict=True)
    return registry
