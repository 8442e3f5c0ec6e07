"""Reference slots: the named inputs a workflow's interpreter accepts.

A workflow declares slots; bindings (config, API, CLI) fill them. The framework never knows what a
slot means: "glossary" or "roster" is a name and a description the workflow chose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import PurePath

import attrs

from turnframe.references.errors import DuplicateSlotError, InvalidSlotError

#: Slot names: lower case, digits, ``_`` and ``-``; they appear in TOML keys and ``NAME=PATH``.
SLOT_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")

#: The default ceiling for one bound item (256 KiB, about 64k tokens).
DEFAULT_MAX_BYTES = 256 * 1024

#: Media type by file suffix. A fixed table, not :mod:`mimetypes`, so the answer does not depend
#: on the machine. Suffixes not listed take the slot's first accepted media type.
MEDIA_TYPE_BY_SUFFIX: dict[str, str] = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".zip": "application/zip",
}


def is_text_media_type(media_type: str) -> bool:
    """Only UTF-8 text is accepted for now."""
    return media_type.startswith("text/")


def _check_name(instance: ReferenceSlot, attribute: attrs.Attribute[str], value: str) -> None:
    if not SLOT_NAME.match(value):
        raise InvalidSlotError(
            f"reference slot name {value!r} is not valid",
            workflow="(declaration)",
            slot=value,
            description=instance.description,
            hint="use lower case letters, digits, '_' or '-', starting with a letter",
        )


def _check_media_types(
    instance: ReferenceSlot, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]
) -> None:
    bad = [m for m in value if not is_text_media_type(m)]
    if not value or bad:
        raise InvalidSlotError(
            f"reference slot {instance.name!r} ({instance.description}) accepts "
            f"{', '.join(bad) or 'no media type'}; only text media types are supported",
            workflow="(declaration)",
            slot=instance.name,
            description=instance.description,
            hint="declare one or more text/* media types, e.g. ('text/plain', 'text/markdown')",
        )


def _positive(instance: ReferenceSlot, attribute: attrs.Attribute[int], value: int) -> None:
    if value <= 0:
        raise InvalidSlotError(
            f"reference slot {instance.name!r} ({instance.description}) has max_bytes={value}",
            workflow="(declaration)",
            slot=instance.name,
            description=instance.description,
            hint="max_bytes must be a positive number of bytes",
        )


def _non_blank(instance: ReferenceSlot, attribute: attrs.Attribute[str], value: str) -> None:
    if not value.strip():
        raise InvalidSlotError(
            f"reference slot {instance.name!r} has no description",
            workflow="(declaration)",
            slot=instance.name,
            description=None,
            hint="every slot needs a one-line description: it is shown in every error about it",
        )


def _as_tuple(value: Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@attrs.frozen(kw_only=True)
class ReferenceSlot:
    """A named reference input a workflow's interpreter accepts.

    ``media_types`` lists accepted text media types (the first is assumed for files whose suffix
    says nothing); ``multiple`` lets one binding carry several items; ``max_bytes`` bounds each.
    """

    name: str = attrs.field(validator=_check_name)
    description: str = attrs.field(validator=_non_blank)
    required: bool = False
    media_types: tuple[str, ...] = attrs.field(
        default=("text/plain",), converter=_as_tuple, validator=_check_media_types
    )
    multiple: bool = False
    max_bytes: int = attrs.field(default=DEFAULT_MAX_BYTES, validator=_positive)


def check_slots(workflow: str, slots: Sequence[ReferenceSlot]) -> tuple[ReferenceSlot, ...]:
    """Return ``slots`` as a tuple in declaration order; a name declared twice is an error."""
    seen: dict[str, ReferenceSlot] = {}
    for slot in slots:
        if slot.name in seen:
            raise DuplicateSlotError(
                f"workflow {workflow!r} declares reference slot {slot.name!r} twice "
                f"({seen[slot.name].description!r} and {slot.description!r})",
                workflow=workflow,
                slot=slot.name,
                description=slot.description,
                hint="give each slot a distinct name",
            )
        seen[slot.name] = slot
    return tuple(slots)


def media_type_for(path: PurePath, slot: ReferenceSlot) -> str:
    """The media type of a file bound to ``slot``, from its suffix (see the table above)."""
    return MEDIA_TYPE_BY_SUFFIX.get(path.suffix.lower(), slot.media_types[0])


def describe_slots(slots: Sequence[ReferenceSlot]) -> str:
    """One line per slot, for error messages: ``name (required) — description``."""
    if not slots:
        return "none"
    return "; ".join(
        f"{s.name} ({'required' if s.required else 'optional'}) — {s.description}" for s in slots
    )
