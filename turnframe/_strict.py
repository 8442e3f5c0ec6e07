"""Strict shape checks of untrusted JSON data against attrs types, reporting every problem.

The one converter builds values; this module decides first whether the data deserve it. cattrs
coerces scalars (``"5"`` to ``5``, ``"false"`` to ``True``), which is fine for trusted records and
wrong for a model's answer, so a model's data is checked here with exact JSON types, every
unknown key, missing field and unknown tag collected with its path, before anything is built.

Tagged unions are registered through :func:`register_tagged_union`, which delegates to
:func:`turnframe._converter.register_tagged_union` (still one converter) and records the tags
for the checker.
"""

from __future__ import annotations

import enum
import json
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

import attrs

from turnframe import _converter

Path = tuple[str | int, ...]


@attrs.frozen(kw_only=True)
class ShapeProblem:
    """One thing wrong with the data, at ``path`` (keys and list indices from the root)."""

    path: Path
    message: str


_TAGGED: dict[Any, tuple[str, dict[str, type[Any]]]] = {}


def register_tagged_union(union: Any, tag_name: str, tag_of: Callable[[type[Any]], str]) -> None:
    """Register a tagged union with the one converter and with the checker.

    The optional form (``union | None``) is registered too, so an optional field of the union
    keeps its tag on the wire.
    """
    members = typing.get_args(union)
    _TAGGED[union] = (tag_name, {tag_of(member): member for member in members})
    _CHECKERS.clear()  # a checker built before may hold this union as a plain one
    _converter.register_tagged_union(union, tag_name, tag_of)
    unstructure_member = _converter.converter.get_unstructure_hook(union)
    structure_member = _converter.converter.get_structure_hook(union)
    optional = typing.Optional[union]  # noqa: UP045 - the dispatch key cattrs sees
    _converter.converter.register_unstructure_hook(
        optional, lambda v: None if v is None else unstructure_member(v)
    )
    _converter.converter.register_structure_hook(
        optional, lambda v, _: None if v is None else structure_member(v, union)
    )


def check_shape(data: Any, tp: Any) -> list[ShapeProblem]:
    """Every way ``data`` (parsed JSON) fails to be exactly an instance of ``tp`` on the wire."""
    out: list[ShapeProblem] = []
    _checker(tp)(data, (), out)
    return out


def json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _wrong(value: Any, expected: str, path: Path, out: list[ShapeProblem]) -> None:
    out.append(ShapeProblem(path=path, message=f"expected {expected}, got {json_type_name(value)}"))


def _check(value: Any, tp: Any, path: Path, out: list[ShapeProblem]) -> None:
    if tp is Any:
        return
    if tp in _TAGGED:
        _check_tagged(value, tp, path, out)
        return
    shape = _SHAPES.get(tp)
    if shape is None:
        shape = _SHAPES[tp] = _shape_of(tp)
    kind, args = shape
    if kind is _UNION:
        _check_union(value, args, path, out)
    elif kind is _ATTRS:
        _check_attrs(value, tp, path, out)
    elif kind is _SEQUENCE:
        _check_sequence(value, args, path, out)
    elif kind is _MAPPING:
        _check_mapping(value, args[1], path, out)
    elif kind is _LITERAL:
        if value not in args or isinstance(value, bool) != isinstance(args[0], bool):
            out.append(ShapeProblem(path=path, message=f"expected one of {list(args)!r}"))
    else:
        _check_scalar(value, tp, path, out)


_UNION, _ATTRS, _SEQUENCE, _MAPPING, _LITERAL, _SCALAR = (
    "union",
    "attrs",
    "sequence",
    "mapping",
    "literal",
    "scalar",
)
#: What kind of type each checked type is, and its arguments: read once per type.
_SHAPES: dict[Any, tuple[str, tuple[Any, ...]]] = {}


def _shape_of(tp: Any) -> tuple[str, tuple[Any, ...]]:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union or origin is types.UnionType:
        return _UNION, args
    if attrs.has(tp):
        return _ATTRS, args
    if origin in (list, tuple, Sequence):
        return _SEQUENCE, args
    if origin in (dict, Mapping):
        return _MAPPING, args
    if origin is typing.Literal:
        return _LITERAL, args
    return _SCALAR, args


