"""Teaching corpora: reviewed chains, one JSON object per line, with append-only supersession.

A chain line is ``{"chain_id", "subject", "intent" ("cause" | "verification"), "connective",
"object", "provenance", optional "superseded_by", "subject_pack_id", "object_pack_id"}``.

Supersession is append-only: a line carrying ``superseded_by`` retires its ``chain_id``. That is
either the chain's own line or a later *retirement record* repeating the id (it needs only
``chain_id`` and ``superseded_by``; a full restatement is accepted too). ``superseded_by`` must
name a chain of the same corpus. The file is never rewritten; the active view is derived here.

Load gates, in order: well-formed JSON object; non-empty fields; known intent; unique chain id;
subject and object present in their pack (the bound pack unless the line names another); not
retired. Every line that fails a gate comes back as a :class:`Drop`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from turnframe.corpora.errors import (
    DUPLICATE_CHAIN_ID,
    MISSING_FIELD,
    OBJECT_NOT_IN_PACK,
    SELF_SUPERSESSION,
    SUBJECT_NOT_IN_PACK,
    SUPERSEDED,
    UNKNOWN_INTENT,
    UNKNOWN_PACK,
    UNKNOWN_RETIRED,
    UNKNOWN_SUCCESSOR,
    Drop,
    DropKind,
)
from turnframe.corpora.jsonl import json_lines, malformed, optional_text, required_text
from turnframe.corpora.keys import normalise_key
from turnframe.corpora.packs import Pack

_CHAIN_FIELDS = ("subject", "intent", "connective", "object")


class ChainIntent(enum.Enum):
    CAUSE = "cause"
    VERIFICATION = "verification"


@attrs.frozen(kw_only=True)
class Chain:
    """One active reviewed chain. ``subject``/``object`` are lemma keys in their packs."""

    chain_id: str
    subject: str
    intent: ChainIntent
    connective: str
    object: str
    provenance: str
    subject_pack_id: str
    object_pack_id: str
    line: int


@attrs.frozen(kw_only=True)
class TeachingCorpus:
    """The active view of one teaching corpus, in file order, bound to one pack."""

    corpus_id: str
    pack_id: str
    chains: tuple[Chain, ...]
    source: str = "<memory>"


@attrs.frozen(kw_only=True)
class CorpusLoad:
    corpus: TeachingCorpus
    drops: tuple[Drop, ...]

    @property
    def defects(self) -> tuple[Drop, ...]:
        return tuple(d for d in self.drops if d.is_defect)


def parse_teaching(
    text: str,
    *,
    corpus_id: str,
    pack: Pack,
    packs: Mapping[str, Pack] | None = None,
    source: str = "<memory>",
) -> CorpusLoad:
    """Load teaching-corpus JSONL text bound to ``pack``; ``packs`` serve cross-pack chains."""
    return _load(json_lines(text, source=source), corpus_id, pack, packs, source)


def corpus_from_records(
    records: Iterable[Mapping[str, Any]],
    *,
    corpus_id: str,
    pack: Pack,
    packs: Mapping[str, Pack] | None = None,
    source: str = "<memory>",
) -> CorpusLoad:
    """Load in-memory chain records through exactly the gates a file goes through."""
    numbered = ((number, record) for number, record in enumerate(records, start=1))
    return _load(numbered, corpus_id, pack, packs, source)


@attrs.frozen
class _Retirement:
    successor: str
    line: int


def _load(
    lines: Iterable[tuple[int, Mapping[str, Any] | Drop]],
    corpus_id: str,
    pack: Pack,
    packs: Mapping[str, Pack] | None,
    source: str,
) -> CorpusLoad:
    available = {**(packs or {}), pack.pack_id: pack}
    drops: list[Drop] = []
    candidates: list[Chain] = []
    chain_lines: dict[str, int] = {}
    retired: dict[str, _Retirement] = {}
    retirement_records: list[tuple[str, int]] = []
    for number, record in lines:
        if isinstance(record, Drop):
            drops.append(record)
            continue
        chain_id = required_text(record, "chain_id", source=source, line=number)
        if isinstance(chain_id, Drop):
            drops.append(chain_id)
            continue
        successor = optional_text(record, "superseded_by", source=source, line=number)
        if isinstance(successor, Drop):
            drops.append(successor)
            continue
        if successor == chain_id:
            drops.append(
                malformed(
                    source, number, f"chain {chain_id!r} supersedes itself", SELF_SUPERSESSION
                )
            )
            continue
        if successor is not None:
            # Retirement holds even if the rest of the line is bad: fail towards fewer chains.
            retired.setdefault(chain_id, _Retirement(successor=successor, line=number))
            if chain_id in chain_lines or not any(name in record for name in _CHAIN_FIELDS):
                retirement_records.append((chain_id, number))
                continue
        if chain_id in chain_lines:
            drops.append(
                malformed(
                    source,
                    number,
                    f"chain id {chain_id!r} already used on line {chain_lines[chain_id]}",
                    DUPLICATE_CHAIN_ID,
                )
            )
            continue
        chain_lines[chain_id] = number
        chain = _chain(record, chain_id, number, pack.pack_id, source)
        if isinstance(chain, Drop):
            drops.append(chain)
        else:
            candidates.append(chain)

    for chain_id, number in retirement_records:
        if chain_id not in chain_lines:
            drops.append(
                malformed(
                    source,
                    number,
                    f"retirement record names {chain_id!r}, which is no chain in this corpus",
                    UNKNOWN_RETIRED,
                )
            )
    for retirement in retired.values():
        if retirement.successor not in chain_lines:
            drops.append(
                malformed(
                    source,
                    retirement.line,
                    f"superseded_by names {retirement.successor!r}, "
                    "which is no chain in this corpus",
                    UNKNOWN_SUCCESSOR,
                )
            )

    active: list[Chain] = []
    for chain in candidates:
        gate = _pack_gate(chain, available, source)
        if gate is not None:
            drops.append(gate)
        elif chain.chain_id in retired:
            retirement = retired[chain.chain_id]
            drops.append(
                Drop(
                    source=source,
                    line=chain.line,
                    code=SUPERSEDED,
                    kind=DropKind.RETIRED,
                    reason=(
                        f"chain {chain.chain_id!r} retired: superseded by "
                        f"{retirement.successor!r} (line {retirement.line})"
                    ),
                )
            )
        else:
            active.append(chain)

    drops.sort(key=lambda d: d.line)
    corpus = TeachingCorpus(
        corpus_id=corpus_id, pack_id=pack.pack_id, chains=tuple(active), source=source
    )
    return CorpusLoad(corpus=corpus, drops=tuple(drops))


def _chain(
    record: Mapping[str, Any], chain_id: str, line: int, pack_id: str, source: str
) -> Chain | Drop:
    texts: dict[str, str] = {}
    for name in _CHAIN_FIELDS:
        value = required_text(record, name, source=source, line=line)
        if isinstance(value, Drop):
            return value
        texts[name] = value
    provenance = _provenance(record.get("provenance"))
    if provenance is None:
        return malformed(source, line, "field 'provenance' is missing or empty", MISSING_FIELD)
    try:
        intent = ChainIntent(texts["intent"].casefold())
    except ValueError:
        known = ", ".join(i.value for i in ChainIntent)
        return malformed(
            source, line, f"unknown intent {texts['intent']!r} (known: {known})", UNKNOWN_INTENT
        )
    pack_ids: dict[str, str] = {}
    for name in ("subject_pack_id", "object_pack_id"):
        named = optional_text(record, name, source=source, line=line)
        if isinstance(named, Drop):
            return named
        pack_ids[name] = named or pack_id
    return Chain(
        chain_id=chain_id,
        subject=normalise_key(texts["subject"]),
        intent=intent,
        connective=" ".join(texts["connective"].split()),
        object=normalise_key(texts["object"]),
        provenance=provenance,
        subject_pack_id=pack_ids["subject_pack_id"],
        object_pack_id=pack_ids["object_pack_id"],
        line=line,
    )


def _provenance(value: Any) -> str | None:
    """Provenance is any non-empty JSON value; non-strings are kept as their JSON text."""
    if isinstance(value, str):
        return value.strip() or None
    if value is None or value == {} or value == []:
        return None
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _pack_gate(chain: Chain, packs: Mapping[str, Pack], source: str) -> Drop | None:
    for role, lemma, pack_id, code in (
        ("subject", chain.subject, chain.subject_pack_id, SUBJECT_NOT_IN_PACK),
        ("object", chain.object, chain.object_pack_id, OBJECT_NOT_IN_PACK),
    ):
        pack = packs.get(pack_id)
        if pack is None:
            return Drop(
                source=source,
                line=chain.line,
                code=UNKNOWN_PACK,
                kind=DropKind.GATED,
                reason=f"{role} pack {pack_id!r} is not loaded",
            )
        if lemma not in pack.entries:
            return Drop(
                source=source,
                line=chain.line,
                code=code,
                kind=DropKind.GATED,
                reason=f"{role} {lemma!r} is not in pack {pack_id!r}",
            )
    return None
