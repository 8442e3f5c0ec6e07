"""Packs: reviewed lexicons, one folder each (``manifest.json`` + ``lexicon.jsonl``).

A lexicon line is ``{"lemma", "surface", "pos", "semantic_domains": [...]}``; only ``lemma`` (or,
failing it, ``surface``) and a non-empty ``semantic_domains`` list are required. Lookups are by
the lemma's normalised key; the surface form is a second key so "refunds" can find "refund" when
the pack says so. When two lines define one lemma the **later line wins** (packs list inflected
forms after their base form) and the earlier one is reported as overridden. ``glosses.jsonl``
may sit in the folder; no surface uses glosses, so it is not read. Unknown keys in lines and
manifests are ignored so packs written for the seed project load.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from turnframe._hashing import digest
from turnframe.corpora.errors import (
    DUPLICATE_LEMMA,
    MISSING_FIELD,
    Drop,
    DropKind,
    MalformedManifestError,
)
from turnframe.corpora.jsonl import json_lines, malformed
from turnframe.corpora.keys import normalise_key


@attrs.frozen(kw_only=True)
class PackManifest:
    pack_id: str
    language: str
    version: str


@attrs.frozen(kw_only=True)
class LexiconEntry:
    lemma: str
    surface: str
    pos: str
    semantic_domains: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Pack:
    """A loaded pack: its manifest and entries by lemma key, in file order."""

    manifest: PackManifest
    entries: Mapping[str, LexiconEntry]
    source: str = "<memory>"

    @property
    def pack_id(self) -> str:
        return self.manifest.pack_id

    def entry(self, lemma: str) -> LexiconEntry | None:
        """The entry whose lemma is exactly ``lemma`` (after normalisation)."""
        return self.entries.get(normalise_key(lemma))

    def content_digest(self) -> str:
        return digest(
            "corpora.pack",
            {
                "manifest": attrs.asdict(self.manifest),
                "entries": [
                    [e.lemma, e.surface, e.pos, list(e.semantic_domains)]
                    for e in self.entries.values()
                ],
            },
        )


@attrs.frozen(kw_only=True)
class PackLoad:
    """A pack and the lexicon lines that did not make it in."""

    pack: Pack
    drops: tuple[Drop, ...]


def parse_manifest(text: str, *, source: str, default_id: str | None = None) -> PackManifest:
    """A pack manifest; ``pack_id`` falls back to ``default_id`` (the folder's name).

    ``language`` and ``version`` are optional (empty when absent); ``version`` may be a number.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedManifestError(f"{source}: not valid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise MalformedManifestError(f"{source}: a manifest is a JSON object")
    fields: dict[str, str] = {}
    for name in ("pack_id", "language", "version"):
        value = data.get(name)
        if name == "pack_id" and value is None:
            value = default_id
        elif value is None:
            value = ""
        if isinstance(value, int | float) and not isinstance(value, bool) and name == "version":
            value = str(value)
        if not isinstance(value, str) or (name == "pack_id" and not value.strip()):
            raise MalformedManifestError(
                f"{source}: field {name!r} is not a non-empty string",
                hint='a pack manifest is {"pack_id": "...", "language": "en", "version": "1"}',
            )
        fields[name] = value.strip()
    return PackManifest(**fields)


def parse_lexicon(text: str, *, manifest: PackManifest, source: str = "<memory>") -> PackLoad:
    """Parse ``lexicon.jsonl`` text. The last line for a lemma wins; earlier ones are reported."""
    return _build(json_lines(text, source=source), manifest=manifest, source=source)


def pack_from_entries(
    manifest: PackManifest, entries: Iterable[Mapping[str, Any]], *, source: str = "<memory>"
) -> PackLoad:
    """Build a pack from in-memory lexicon records, through the same gates as a file."""
    numbered = ((number, record) for number, record in enumerate(entries, start=1))
    return _build(numbered, manifest=manifest, source=source)


def _build(
    lines: Iterable[tuple[int, Mapping[str, Any] | Drop]], *, manifest: PackManifest, source: str
) -> PackLoad:
    entries: dict[str, LexiconEntry] = {}
    line_of: dict[str, int] = {}
    drops: list[Drop] = []
    for number, record in lines:
        entry = record if isinstance(record, Drop) else _entry(record, source=source, line=number)
        if isinstance(entry, Drop):
            drops.append(entry)
            continue
        key = normalise_key(entry.lemma)
        if key in entries:
            drops.append(
                Drop(
                    source=source,
                    line=line_of[key],
                    code=DUPLICATE_LEMMA,
                    kind=DropKind.OVERRIDDEN,
                    reason=f"lemma {entries[key].lemma!r} is redefined on line {number}, "
                    "which wins",
                )
            )
        entries[key] = entry
        line_of[key] = number
    drops.sort(key=lambda d: d.line)
    return PackLoad(
        pack=Pack(manifest=manifest, entries=entries, source=source), drops=tuple(drops)
    )


def _entry(record: Mapping[str, Any], *, source: str, line: int) -> LexiconEntry | Drop:
    # Only the lemma (or the surface form standing in for it) and the domains are needed.
    texts = {name: _text(record.get(name)) for name in ("lemma", "surface", "pos")}
    lemma = texts["lemma"] or texts["surface"]
    if not lemma:
        return malformed(
            source, line, "field 'lemma' (or 'surface') is missing or empty", MISSING_FIELD
        )
    domains = record.get("semantic_domains")
    if (
        not isinstance(domains, list)
        or not domains
        or not all(isinstance(d, str) and d.strip() for d in domains)
    ):
        return malformed(
            source,
            line,
            "field 'semantic_domains' is missing or not a non-empty list of non-empty strings",
            MISSING_FIELD,
        )
    unique = tuple(dict.fromkeys(d.strip() for d in domains))
    return LexiconEntry(
        lemma=" ".join(lemma.split()),
        surface=" ".join((texts["surface"] or lemma).split()),
        pos=texts["pos"],
        semantic_domains=unique,
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
