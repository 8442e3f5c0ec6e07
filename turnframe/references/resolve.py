"""Resolution: bindings become resolved items at load time, before any provider call.

Every failure names the workflow, the slot and the slot's description. Items keep their bytes,
SHA-256 digest, media type, size, origin and the layer that bound them; an empty item is a
warning, returned with the result, not an exception.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath

import attrs

from turnframe._hashing import digest_bytes
from turnframe.references.bindings import (
    BindingLayer,
    FileSource,
    InlineSource,
    ReferenceBinding,
    ReferenceSource,
    effective_bindings,
)
from turnframe.references.errors import (
    MissingRequiredError,
    NotMultipleError,
    NotUtf8Error,
    TooLargeError,
    UnknownSlotError,
    UnreadableError,
    UnsupportedMediaTypeError,
)
from turnframe.references.slots import (
    ReferenceSlot,
    check_slots,
    describe_slots,
    is_text_media_type,
    media_type_for,
)
from turnframe.references.tokens import estimate_tokens

EMPTY_REFERENCE = "turnframe.reference.empty"


@attrs.frozen(kw_only=True)
class ReferenceOrigin:
    """Where an item came from: ``kind`` is ``file`` or ``inline``; ``display`` is what a person
    reads (the path as written, or the inline label); ``location`` is the absolute path."""

    kind: str
    display: str
    location: str


@attrs.frozen(kw_only=True)
class ReferenceItem:
    """Resolved content bound to a slot. Never evidence: it has no span in the user's text."""

    slot: str
    origin: ReferenceOrigin
    content: bytes = attrs.field(repr=False)
    digest: str
    media_type: str
    size_bytes: int
    layer: BindingLayer
    token_estimate: int

    @property
    def text(self) -> str:
        """The content as text (validated UTF-8 at resolution), without a leading BOM."""
        return self.content.decode("utf-8").removeprefix("\ufeff")


@attrs.frozen(kw_only=True)
class ResolvedSlot:
    """A declared slot and its items in binding order (none when unbound or cleared)."""

    slot: ReferenceSlot
    items: tuple[ReferenceItem, ...] = ()

    @property
    def bound(self) -> bool:
        """True when some item has non-blank text: an empty file counts as unbound in templates."""
        return any(item.text.strip() for item in self.items)


@attrs.frozen(kw_only=True)
class ReferenceWarning:
    """A load-time warning (``turnframe.reference.empty``): recorded, never raised."""

    code: str
    message: str
    workflow: str
    slot: str
    origin: str


@attrs.frozen(kw_only=True)
class ResolvedReferences:
    """Every declared slot of ``workflow`` in declaration order, bound or not, plus warnings."""

    workflow: str
    slots: tuple[ResolvedSlot, ...] = ()
    warnings: tuple[ReferenceWarning, ...] = ()

    def get(self, name: str) -> ResolvedSlot | None:
        return next((s for s in self.slots if s.slot.name == name), None)

    @property
    def items(self) -> tuple[ReferenceItem, ...]:
        """All items, slots in declaration order, items in binding order."""
        return tuple(item for s in self.slots for item in s.items)


def slot_context(workflow: str, slot: ReferenceSlot) -> str:
    """The phrase every message starts with."""
    return f"workflow {workflow!r}, reference slot {slot.name!r} ({slot.description})"


def resolve_references(
    *,
    workflow: str,
    slots: Sequence[ReferenceSlot],
    bindings: Iterable[ReferenceBinding],
) -> ResolvedReferences:
    """Resolve ``bindings`` (lowest layer first) against ``workflow``'s declared ``slots``.

    Raises a :class:`~turnframe.references.errors.ReferenceMaterialError` subclass for an unknown
    slot, a missing required slot, several items on a single-item slot, an unreadable file, a
    rejected media type, non-UTF-8 content or content over ``max_bytes``.
    """
    declared = check_slots(workflow, slots)
    names = {s.name for s in declared}
    relevant: list[ReferenceBinding] = []
    for binding in bindings:
        if binding.slot in names:
            relevant.append(binding)
        elif not binding.runtime_wide:
            raise _unknown_slot(workflow, declared, binding)
    winners = effective_bindings(relevant)
    resolved: list[ResolvedSlot] = []
    warnings: list[ReferenceWarning] = []
    for slot in declared:
        winner = winners.get(slot.name)
        _check_arity(workflow, slot, winner)
        if winner is None:
            resolved.append(ResolvedSlot(slot=slot))
            continue
        items = tuple(_read(workflow, slot, winner, source) for source in winner.sources)
        for item in items:
            if not item.text.strip():
                warnings.append(_empty_warning(workflow, slot, item))
        resolved.append(ResolvedSlot(slot=slot, items=items))
    return ResolvedReferences(workflow=workflow, slots=tuple(resolved), warnings=tuple(warnings))


def _unknown_slot(
    workflow: str, declared: Sequence[ReferenceSlot], binding: ReferenceBinding
) -> UnknownSlotError:
    return UnknownSlotError(
        f"workflow {workflow!r} declares no reference slot {binding.slot!r} "
        f"(bound by {binding.layer.value}: {binding.where}); declared slots: "
        f"{describe_slots(declared)}",
        workflow=workflow,
        slot=binding.slot,
        description=None,
        hint="bind one of the declared slots, or declare the slot on the workflow",
    )


