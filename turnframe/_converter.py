"""The one cattrs converter: every message, plan and record goes through it.

Wire names are the attribute names (snake_case). Unknown keys are refused. Enums travel as their
values, datetimes as ISO 8601 strings with an offset. Modules that define tagged unions register
them here through :func:`register_tagged_union`, and classes written without their defaulted
fields through :func:`omit_defaults`, so there is still exactly one converter.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from datetime import date, datetime
from operator import attrgetter
from typing import Any, TypeVar

import cattrs
from cattrs.cols import is_sequence
from cattrs.enums import enum_unstructure_factory
from cattrs.fns import identity
from cattrs.gen import iterable_unstructure_factory, make_dict_unstructure_fn
from cattrs.strategies import configure_tagged_union

converter = cattrs.Converter(forbid_extra_keys=True)


# Three unstructure hooks written the way cattrs' own are, minus a call per value: a turn writes
# a few hundred values, and cattrs' hooks call Python once more for each enum, sequence item and
# optional plain value than these do. Registered first, so every class hook generated later uses
# them; the output is cattrs' own (an enum's value; a sequence as a list of its items
# unstructured; an optional value that is written as it is, as it is).
def _enum_unstructure_factory(cl: type[enum.Enum]) -> Callable[[enum.Enum], Any]:
    if "_value_" in getattr(cl, "__annotations__", {}):  # a typed value: cattrs writes it
        return enum_unstructure_factory(cl, converter)
    return attrgetter("_value_")  # what ``.value`` answers, without the property's two calls


def _sequence_unstructure_factory(cl: Any) -> Callable[[Any], Any]:
    args = getattr(cl, "__args__", None)
    if not args or isinstance(args[0], TypeVar):
        return iterable_unstructure_factory(cl, converter, unstructure_to=list)
    hook = converter.get_unstructure_hook(args[0], cache_result=False)
    if hook == identity:
        return list

    def unstructure_sequence(items: Any, _hook: Callable[[Any], Any] = hook) -> list[Any]:
        return list(map(_hook, items))

    return unstructure_sequence


def _is_optional(cl: Any) -> bool:
    args = typing.get_args(cl)
    union = typing.get_origin(cl) in (typing.Union, types.UnionType)
    return union and len(args) == 2 and type(None) in args


def _optional_unstructure_factory(cl: Any) -> Callable[[Any], Any]:
    hook = converter.gen_unstructure_optional(cl)
    inner = next(a for a in cl.__args__ if a is not type(None))
    if not isinstance(inner, TypeVar) and converter.get_unstructure_hook(inner) == identity:
        return identity  # None or a value written as it is: class hooks then write it inline
    return hook


converter.register_unstructure_hook_factory(
    lambda t: isinstance(t, type) and issubclass(t, enum.Enum), _enum_unstructure_factory
)
converter.register_unstructure_hook_factory(is_sequence, _sequence_unstructure_factory)
converter.register_unstructure_hook_factory(_is_optional, _optional_unstructure_factory)

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
