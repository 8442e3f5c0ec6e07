"""Request bodies: read at most a bounded number of bytes, parse one JSON value, check its shape.

Nothing is read past the limit: a ``Content-Length`` over it is refused before the body is
read, and a streamed body is refused as soon as it passes the limit. The JSON must be UTF-8
and finite (``NaN`` and ``Infinity`` are not JSON). The shape is checked strictly against the
request's attrs type (exact JSON types, unknown keys refused, every problem named with its
path) before the one converter builds it.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from starlette.requests import Request

from turnframe._converter import converter
from turnframe._strict import check_shape
from turnframe.http.errors import BodyTooLarge, InvalidBody, MalformedBody, UnsupportedMediaType

T = TypeVar("T")


async def read_json(request: Request, *, limit: int) -> Any:
    media = request.headers.get("content-type", "application/json").split(";")[0].strip()
    if media.lower() not in ("application/json", ""):
        raise UnsupportedMediaType(
            f"the body is {media!r}, not JSON", hint="send Content-Type: application/json"
        )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise MalformedBody("the body is not UTF-8", hint="send UTF-8 encoded JSON") from None
    except ValueError as error:
        raise MalformedBody(
            f"the body is not JSON: {error}", hint="send one JSON object"
        ) from None


def parse_body(data: Any, cls: type[T]) -> T:
    problems = check_shape(data, cls)
    if problems:
        where = "; ".join(
            f"{'.'.join(str(p) for p in problem.path) or 'the body'}: {problem.message}"
            for problem in problems
        )
        raise InvalidBody(
            f"the body is not a {cls.__name__}: {where}",
            hint="see the request schema in the OpenAPI document (/openapi.json)",
            problems=problems,
        )
    built: T = converter.structure(data, cls)
    return built


def _too_large(limit: int) -> BodyTooLarge:
    return BodyTooLarge(
        f"the body is larger than {limit} bytes", hint="send a shorter message"
    )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


__all__ = ["parse_body", "read_json"]
