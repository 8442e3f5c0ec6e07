"""What a workflow accepts and what is bound to it, without reading any file.

For ``turnframe … --describe``-style views: declared slots with descriptions and required flags,
and the binding each one would get from the layers given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from turnframe.references.bindings import (
    BindingLayer,
    FileSource,
    ReferenceBinding,
    effective_bindings,
)
from turnframe.references.slots import ReferenceSlot


@attrs.frozen(kw_only=True)
class SlotStatus:
    name: str
    description: str
    required: bool
    multiple: bool
    media_types: tuple[str, ...]
    layer: BindingLayer | None
    where: str | None
    origins: tuple[str, ...]


def describe_bindings(
    slots: Sequence[ReferenceSlot], bindings: Iterable[ReferenceBinding]
) -> tuple[SlotStatus, ...]:
    """One status per declared slot, in declaration order; bindings of other slots are ignored
    here (:func:`~turnframe.references.resolve.resolve_references` reports them)."""
    winners = effective_bindings(b for b in bindings if b.slot in {s.name for s in slots})
    statuses = []
    for slot in slots:
        binding = winners.get(slot.name)
        statuses.append(
            SlotStatus(
                name=slot.name,
                description=slot.description,
                required=slot.required,
                multiple=slot.multiple,
                media_types=slot.media_types,
                layer=binding.layer if binding else None,
                where=binding.where if binding else None,
                origins=tuple(
                    s.display if isinstance(s, FileSource) else s.label
                    for s in (binding.sources if binding else ())
                ),
            )
        )
    return tuple(statuses)
