"""The OpenAPI schema, derived from the attrs types the API reads and writes.

Why pydantic models derived from attrs, and not a hand-written JSON schema: FastAPI renders
OpenAPI from pydantic models (components, ``$ref``\\ s, per-route bodies) natively, pydantic is
already FastAPI's dependency, and the same derived model can validate what the API really sends
(the tests do), which proves the documented schema describes the bytes. The models only
describe: values are still built and written by the one cattrs converter from the attrs types.

A derived model has the attrs class's name, docstring and fields (types translated
recursively), and forbids unknown keys. For a *response* every field is required, because the
converter always writes every field, except in a class the converter writes without its
defaulted fields (``turnframe._converter.omit_defaults``); for a *request* a field with a
default is optional.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import pydantic

from turnframe._converter import omits_defaults

_MODELS: dict[tuple[type[Any], bool], type[pydantic.BaseModel]] = {}


def response_model(cls: type[Any]) -> type[pydantic.BaseModel]:
    """The model of ``cls`` as sent: every field present."""
    return _derive(cls, all_required=True)


def request_model(cls: type[Any]) -> type[pydantic.BaseModel]:
    """The model of ``cls`` as received: fields with a default may be left out."""
    return _derive(cls, all_required=False)


def _derive(cls: type[Any], *, all_required: bool) -> type[pydantic.BaseModel]:
    key = (cls, all_required)
    found = _MODELS.get(key)
    if found is not None:
        return found
    attrs.resolve_types(cls)
    fields: dict[str, Any] = {}
    every_field_written = all_required and not omits_defaults(cls)
    for field in attrs.fields(cls):
        annotation = _translate(field.type, all_required=all_required)
        if every_field_written or field.default is attrs.NOTHING:
            fields[field.name] = (annotation, ...)
        elif isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
            fields[field.name] = (annotation, pydantic.Field(default_factory=field.default.factory))
        else:
            fields[field.name] = (annotation, field.default)
    model: type[pydantic.BaseModel] = pydantic.create_model(
        cls.__name__,
        __config__=pydantic.ConfigDict(extra="forbid"),
        __doc__=(cls.__doc__ or "").strip() or None,
        __module__=cls.__module__,
        **fields,
    )
    _MODELS[key] = model
    return model


def _translate(tp: Any, *, all_required: bool) -> Any:
    """``tp`` with every attrs class in it replaced by its derived model."""
    if attrs.has(tp):
        return _derive(tp, all_required=all_required)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is None or not args:
        return tp
    inner = tuple(_translate(a, all_required=all_required) for a in args)
    if origin is types.UnionType or origin is typing.Union:
        return typing.Union[inner]  # noqa: UP007 - built from a runtime tuple
    if origin in (tuple, Sequence) and len(inner) == 2 and inner[1] is Ellipsis:
        return tuple[inner[0], ...]  # type: ignore[valid-type]
    if origin in (dict, Mapping):
        return dict[inner[0], inner[1]]  # type: ignore[valid-type]
    if origin is list:
        return list[inner[0]]  # type: ignore[valid-type]
    return origin[inner]


def component_schemas(*classes: type[Any], request: bool) -> dict[str, Any]:
    """OpenAPI ``components.schemas`` entries for ``classes`` and every model they use."""
    derive = request_model if request else response_model
    out: dict[str, Any] = {}
    for cls in classes:
        schema = pydantic.TypeAdapter(derive(cls)).json_schema(
            ref_template="#/components/schemas/{model}",
            mode="validation" if request else "serialization",
        )
        out.update(schema.pop("$defs", {}))
        out[cls.__name__] = schema
    return out


def body_of(cls: type[Any]) -> dict[str, Any]:
    """A route's ``openapi_extra`` documenting a JSON request body of type ``cls``."""
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{cls.__name__}"}}
            },
        }
    }


__all__ = ["body_of", "component_schemas", "request_model", "response_model"]
