"""What the recall stage hands a store and gets back: index entries, queries, hits, records.

The recall index is *derived* data: every entry is rebuilt from the session's stored turns, so
unlike payloads an entry may be rewritten (the writer replaces it whole). The full-text rows of
the turns themselves (a session's *spine*: its first user turn; its *body*: every later turn and
every reply) are kept by the store as turns and replies are written, so a session is findable
whether or not its entry was ever written.

Words are letters and digits only, lower-cased (``turnframe.recall.words``): both stores'
engines cut text the same way, so a query matches the same rows on SQLite and PostgreSQL.
"""

from __future__ import annotations

import enum
import re
from datetime import datetime
from typing import Any

import attrs

from turnframe.stores.records import Json, SessionRecord, TurnRecord

_WORD = re.compile(r"[^\W_]+")


def _words(_: object, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    for word in value:
        if not _WORD.fullmatch(word) or word != word.lower():
            raise ValueError(
                f"{attribute.name}: {word!r} is not one lower-case word of letters and digits"
            )


def _positive(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be >= 1, got {value}")


class RecallScope(enum.StrEnum):
    """``spine``: index entries and each session's first user turn. ``full_text``: every turn
    and reply as well (only once the user chose to search that far)."""

    SPINE = "spine"
    FULL_TEXT = "full_text"


@attrs.frozen(kw_only=True)
class RecallIdentifier:
    literal: str
    namespace: str


@attrs.frozen(kw_only=True)
class NewRecallEntry:
    """A session's entry (JSON), the words its full-text row holds, its identifiers, and the
    last turn it covers (a later turn makes it stale)."""

    session_id: str
    entry: Json
    terms: str
    identifiers: tuple[RecallIdentifier, ...] = ()
    indexed_through: str | None = None
    writer_version: int = 1


@attrs.frozen(kw_only=True)
class RecallEntryRecord:
    account_id: str
    session_id: str
    entry: Json
    indexed_through: str | None
    writer_version: int
    written_at: datetime


@attrs.frozen(kw_only=True)
class RecallTerm:
    """One cue word: it matches when any of its ``forms`` (the word and its variants) does."""

    forms: tuple[str, ...] = attrs.field(validator=_words)
    weight: int = attrs.field(default=1, validator=_positive)


@attrs.frozen(kw_only=True)
class RecallQuery:
    """Sessions sharing cue words or identifiers, scored by the weights of what they share
    (each term and identifier counted once per session), best first; ties newest first."""

    terms: tuple[RecallTerm, ...] = ()
    identifiers: tuple[str, ...] = ()
    identifier_weight: int = attrs.field(default=4, validator=_positive)
    scope: RecallScope = RecallScope.SPINE
    exclude_sessions: tuple[str, ...] = ()
    limit: int = attrs.field(default=24, validator=_positive)
    #: A term reaches at most this many of its newest matching rows per source (entries; turns
    #: and replies, whatever the scope keeps of them): a word that common says little, and the
    #: rows a query reads stay bounded as the store grows.
    term_reach: int = attrs.field(default=200, validator=_positive)
    #: Count the coverage searched (the account's sessions and entries) even when sessions are
    #: found; it is always counted when none is.
    coverage: bool = False


class HitSource(enum.StrEnum):
    INDEX = "index"
    IDENTIFIER = "identifier"
    SPINE = "spine"
    BODY = "body"
    REPLY = "reply"


@attrs.frozen(kw_only=True)
class RecallHit:
    """One session a query reached: its score, which query terms (by index) and identifiers
    it shares, where they were found, and the turns whose text matched (oldest first)."""

    session_id: str
    score: int
    terms: tuple[int, ...]
    identifiers: tuple[str, ...]
    sources: tuple[HitSource, ...]
    turn_ids: tuple[str, ...]
    workflow: str | None  # None: the session's record is gone (its index entry survives)
    started_at: datetime | None
    last_active: datetime | None


@attrs.frozen(kw_only=True)
class RecallFound:
    """A query's hits, and the coverage it searched: the account's sessions and entries (None
    when hits came back and the query did not ask for coverage)."""

    hits: tuple[RecallHit, ...]
    sessions: int | None = None
    indexed: int | None = None


@attrs.frozen(kw_only=True)
class RecallCounts:
    """How many sessions (other than the one asked for) hold each word and identifier."""

    terms: dict[str, int]
    identifiers: dict[str, int]


@attrs.frozen(kw_only=True)
class RecallRecord:
    """A session's own record, opened whole: the session, its user turns in order and each
    turn's reply blocks (by turn id)."""

    session: SessionRecord
    turns: tuple[TurnRecord, ...]
    replies: dict[str, Json]


__all__ = [
    "HitSource",
    "NewRecallEntry",
    "RecallCounts",
    "RecallEntryRecord",
    "RecallFound",
    "RecallHit",
    "RecallIdentifier",
    "RecallQuery",
    "RecallRecord",
    "RecallScope",
    "RecallTerm",
]
