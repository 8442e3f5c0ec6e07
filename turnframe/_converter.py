"""The one cattrs converter: every message, plan and record goes through it.

Wire names are the attribute names (snake_case). Unknown keys are refused. Enums travel as their
values, datetimes as ISO 8601 strings with an offset. Modules that define tagged unions register
them here through :func:`register_tagged_union`, and classes written without their defaulted
fields through :func:`omit_defaults`, so there is still exactly one converter.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import cattrs
from cattrs.gen import make_dict_unstructure_fn
from cattrs.strategies import configure_tagged_union

converter = cattrs.Converter(forbid_extra_keys=True)

converter.register_unstructure_hook(datetime, lambda d: d.isoformat())
converter.register_structure_hook(datetime, lambda v, _: _parse_datetime(v))
converter.register_unstructure_hook(date, lambda d: d.isoformat())
converter.register_structure_hook(date, lambda v, _: date.fromisoformat(v))


def _parse_datetime(value: Any) -> datetime:
    if not isinstance(value, str):
        raise TypeError(f"expected an ISO 8601 string, got {type(value).__name__}")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError(f"datetime {value!r} has no timezone offset")
    return parsed


def register_tagged_union(union: Any, tag_name: str, tag_of: Any) -> None:
    """Register a union of attrs classes discriminated by a ``tag_name`` key on the wire."""
    configure_tagged_union(union, converter, tag_generator=tag_of, tag_name=tag_name)


_OMITS_DEFAULTS: set[type[Any]] = set()


def omit_defaults(cls: type[Any]) -> None:
    """Write ``cls`` without the fields that hold their default: an optional part of a contract
    that most values do not have (a recall block's fields on a turn's block) stays off the wire
    instead of appearing as a row of nulls. The HTTP schema marks those fields optional."""
    hook = make_dict_unstructure_fn(cls, converter, _cattrs_omit_if_default=True)
    converter.register_unstructure_hook(cls, hook)
    _OMITS_DEFAULTS.add(cls)


def omits_defaults(cls: type[Any]) -> bool:
    """Whether ``cls`` is written without its defaulted fields (:func:`omit_defaults`)."""
    return cls in _OMITS_DEFAULTS


def unstructure(value: Any) -> Any:
    return converter.unstructure(value)


def structure(data: Any, cls: type[Any]) -> Any:
    return converter.structure(data, cls)
