"""Ground: open a candidate's own record and take the words the cue reaches.

One read per member: the session's record, opened by its id (never re-resolved). The excerpt is
the user's own words, verbatim, from the turn the cue reaches best (most cue words; the turns
the search matched first; the earliest), trimmed to a window around the first cue word with
"…" marking what was left out and nothing else changed. When no turn holds a cue word (the
entry, not the record, matched), the spine is shown: the session's first words. A record that
cannot be opened, or that holds no words of the user at all, yields no excerpt: the candidate
is ungroundable, dropped and named. Recall turns (the user asking about another conversation)
are never shown: a record whose only words are recall turns yields no excerpt either, and is
marked ``recall_only`` (nothing there for a cue to reach: it is passed over, not named).

The resume handle is the command that reopens the session (``turnframe chat --store … --session
ID``). A fork is not resumed by its own id: its handle resumes the parent it was forked from,
and when that parent is gone the excerpt says it cannot be resumed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from datetime import datetime

import attrs

from turnframe.recall import record as rec
from turnframe.recall.find import Candidate
from turnframe.recall.words import variants, words
from turnframe.stores.protocol import Store

ELLIPSIS = "\u2026"
EXCERPT_WIDTH = 220
LEAD = 70
#: The command line's default account: a handle for it needs no ``--account``.
CLI_DEFAULT_ACCOUNT = "demo"


@attrs.frozen(kw_only=True)
class Handles:
    """How resume handles are written: the store the command line opens, and the account."""

    store_location: str
    account_id: str

    def resume(self, session_id: str) -> str:
        command = [
            "turnframe",
            "chat",
            "--store",
            self.store_location,
            "--session",
            session_id,
        ]
        if self.account_id != CLI_DEFAULT_ACCOUNT:
            command += ["--account", self.account_id]
        return shlex.join(command)

    def locator(self, session_id: str, turn_id: str | None) -> str:
        where = f"{self.store_location}#session={session_id}"
        return where + (f"&turn={turn_id}" if turn_id else "")


@attrs.frozen(kw_only=True)
class Excerpt:
    """One member's words at the span the cue reaches, where they are, how to resume them.

    ``text`` is empty when the record could not be opened (the member contributes nothing).
    ``handle`` is None when the session cannot be resumed (a fork whose parent is gone)."""

    session_id: str
    text: str
    turn_id: str | None = None
    turn_index: int | None = None
    locator: str = ""
    handle: str | None = None
    resumes: str | None = None  # the session the handle reopens (a fork's parent)
    fork_of: str | None = None
    started_at: datetime | None = None
    partial_source: bool = False  # the entry was built from less than its whole source
    #: The record opened, but every word the user said in it was a recall turn.
    recall_only: bool = False


def _matcher(cue_words: Sequence[str]) -> re.Pattern[str] | None:
    forms = sorted({f for w in cue_words for f in variants(w)}, key=len, reverse=True)
    if not forms:
        return None
    return re.compile(r"(?<![^\W_])(?:" + "|".join(map(re.escape, forms)) + r")(?![^\W_])", re.I)


def trim(text: str, cue_words: Sequence[str], width: int = EXCERPT_WIDTH) -> str:
    """``text`` around the first cue word, at most ``width`` characters of it, cut at word
    boundaries; "…" stands where something was left out. Always a verbatim span of ``text``."""
    body = text.strip()
    if len(body) <= width:
        return body
    matcher = _matcher(cue_words)
    found = matcher.search(body) if matcher is not None else None
    anchor = found.start() if found is not None else 0
    end = min(len(body), max(0, anchor - LEAD) + width)
    start = max(0, end - width)
    if start > 0:  # begin at a word, before the cue word
        space = body.find(" ", start, anchor)
        if space != -1:
            start = space + 1
    if end < len(body):  # end at a word, after the cue word
        space = body.rfind(" ", max(start, anchor), end)
        if space > start:
            end = space
    span = body[start:end].strip()
    return (ELLIPSIS if start > 0 else "") + span + (ELLIPSIS if end < len(body) else "")


def _best_turn(said: list[rec.Said], cue_words: Sequence[str], matched: Sequence[str]) -> rec.Said:
    wanted = [set(variants(w)) for w in cue_words]
    first_matched = set(matched)

    def score(s: rec.Said) -> tuple[int, int, int]:
        present = set(words(s.text))
        hits = sum(1 for forms in wanted if forms & present)
        return (-hits, 0 if s.turn_id in first_matched else 1, s.index)

    best = min(said, key=score)
    return best if score(best)[0] < 0 else said[0]


async def ground(
    store: Store,
    account_id: str,
    candidate: Candidate,
    cue_words: Sequence[str],
    handles: Handles,
) -> Excerpt:
    """One read of the candidate's own record; an empty excerpt when it cannot be opened."""
    if candidate.record is None:
        return Excerpt(session_id=candidate.session_id, text="")
    record = await store.read_recall_record(account_id, candidate.record)
    said = rec.own_words(record) if record is not None else []
    if record is None or not said:
        recall_only = record is not None and bool(rec.user_turns(record))
        return Excerpt(session_id=candidate.session_id, text="", recall_only=recall_only)
    turn = _best_turn(said, cue_words, candidate.turn_ids)
    parent = rec.fork_of(record)
    resumes: str | None = candidate.session_id
    if parent is not None:
        resumes = parent if await store.get_session(account_id, parent) is not None else None
    scan = candidate.source_scan
    return Excerpt(
        session_id=candidate.session_id,
        text=trim(turn.text, cue_words),
        turn_id=turn.turn_id,
        turn_index=turn.index,
        locator=handles.locator(candidate.session_id, turn.turn_id),
        handle=handles.resume(resumes) if resumes is not None else None,
        resumes=resumes,
        fork_of=parent,
        started_at=rec.started(record),
        partial_source=scan is not None and scan.partial,
    )


__all__ = ["CLI_DEFAULT_ACCOUNT", "ELLIPSIS", "Excerpt", "Handles", "ground", "trim"]
