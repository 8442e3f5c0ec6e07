"""The few fixed ways a value, a name or a case is shown in an answer or a block.

Grounding and narration share them so a case reads the same in an answer and in a receipt:
``Trip “Anna”``, ``travel date``, ``“window seat”``. Nothing here generates prose: a name is
shown with its underscores as spaces, a value by a fixed rule for its type.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Set
from datetime import date, datetime
from typing import Any

import attrs

from turnframe._converter import unstructure


def quote(text: str) -> str:
    return f"\u201c{text}\u201d"


def name_label(name: str) -> str:
    """A declared name as words: ``travel_date`` → ``travel date``."""
    return " ".join(name.replace("_", " ").split())


def workflow_label(workflow: str) -> str:
    """A workflow's name as the head of a case reference: ``trip`` → ``Trip``."""
    words = name_label(workflow)
    return words[:1].upper() + words[1:]


def case_reference(
    *, workflow: str | None, label: str | None, case_id: str, noun: str | None = None
) -> str:
    """``Trip “Anna”``; ``Trip case-7`` without a label; ``case case-7`` without a workflow.
    ``noun`` (the workflow's ``case_noun``) names the case instead of the workflow's name."""
    head = noun or (workflow_label(workflow) if workflow else "Case")
    if label and noun and label.casefold().startswith(noun.casefold()):
        return quote(label)  # “Order 1001”, not Order “Order 1001”
    if label:
        return f"{head} {quote(label)}"
    return f"{head} {case_id}"


def format_value(value: Any) -> str:
    """A value as text: dates in ISO form, ``yes``/``no``, lists joined by commas.

    ``None`` and the empty string read ``not set``; an empty collection reads ``none``.
    """
    if value is None or value == "":
        return "not set"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, enum.Enum):
        return format_value(value.value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Mapping):
        shown = [f"{name_label(str(k))}: {format_value(value[k])}" for k in sorted(value, key=str)]
        return ", ".join(shown) if shown else "none"
    if isinstance(value, Set):
        return _joined(sorted(value, key=format_value))
    if isinstance(value, list | tuple):
        return _joined(value)
    if attrs.has(type(value)):
        return format_value(unstructure(value))
    return str(value)


def _joined(values: Any) -> str:
    shown = [format_value(v) for v in values]
    return ", ".join(shown) if shown else "none"


def is_sentence(value: Any) -> bool:
    """A string a workflow wrote as a whole sentence (it ends with ``.``, ``!`` or ``?``)."""
    return isinstance(value, str) and value.strip()[-1:] in (".", "!", "?")
