"""What both wire formats share: a rendered reply, request problems, ids and retry headers."""

from __future__ import annotations

import itertools
import json
import threading
from datetime import datetime, timedelta
from email.utils import format_datetime
from typing import Any, Protocol

import attrs
from pydantic import ValidationError

from turnframe.testing.fake_provider.steps import (
    Answer,
    ApiError,
    FilterContent,
    Refuse,
    Truncate,
)

AnswerStep = Answer | Refuse | FilterContent | Truncate


@attrs.frozen(kw_only=True)
class Reply:
    """One HTTP reply: ``body`` is JSON-able (sent as JSON) or bytes (sent as they are)."""

    status: int
    body: Any
    headers: dict[str, str] = attrs.field(factory=dict)
    content_type: str = "application/json"

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body, ensure_ascii=False).encode()


@attrs.frozen(kw_only=True)
class Problem:
    """Why a request does not follow the vendor's API: which parameter, and what is wrong."""

    param: str
    message: str
    missing: bool = False

    def __str__(self) -> str:
        return f"{self.param}: {self.message}"


class Ids:
    """Deterministic ids and a clock for one server (thread-safe)."""

    def __init__(self, now: Any) -> None:
        self._count = itertools.count(1)
        self._lock = threading.Lock()
        self._now = now

    def next(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._count):06d}"

    def now(self) -> datetime:
        instant: datetime = self._now()
        return instant.replace(microsecond=0)


class Wire(Protocol):
    """One vendor's API as the fake server speaks it."""

    name: str

    def presented_key(self, headers: dict[str, str]) -> str | None: ...

    def check(self, headers: dict[str, str], body: Any) -> list[Problem]: ...

    def invalid(self, problems: list[Problem], ids: Ids) -> Reply: ...

    def answer(self, step: AnswerStep, request: Any, ids: Ids) -> Reply: ...

    def error(self, step: ApiError, request: Any, key: str | None, ids: Ids) -> Reply: ...

    def unscripted(self, number: int, ids: Ids) -> Reply: ...


def pydantic_problems(error: ValidationError) -> list[Problem]:
    """Each pydantic error as a problem named by its dotted location (``messages.0.role``)."""
    problems = []
    for item in error.errors(include_url=False):
        param = ".".join(str(part) for part in item["loc"]) or "body"
        problems.append(
            Problem(param=param, message=item["msg"], missing=item["type"] == "missing")
        )
    return problems


def retry_headers(step: ApiError, now: datetime) -> dict[str, str]:
    """The headers that ask the client to wait, in the format the step chose."""
    if step.retry_after is None:
        return {}
    if step.retry_after_format == "milliseconds":
        return {"retry-after-ms": str(round(step.retry_after * 1000))}
    if step.retry_after_format == "http-date":
        return {"retry-after": format_datetime(now + timedelta(seconds=step.retry_after), True)}
    seconds = step.retry_after
    return {"retry-after": str(int(seconds)) if seconds == int(seconds) else str(seconds)}


def error_message(step: ApiError, template: str, *, model: str, key: str) -> str:
    """The vendor's wording (``{model}``, ``{key}`` filled in) or the step's own; with
    ``echo_key`` the presented key is in it whatever the wording."""
    message = step.message if step.message is not None else template.format(model=model, key=key)
    if step.echo_key and (step.message is not None or "{key}" not in template):
        message += f" (presented key: {key})"
    return message


def date_header(now: datetime) -> dict[str, str]:
    return {"date": format_datetime(now, usegmt=True)}


def estimate_tokens(value: Any) -> int:
    """A rough token count (4 characters a token) for the usage figures."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def parsed_object(text: str) -> dict[str, Any] | None:
    """``text`` as a JSON object, or None when it is not one (it cannot be a tool's input)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
