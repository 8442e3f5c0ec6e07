"""Reading JSONL corpus text line by line, turning bad lines into drops instead of exceptions."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from turnframe.corpora.errors import MALFORMED_LINE, MISSING_FIELD, Drop, DropKind


def json_lines(text: str, *, source: str) -> Iterator[tuple[int, Mapping[str, Any] | Drop]]:
    """Yield ``(line_number, object)`` per non-blank line, or a malformed :class:`Drop`."""
    # Split on "\n" only: str.splitlines() would also break on U+2028 inside a JSON string.
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield number, malformed(source, number, f"not valid JSON: {exc.msg}")
            continue
        if not isinstance(value, dict):
            yield number, malformed(source, number, "not a JSON object")
            continue
        yield number, value


def malformed(source: str, line: int, reason: str, code: str = MALFORMED_LINE) -> Drop:
    return Drop(source=source, line=line, code=code, kind=DropKind.MALFORMED, reason=reason)


def required_text(record: Mapping[str, Any], field: str, *, source: str, line: int) -> str | Drop:
    """A required non-empty string field (surrounding whitespace stripped)."""
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        return malformed(
            source, line, f"field {field!r} is missing or not a non-empty string", MISSING_FIELD
        )
    return value.strip()


def optional_text(
    record: Mapping[str, Any], field: str, *, source: str, line: int
) -> str | Drop | None:
    """An optional string field: absent or null is ``None``; present must be non-empty."""
    if record.get(field) is None:
        return None
    return required_text(record, field, source=source, line=line)
