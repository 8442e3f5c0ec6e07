"""Edits of a user's text, and the rewritten text they make (see :mod:`.rewrites`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

from turnframe.providers.rules.spelling import Corrected


@attrs.frozen(kw_only=True)
class Edit:
    """``text[start:end]`` is said as ``words`` (empty: dropped)."""

    start: int
    end: int
    words: str


#: A value in quotes is the user's own words: never rewritten.
_QUOTED = re.compile(
    r"\"[^\"]{0,200}\"|\u201c[^\u201d]{0,200}\u201d"
    r"|(?:(?<=^)|(?<=[\s(:=]))['\u2018][^'\u2019\n]*['\u2019](?!\w)"
)


def quoted(text: str) -> list[tuple[int, int]]:
    """Where the quoted values of ``text`` stand."""
    return [m.span() for m in _QUOTED.finditer(text)]


def inside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` overlaps one of ``spans``."""
    return any(s < end and start < e for s, e in spans)


def apply(text: str, edits: Iterable[Edit]) -> Corrected | None:
    """The text with ``edits`` made (overlapping ones after the first dropped), or ``None``
    when nothing changes or nothing would be left to read."""
    pieces: list[str] = []
    swaps: list[tuple[int, int, int, int]] = []
    at = 0
    length = 0
    for edit in sorted(edits, key=lambda ed: (ed.start, ed.end)):
        if edit.start < at or text[edit.start : edit.end] == edit.words:
            continue
        if swaps and edit.start == at:  # touching the one before: one swap, so spans map back
            new_start, _, old_start, _ = swaps.pop()
            pieces.append(edit.words)
            length += len(edit.words)
            swaps.append((new_start, length, old_start, edit.end))
            at = edit.end
            continue
        pieces.append(text[at : edit.start])
        length += edit.start - at
        swaps.append((length, length + len(edit.words), edit.start, edit.end))
        pieces.append(edit.words)
        length += len(edit.words)
        at = edit.end
    if not swaps:
        return None
    pieces.append(text[at:])
    rewritten = "".join(pieces)
    if not re.search(r"\w", rewritten):
        return None
    return Corrected(text=rewritten, original=text, swaps=tuple(swaps))


#: A value after a colon ("note: …"), up to the end of its sentence: taken as written.
_AFTER_COLON = re.compile(r":[ \t]+[^\n.!?]*")


def as_written(text: str) -> list[tuple[int, int]]:
    """Where words stand that are a value as the user wrote it: quoted, or after a colon."""
    return [*quoted(text), *(m.span() for m in _AFTER_COLON.finditer(text))]