def _check_scalar(value: Any, tp: Any, path: Path, out: list[ShapeProblem]) -> None:
    if tp is type(None):
        if value is not None:
            _wrong(value, "null", path, out)
    elif tp is bool:
        if not isinstance(value, bool):
            _wrong(value, "a boolean", path, out)
    elif tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            _wrong(value, "an integer", path, out)
    elif tp is float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            _wrong(value, "a number", path, out)
        elif not math.isfinite(value):
            out.append(ShapeProblem(path=path, message="expected a finite number"))
    elif tp is str:
        if not isinstance(value, str):
            _wrong(value, "a string", path, out)
    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        allowed = [member.value for member in tp]
        if not isinstance(value, str | int) or isinstance(value, bool) or value not in allowed:
            out.append(ShapeProblem(path=path, message=f"expected one of {allowed!r}"))
    elif tp is datetime or tp is date:
        _check_iso(value, tp, path, out)
    else:
        raise TypeError(f"strict check does not support {tp!r}")


def _check_iso(value: Any, tp: Any, path: Path, out: list[ShapeProblem]) -> None:
    if not isinstance(value, str):
        _wrong(value, "an ISO 8601 string", path, out)
        return
    try:
        parsed = tp.fromisoformat(value)
    except ValueError:
        out.append(ShapeProblem(path=path, message=f"{value!r} is not an ISO 8601 {tp.__name__}"))
        return
    if tp is datetime and parsed.tzinfo is None:
        out.append(ShapeProblem(path=path, message=f"{value!r} has no timezone offset"))


def _check_union(value: Any, args: tuple[Any, ...], path: Path, out: list[ShapeProblem]) -> None:
    rest = tuple(a for a in args if a is not type(None))
    if len(rest) < len(args) and value is None:
        return
    inner: Any = rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007
    if inner in _TAGGED or len(rest) == 1:
        _check(value, inner, path, out)
        return
    for candidate in rest:
        trial: list[ShapeProblem] = []
        _check(value, candidate, path, trial)
        if not trial:
            return
    out.append(ShapeProblem(path=path, message=f"{json_type_name(value)} fits none of {rest!r}"))


def _tag_of(
    value: Any, tag_name: str, known: Any, path: Path, out: list[ShapeProblem]
) -> str | None:
    """The tag of a tagged union's value, or None with the problem recorded: not an object,
    no tag, or a tag that names none of the ``known`` members."""
    if not isinstance(value, dict):
        _wrong(value, "an object", path, out)
        return None
    if tag_name not in value:
        out.append(ShapeProblem(path=(*path, tag_name), message="required field missing"))
        return None
    tag = value[tag_name]
    if not isinstance(tag, str) or tag not in known:
        out.append(
            ShapeProblem(
                path=(*path, tag_name),
                message=f"unknown {tag_name} {tag!r}; expected one of {sorted(known)!r}",
            )
        )
        return None
    return tag


def _check_tagged(value: Any, tp: Any, path: Path, out: list[ShapeProblem]) -> None:
    tag_name, members = _TAGGED[tp]
    tag = _tag_of(value, tag_name, members, path, out)
    if tag is not None:
        _check_attrs({k: v for k, v in value.items() if k != tag_name}, members[tag], path, out)


def _check_attrs(value: Any, cls: type[Any], path: Path, out: list[ShapeProblem]) -> None:
    if not isinstance(value, dict):
        _wrong(value, "an object", path, out)
        return
    fields = _fields_of(cls)
    for key in value:
        if key not in fields:
            out.append(ShapeProblem(path=(*path, str(key)), message="unknown field"))
    for name, (tp, required) in fields.items():
        if name in value:
            _check(value[name], tp, (*path, name), out)
        elif required:
            out.append(ShapeProblem(path=(*path, name), message="required field missing"))


def _check_sequence(value: Any, args: tuple[Any, ...], path: Path, out: list[ShapeProblem]) -> None:
    if not isinstance(value, list):
        _wrong(value, "an array", path, out)
        return
    if (len(args) == 2 and args[1] is Ellipsis) or len(args) == 1:
        for i, item in enumerate(value):
            _check(item, args[0], (*path, i), out)
        return
    if len(value) != len(args):
        out.append(ShapeProblem(path=path, message=f"expected {len(args)} items"))
        return
    for i, (item, item_tp) in enumerate(zip(value, args, strict=True)):
        _check(item, item_tp, (*path, i), out)


def _check_mapping(value: Any, value_tp: Any, path: Path, out: list[ShapeProblem]) -> None:
    if not isinstance(value, dict):
        _wrong(value, "an object", path, out)
        return
    for key, item in value.items():
        _check(item, value_tp, (*path, str(key)), out)


