"""``evolve(inst, **changes)``: :func:`attrs.evolve` for the hot path, same result.

attrs' own reads the class's fields and three attributes of each field on every call; this
one reads them once per class. Like attrs', it builds the copy through the class's
``__init__``, so converters and validators run as they do there.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs

T = TypeVar("T")

#: Per attrs class: (attribute name, ``__init__`` parameter name) of each field ``__init__`` takes.
_INIT_FIELDS: dict[type[Any], tuple[tuple[str, str], ...]] = {}


def evolve(inst: T, /, **changes: Any) -> T:
    """A copy of ``inst`` with ``changes`` (by ``__init__`` parameter name), as
    :func:`attrs.evolve` makes it."""
    cls = inst.__class__
    fields = _INIT_FIELDS.get(cls)
    if fields is None:
        every = attrs.fields(cls)  # type: ignore[arg-type]
        fields = _INIT_FIELDS[cls] = tuple((a.name, a.alias) for a in every if a.init)
    for name, alias in fields:
        if alias not in changes:
            changes[alias] = getattr(inst, name)
    return cls(**changes)
