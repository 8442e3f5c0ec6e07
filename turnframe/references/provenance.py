"""Provenance: what the replay record keeps about references, and the digest for cache keys.

The record holds, per bound item: slot, origin as displayed, content digest, media type, size,
layer and token estimate; never the content. The key contribution covers slot names, digests and
media types in declaration order, and nothing that does not change what the interpreter sees
(not the path, not the layer): the same bytes from another path interpret the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from turnframe._hashing import digest
from turnframe.references.bindings import BindingLayer
from turnframe.references.relatedness import RelatednessWarning
from turnframe.references.resolve import ReferenceWarning, ResolvedReferences
from turnframe.references.template import PromptTemplate


@attrs.frozen(kw_only=True)
class ReferenceProvenance:
    """One bound item as the replay record shows it."""

    slot: str
    item: int
    origin: str
    origin_kind: str
    digest: str
    media_type: str
    size_bytes: int
    layer: BindingLayer
    token_estimate: int


@attrs.frozen(kw_only=True)
class ReferenceRecord:
    """The replay record's reference section for one interpretation."""

    workflow: str
    template_name: str | None
    template_hash: str | None
    reference_digest: str
    references: tuple[ReferenceProvenance, ...]
    warnings: tuple[ReferenceWarning, ...] = ()
    relatedness: tuple[RelatednessWarning, ...] = ()


def provenance_of(references: ResolvedReferences) -> tuple[ReferenceProvenance, ...]:
    """Every bound item, slots in declaration order, items in binding order."""
    return tuple(
        ReferenceProvenance(
            slot=item.slot,
            item=index,
            origin=item.origin.display,
            origin_kind=item.origin.kind,
            digest=item.digest,
            media_type=item.media_type,
            size_bytes=item.size_bytes,
            layer=item.layer,
            token_estimate=item.token_estimate,
        )
        for resolved in references.slots
        for index, item in enumerate(resolved.items)
    )


def reference_digest(references: ResolvedReferences) -> str:
    """The references' part of an interpretation cache or idempotency key.

    Changes when any bound byte, media type or slot assignment changes; an unbound slot and a
    cleared one contribute the same (nothing).
    """
    return digest(
        "reference_set",
        [
            [s.slot.name, [[item.digest, item.media_type] for item in s.items]]
            for s in references.slots
            if s.items
        ],
    )


def slot_digests(references: ResolvedReferences) -> dict[str, str]:
    """Bound slot name → digest, declaration order (``ProviderRequest.reference_digests``).

    A slot with one item gives that item's plain SHA-256, so it equals ``sha256sum FILE``; a
    slot with several gives a digest over their digests and media types, in binding order.
    """
    out: dict[str, str] = {}
    for s in references.slots:
        if len(s.items) == 1:
            out[s.slot.name] = s.items[0].digest
        elif s.items:
            out[s.slot.name] = digest(
                "reference_slot", [[item.digest, item.media_type] for item in s.items]
            )
    return out


def reference_record(
    references: ResolvedReferences,
    *,
    template: PromptTemplate | None = None,
    relatedness: Sequence[RelatednessWarning] = (),
) -> ReferenceRecord:
    """The record of one interpretation: provenance, digests, load and relatedness warnings."""
    return ReferenceRecord(
        workflow=references.workflow,
        template_name=template.name if template else None,
        template_hash=template.template_hash if template else None,
        reference_digest=reference_digest(references),
        references=provenance_of(references),
        warnings=references.warnings,
        relatedness=tuple(relatedness),
    )
