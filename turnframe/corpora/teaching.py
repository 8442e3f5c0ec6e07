"""Teaching corpora: reviewed chains, one JSON object per line, with append-only supersession.

A chain line is ``{"chain_id", "subject", "intent" ("cause" | "verification"), "connective",
"object", "provenance", optional "superseded_by", "subject_pack_id", "object_pack_id",
"domains_subject_k", "domains_object_k"}``. Only subject, intent, connective and object are
required: a missing ``chain_id`` is ``{subject}_{intent}``, a missing provenance is empty, and the
two ``domains_*_k`` (how many of the subject's / object's semantic domains a surface shows)
default to the registry's composition settings.

Supersession is append-only, as in the seed project: ``superseded_by`` sits on the *replacement*
line (or on a bare retirement record ``{"superseded_by": ...}``) and names the chain it retires.
Every line that parses as a JSON object can retire a chain, whatever else is wrong with it, so a
typo elsewhere in the line never brings a retired chain back. The active view is derived here.

A later line reusing a chain id replaces the earlier one. An intent this engine does not compose
skips that line only. Every left-out line comes back as a :class:`Drop` with its reason.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from turnframe.corpora.errors import (
    DUPLICATE_CHAIN_ID,
    INVALID_FIELD,
    OBJECT_NOT_IN_PACK,
    SELF_SUPERSESSION,
    SUBJECT_NOT_IN_PACK,
    SUPERSEDED,
    UNKNOWN_INTENT,
    UNKNOWN_PACK,
    UNKNOWN_RETIRED,
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
    """One active reviewed chain. ``subject``/``object`` are lemma keys in their packs.

    ``connective`` is as written (whitespace collapsed): it sorts and deduplicates as written and
    is humanised only when shown ("belongs_to" reads "belongs to"). ``domains_subject_k`` /
    ``domains_object_k`` are the line's own domain counts, ``None`` for the registry's defaults.
    """

    chain_id: str
    subject: str
    intent: ChainIntent
    connective: str
    object: str
    provenance: str
    subject_pack_id: str
    object_pack_id: str
    line: int
    domains_subject_k: int | None = None
    domains_object_k: int | None = None


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


def _load(
    lines: Iterable[tuple[int, Mapping[str, Any] | Drop]],
    corpus_id: str,
    pack: Pack,
    packs: Mapping[str, Pack] | None,
    source: str,
) -> CorpusLoad:
    available = {**(packs or {}), pack.pack_id: pack}
    drops: list[Drop] = []
    claims: dict[str, _Claim] = {}  # retired chain id → the first line naming it
    winners: dict[str, Chain] = {}  # chain id → its last line
    seen_ids: set[str] = set()
    for number, record in lines:
        if isinstance(record, Drop):
            drops.append(record)
            continue
        claim = _claim(record, source=source, line=number)
        if isinstance(claim, Drop):
            drops.append(claim)
            continue
        if claim is not None:
            claims.setdefault(claim.retired, claim)
            if not any(name in record for name in _CHAIN_FIELDS):
                continue  # a bare retirement record: it retires, it is no chain
        chain = _chain(record, number, pack.pack_id, source)
        if isinstance(chain, Drop):
            drops.append(chain)
            named = record.get("chain_id")
            if isinstance(named, str) and named.strip():
                seen_ids.add(named.strip())
            continue
        seen_ids.add(chain.chain_id)
        earlier = winners.get(chain.chain_id)
        if earlier is not None:
            drops.append(
                Drop(
                    source=source,
                    line=earlier.line,
                    code=DUPLICATE_CHAIN_ID,
                    kind=DropKind.OVERRIDDEN,
                    reason=f"chain id {chain.chain_id!r} is reused on line {number}, which wins",
                )
            )
            del winners[chain.chain_id]  # keep the winners in file order
        winners[chain.chain_id] = chain

    for claim in claims.values():
        if claim.retired == claim.by:
            drops.append(
                malformed(
                    source,
                    claim.line,
                    f"chain {claim.retired!r} names itself in superseded_by, which retires it",
                    SELF_SUPERSESSION,
                )
            )
        elif claim.retired not in seen_ids:
            drops.append(
                malformed(
                    source,
                    claim.line,
                    f"superseded_by names {claim.retired!r}, which is no chain in this corpus; "
                    "nothing is retired",
                    UNKNOWN_RETIRED,
                )
            )

    active: list[Chain] = []
    for chain in winners.values():
        gate = _pack_gate(chain, available, source)
        claim = claims.get(chain.chain_id)
        if gate is not None:
            drops.append(gate)
        elif claim is None:
            active.append(chain)
        elif claim.by != chain.chain_id:  # a self-retirement is reported once, above
            replacement = f"superseded by {claim.by!r} " if claim.by else ""
            drops.append(
                Drop(
                    source=source,
                    line=chain.line,
                    code=SUPERSEDED,
                    kind=DropKind.RETIRED,
                    reason=f"chain {chain.chain_id!r} retired: {replacement}(line {claim.line})",
                )
            )

    drops.sort(key=lambda d: d.line)
    corpus = TeachingCorpus(
        corpus_id=corpus_id, pack_id=pack.pack_id, chains=tuple(active), source=source
    )
    return CorpusLoad(corpus=corpus, drops=tuple(drops))


@attrs.frozen
class _Claim:
    """A line's ``superseded_by``: the chain it retires, that line, and the line's own id."""

    retired: str
    line: int
    by: str | None


def _claim(record: Mapping[str, Any], *, source: str, line: int) -> _Claim | Drop | None:
    named = optional_text(record, "superseded_by", source=source, line=line)
    if named is None or isinstance(named, Drop):
        return named
    own = record.get("chain_id")
    return _Claim(
        retired=named, line=line, by=own.strip() if isinstance(own, str) and own.strip() else None
    )


def _chain(record: Mapping[str, Any], line: int, pack_id: str, source: str) -> Chain | Drop:
    texts: dict[str, str] = {}
    for name in _CHAIN_FIELDS:
        value = required_text(record, name, source=source, line=line)
        if isinstance(value, Drop):
            return value
        texts[name] = value
    try:
        intent = ChainIntent(texts["intent"].casefold())
    except ValueError:
        known = ", ".join(i.value for i in ChainIntent)
        return Drop(
            source=source,
            line=line,
            code=UNKNOWN_INTENT,
            kind=DropKind.UNSUPPORTED,
            reason=f"intent {texts['intent']!r} is not composed here (known: {known}); "
            "line skipped",
        )
    subject = normalise_key(texts["subject"])
    named: dict[str, str | None] = {}
    for name in ("chain_id", "subject_pack_id", "object_pack_id"):
        text = optional_text(record, name, source=source, line=line)
        if isinstance(text, Drop):
            return text
        named[name] = text
    ks: dict[str, int | None] = {}
    for name in ("domains_subject_k", "domains_object_k"):
        k = _domains_k(record, name, source=source, line=line)
        if isinstance(k, Drop):
            return k
        ks[name] = k
    return Chain(
        chain_id=named["chain_id"] or f"{subject}_{intent.value}",
        subject=subject,
        intent=intent,
        connective=" ".join(texts["connective"].split()),
        object=normalise_key(texts["object"]),
        provenance=_provenance(record.get("provenance")),
        subject_pack_id=named["subject_pack_id"] or pack_id,
        object_pack_id=named["object_pack_id"] or pack_id,
        line=line,
        domains_subject_k=ks["domains_subject_k"],
        domains_object_k=ks["domains_object_k"],
    )


def _domains_k(
    record: Mapping[str, Any], name: str, *, source: str, line: int
) -> int | Drop | None:
    """A whole number of domains to show, at least 1; absent or null is ``None`` (the default)."""
    value = record.get(name)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        return malformed(
            source, line, f"field {name!r} is not a whole number: {value!r}", INVALID_FIELD
        )
    return max(1, value)


def _provenance(value: Any) -> str:
    """Provenance is optional and any JSON value; non-strings are kept as their JSON text."""
    if isinstance(value, str):
        return value.strip()
    if value is None or value == {} or value == []:
        return ""
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