def is_unicode_text(text: str) -> bool:
    """Whether ``text`` is Unicode text that can be stored: no lone surrogate (``"\\ud800"``),
    which JSON escapes can produce but UTF-8 cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable_text(text: str) -> str:
    """``text`` itself when it is Unicode text, else with each lone surrogate written as a
    backslash escape, so a record quoting untrusted text can always be stored."""
    if is_unicode_text(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def storable(data: Any) -> Any:
    """JSON ``data`` with every string (keys too) made :func:`storable_text`. For records this
    code builds (shallow); untrusted input is refused at its boundary instead."""
    if isinstance(data, str):
        return storable_text(data)
    if isinstance(data, dict):
        return {
            (storable_text(k) if isinstance(k, str) else k): storable(v) for k, v in data.items()
        }
    if isinstance(data, list | tuple):
        return [storable(v) for v in data]
    return data


def non_text_paths(data: Any) -> list[Path]:
    """The path of every string (value or key) in parsed JSON ``data`` that is not Unicode text.

    Iterative, so arbitrarily deep data cannot exhaust the stack here."""
    if _all_text(data):
        return []
    found: list[Path] = []
    pending: list[tuple[Any, Path]] = [(data, ())]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            if not is_unicode_text(value):
                found.append(path)
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and not is_unicode_text(key):
                    found.append((*path, "(key)"))
                pending.append((item, (*path, str(key))))
        elif isinstance(value, list):
            pending.extend((item, (*path, i)) for i, item in enumerate(value))
    return sorted(found, key=str)


#: Writes any JSON data at C speed; an encoding to UTF-8 then fails exactly when some string
#: (value or key) holds a lone surrogate. ``check_circular`` stays on: a cycle is refused.
_TEXT_PROBE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _all_text(data: Any) -> bool:
    """Whether every string in ``data`` is certainly Unicode text (the common case, answered by
    the C encoder); False also when the encoder cannot tell (types JSON lacks, deep nesting):
    the walk of :func:`non_text_paths` then decides."""
    try:
        _TEXT_PROBE.encode(data).encode("utf-8")
    except (UnicodeEncodeError, TypeError, ValueError, RecursionError):
        return False
    return True


_FIELD_CACHE: dict[type[Any], dict[str, tuple[Any, bool]]] = {}


# -- the checks above, built once per type ------------------------------------------------
#
# ``_check`` finds what kind of type it has (a dict lookup, a union's hash, a field table) at
# every value it visits; a turn's plan visits a few dozen. ``_checker(tp)`` makes that decision
# once and answers a function doing exactly what ``_check(value, tp, path, out)`` does: the
# same problems, messages and order. Anything it does not build a function for (types the
# checks refuse, and forms that only fail when a value reaches them) is left to ``_check``
# itself, so an odd type still fails where and how it always did.

Checker = Callable[[Any, Path, list[ShapeProblem]], None]
_CHECKERS: dict[Any, Checker] = {}


def _checker(tp: Any) -> Checker:
    found = _CHECKERS.get(tp)
    if found is not None:
        return found
    # A type that names itself (directly or not) reaches this one through a stand-in until it
    # is built.
    built: list[Checker] = []

    def stand_in(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        if built:
            built[0](value, path, out)
        else:  # still being built (by another thread)
            _check(value, tp, path, out)

    _CHECKERS[tp] = stand_in
    try:
        checker = _build(tp)
    except Exception:
        checker = _generic(tp)
    built.append(checker)
    _CHECKERS[tp] = checker
    return checker


def _generic(tp: Any) -> Checker:
    def check(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        _check(value, tp, path, out)

    return check


def _ignore(value: Any, path: Path, out: list[ShapeProblem]) -> None:
    return None


def _build(tp: Any) -> Checker:
    if tp is Any:
        return _ignore
    if tp in _TAGGED:
        return _build_tagged(tp)
    kind, args = _shape_of(tp)
    if kind is _UNION:
        return _build_union(args)
    if kind is _ATTRS:
        return _build_attrs(tp)
    if kind is _SEQUENCE:
        return _build_sequence(args)
    if kind is _MAPPING and len(args) == 2:
        return _build_mapping(args[1])
    if kind is _SCALAR:
        return _build_scalar(tp)
    return _generic(tp)  # literals, and mappings without a value type


def _build_tagged(tp: Any) -> Checker:
    tag_name, members = _TAGGED[tp]
    by_tag = {tag: _attrs_checker(member) for tag, member in members.items()}

    def check(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        tag = _tag_of(value, tag_name, by_tag, path, out)
        if tag is not None:
            by_tag[tag]({k: v for k, v in value.items() if k != tag_name}, path, out)

    return check


def _build_union(args: tuple[Any, ...]) -> Checker:
    rest = tuple(a for a in args if a is not type(None))
    nullable = len(rest) < len(args)
    inner: Any = rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007
    if inner in _TAGGED or len(rest) == 1:
        one = _checker(inner)
        if not nullable:
            return one

        def check_optional(value: Any, path: Path, out: list[ShapeProblem]) -> None:
            if value is not None:
                one(value, path, out)

        return check_optional
    candidates = [_checker(candidate) for candidate in rest]

    def check_union(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        if nullable and value is None:
            return
        for candidate in candidates:
            trial: list[ShapeProblem] = []
            candidate(value, path, trial)
            if not trial:
                return
        message = f"{json_type_name(value)} fits none of {rest!r}"
        out.append(ShapeProblem(path=path, message=message))

    return check_union


def _attrs_checker(cls: type[Any]) -> Checker:
    """The check of ``cls``'s fields, whether or not ``cls`` is also a tagged union's member
    (a member is checked without its tag, as a plain attrs class)."""
    found = _CHECKERS.get(("attrs", cls))
    if found is None:
        found = _CHECKERS[("attrs", cls)] = _build_attrs(cls)
    return found


def _build_attrs(cls: type[Any]) -> Checker:
    fields = _fields_of(cls)
    names = tuple(fields)
    # Built on first use (a field's type may be this class again), then kept whole.
    built: list[list[tuple[str, Checker, bool]]] = []

    def check(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        if not isinstance(value, dict):
            _wrong(value, "an object", path, out)
            return
        for key in value:
            if key not in fields:
                out.append(ShapeProblem(path=(*path, str(key)), message="unknown field"))
        if not built:
            built.append([(n, _checker(fields[n][0]), fields[n][1]) for n in names])
        for name, child, required in built[0]:
            if name in value:
                child(value[name], (*path, name), out)
            elif required:
                out.append(ShapeProblem(path=(*path, name), message="required field missing"))

    return check


def _build_sequence(args: tuple[Any, ...]) -> Checker:
    if (len(args) == 2 and args[1] is Ellipsis) or len(args) == 1:
        item_check = _checker(args[0])

        def check_items(value: Any, path: Path, out: list[ShapeProblem]) -> None:
            if not isinstance(value, list):
                _wrong(value, "an array", path, out)
                return
            for i, item in enumerate(value):
                item_check(item, (*path, i), out)

        return check_items
    item_checks = [_checker(a) for a in args]
    expected = f"expected {len(args)} items"

    def check_fixed(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        if not isinstance(value, list):
            _wrong(value, "an array", path, out)
            return
        if len(value) != len(item_checks):
            out.append(ShapeProblem(path=path, message=expected))
            return
        for i, (item, item_check) in enumerate(zip(value, item_checks, strict=True)):
            item_check(item, (*path, i), out)

    return check_fixed


def _build_mapping(value_tp: Any) -> Checker:
    item_check = _checker(value_tp)

    def check(value: Any, path: Path, out: list[ShapeProblem]) -> None:
        if not isinstance(value, dict):
            _wrong(value, "an object", path, out)
            return
        for key, item in value.items():
            item_check(item, (*path, str(key)), out)

    return check


def _build_scalar(tp: Any) -> Checker:
    if tp is str:

        def check_str(value: Any, path: Path, out: list[ShapeProblem]) -> None:
            if not isinstance(value, str):
                _wrong(value, "a string", path, out)

        return check_str
    if tp is int:

        def check_int(value: Any, path: Path, out: list[ShapeProblem]) -> None:
            if not isinstance(value, int) or isinstance(value, bool):
                _wrong(value, "an integer", path, out)

        return check_int
    if tp is bool:

        def check_bool(value: Any, path: Path, out: list[ShapeProblem]) -> None:
            if not isinstance(value, bool):
                _wrong(value, "a boolean", path, out)

        return check_bool
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        allowed = [member.value for member in tp]
        message = f"expected one of {allowed!r}"

        def check_enum(value: Any, path: Path, out: list[ShapeProblem]) -> None:
            if not isinstance(value, str | int) or isinstance(value, bool) or value not in allowed:
                out.append(ShapeProblem(path=path, message=message))

        return check_enum
    return _generic(tp)  # null, numbers, dates, and what the checks refuse


def _fields_of(cls: type[Any]) -> dict[str, tuple[Any, bool]]:
    cached = _FIELD_CACHE.get(cls)
    if cached is None:
        attrs.resolve_types(cls)
        cached = {f.name: (f.type, f.default is attrs.NOTHING) for f in attrs.fields(cls) if f.init}
        _FIELD_CACHE[cls] = cached
    return cached