def _check_arity(workflow: str, slot: ReferenceSlot, binding: ReferenceBinding | None) -> None:
    if binding is None or binding.cleared:
        if slot.required:
            how = (
                "is not bound"
                if binding is None
                else f"was cleared by {binding.layer.value} ({binding.where})"
            )
            raise MissingRequiredError(
                f"{slot_context(workflow, slot)} is required but {how}",
                workflow=workflow,
                slot=slot.name,
                description=slot.description,
                hint=f"bind it in turnframe.toml or with --reference {slot.name}=PATH",
            )
        return
    if len(binding.sources) > 1 and not slot.multiple:
        raise NotMultipleError(
            f"{slot_context(workflow, slot)} takes one item but {binding.layer.value} "
            f"({binding.where}) binds {len(binding.sources)}",
            workflow=workflow,
            slot=slot.name,
            description=slot.description,
            hint="bind a single file, or declare the slot with multiple=True",
        )


def _read(
    workflow: str, slot: ReferenceSlot, binding: ReferenceBinding, source: ReferenceSource
) -> ReferenceItem:
    context = slot_context(workflow, slot)
    if isinstance(source, FileSource):
        origin = ReferenceOrigin(kind="file", display=source.display, location=str(source.path))
        media_type = media_type_for(PurePath(source.path), slot)
    else:
        origin = ReferenceOrigin(kind="inline", display=source.label, location=source.label)
        media_type = source.media_type
    shown = f"{origin.display!r} (bound by {binding.layer.value}: {binding.where})"
    if not is_text_media_type(media_type) or media_type not in slot.media_types:
        raise UnsupportedMediaTypeError(
            f"{context}: {shown} is {media_type}; the slot accepts {', '.join(slot.media_types)}",
            workflow=workflow,
            slot=slot.name,
            description=slot.description,
            hint="only UTF-8 text is accepted; export the document as text"
            if not is_text_media_type(media_type)
            else "bind a file of an accepted type, or add the type to the slot's media_types",
        )
    content, total = _content(context, workflow, slot, source, shown)
    if total > slot.max_bytes:
        raise TooLargeError(
            f"{context}: {shown} is {total} bytes, over the slot's limit of {slot.max_bytes}",
            workflow=workflow,
            slot=slot.name,
            description=slot.description,
            hint="bind a shorter file, or raise max_bytes on the slot declaration",
        )
    try:
        content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8Error(
            f"{context}: {shown} is not UTF-8 text (byte {exc.start} cannot be decoded)",
            workflow=workflow,
            slot=slot.name,
            description=slot.description,
            hint="save the file as UTF-8",
        ) from exc
    return ReferenceItem(
        slot=slot.name,
        origin=origin,
        content=content,
        digest=digest_bytes(content),
        media_type=media_type,
        size_bytes=len(content),
        layer=binding.layer,
        token_estimate=estimate_tokens(content),
    )


def _content(
    context: str, workflow: str, slot: ReferenceSlot, source: ReferenceSource, shown: str
) -> tuple[bytes, int]:
    """The bytes and the total size; a file over the limit is never read whole."""
    if isinstance(source, InlineSource):
        return source.content, len(source.content)
    try:
        with source.path.open("rb") as handle:
            content = handle.read(slot.max_bytes + 1)
            total = os.fstat(handle.fileno()).st_size if len(content) > slot.max_bytes else 0
            return content, max(total, len(content))
    except OSError as exc:
        raise UnreadableError(
            f"{context}: cannot read {shown} at {str(source.path)!r}: "
            f"{exc.strerror or type(exc).__name__}",
            workflow=workflow,
            slot=slot.name,
            description=slot.description,
            hint="check the path; config paths are relative to the config file, "
            "--reference paths to the working directory",
        ) from exc


def _empty_warning(workflow: str, slot: ReferenceSlot, item: ReferenceItem) -> ReferenceWarning:
    return ReferenceWarning(
        code=EMPTY_REFERENCE,
        message=f"{slot_context(workflow, slot)}: {item.origin.display!r} is empty; "
        "templates treat the slot as unbound",
        workflow=workflow,
        slot=slot.name,
        origin=item.origin.display,
    )


def inline_references(
    *, workflow: str, slots: Sequence[ReferenceSlot], texts: Mapping[str, str | None]
) -> ResolvedReferences:
    """Resolve API-layer inline texts: a shortcut for tests and for content built in code."""
    bindings = [
        ReferenceBinding(
            slot=name,
            sources=()
            if text is None
            else (
                InlineSource(
                    content=text.encode("utf-8"),
                    label=f"inline:{name}",
                    media_type=_slot_media_type(slots, name),
                ),
            ),
            layer=BindingLayer.API,
            where="inline",
        )
        for name, text in texts.items()
    ]
    return resolve_references(workflow=workflow, slots=slots, bindings=bindings)


def _slot_media_type(slots: Sequence[ReferenceSlot], name: str) -> str:
    slot = next((s for s in slots if s.name == name), None)
    return slot.media_types[0] if slot else "text/plain"


def check_runtime_wide_bindings(
    bindings: Iterable[ReferenceBinding], slots_by_workflow: Mapping[str, Sequence[ReferenceSlot]]
) -> None:
    """A runtime-wide binding must name a slot some registered workflow declares.

    Call it once when the runtime starts; :func:`resolve_references` then skips runtime-wide
    bindings a given workflow does not declare.
    """
    declared = {s.name for slots in slots_by_workflow.values() for s in slots}
    for binding in bindings:
        if binding.runtime_wide and binding.slot not in declared:
            listing = "; ".join(
                f"{name}: {describe_slots(slots)}" for name, slots in slots_by_workflow.items()
            )
            raise UnknownSlotError(
                f"no registered workflow declares reference slot {binding.slot!r} "
                f"(bound by {binding.layer.value}: {binding.where}); declared slots by workflow: "
                f"{listing or 'no workflows registered'}",
                workflow=", ".join(slots_by_workflow) or "(none)",
                slot=binding.slot,
                description=None,
                hint="bind one of the declared slots, or remove the binding",
            )
