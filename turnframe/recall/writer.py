"""The index writer: one INDEX entry per session, derived from its stored turns.

It runs when a session ends or goes idle (its actor stops), and on demand
(``turnframe recall index``, :func:`index_account`). :func:`derive_entry` is pure: the record and
the store-wide counts it is judged against in, the entry out. Precision and coinage are judged
against the rest of the store *as it is when the entry is written*; Find recomputes precision
when it reads, so an older entry never ranks on stale counts.

A long session is read whole up to :data:`MAX_CHARS` of user text; beyond that the middle is
left out (head and tail kept) and the entry says how much (``source_scan.omitted_chars``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from turnframe.recall import record as rec
from turnframe.recall.entry import (
    WRITER_VERSION,
    AnchorChannel,
    EvidenceMode,
    IdentifierTuple,
    IndexEntry,
    Scope,
    SourceScan,
    StructuredAnchor,
    entry_json,
)
from turnframe.recall.identifiers import find_identifiers
from turnframe.recall.salience import coinage_candidates, profile, settles
from turnframe.recall.words import content_words, keywords, words
from turnframe.stores.protocol import Store
from turnframe.stores.recall import NewRecallEntry, RecallCounts, RecallIdentifier, RecallRecord

MAX_CHARS = 40_000
#: A repeated word that at most this many other sessions hold is this session's coinage.
RARE_AT = 1
USER_KEYWORDS = 16
REPLY_KEYWORDS = 6
_ANCHOR_KINDS = {
    "github_issue": "github_issue",
    "ticket": "github_issue",
    "github_pr": "github_pr",
    "session": "session",
    "url": "url",
}


@attrs.frozen(kw_only=True)
class IndexReport:
    written: int
    skipped: int  # sessions without a single turn to index


def bounded(texts: Sequence[str], limit: int = MAX_CHARS) -> tuple[list[str], int]:
    """``texts`` within ``limit`` characters: whole when they fit, else the head and the tail
    of the session with its middle left out. Returns the texts kept and the count omitted."""
    total = sum(len(t) for t in texts)
    if total <= limit:
        return list(texts), 0
    half = limit // 2
    head: list[str] = []
    used = 0
    for text in texts:
        if used >= half:
            break
        head.append(text[: half - used])
        used += len(head[-1])
    tail: list[str] = []
    used = 0
    for text in reversed(texts):
        if used >= limit - half:
            break
        tail.insert(0, text[-(limit - half - used) :])
        used += len(tail[0])
    kept = head + tail
    return kept, total - sum(len(t) for t in kept)


def _gist(
    workflow: str, turns: int, topic: str, plans: Sequence[object], literals: list[str]
) -> str:
    """The writer's own prose about the session: a finding cue, never shown as evidence."""
    kinds: dict[str, int] = {}
    for plan in plans:
        acts = plan.get("plan", {}).get("acts", []) if isinstance(plan, dict) else []
        for act in acts if isinstance(acts, list) else ():
            if isinstance(act, dict) and isinstance(act.get("kind"), str):
                kinds[act["kind"]] = kinds.get(act["kind"], 0) + 1
    shown = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(kinds.items()))
    parts = [f"A {workflow} conversation of {turns} turn{'s' if turns != 1 else ''}"]
    if topic:
        parts.append(f"mostly on {topic}")
    if shown:
        parts.append(f"with acts: {shown}")
    if literals:
        parts.append(f"naming {', '.join(literals[:3])}")
    return "; ".join(parts) + "."


def derive_entry(
    record: RecallRecord, *, counts: RecallCounts, parent_exists: bool = False
) -> IndexEntry:
    """The session's entry, judged against ``counts`` (the rest of the store)."""
    session = record.session
    recalling = rec.recall_turns(record)
    said = rec.user_turns(record, without=recalling)
    kept, omitted = bounded([s.text for s in said])
    signals: dict[str, EvidenceMode] = {}

    def signal(term: str, mode: EvidenceMode) -> None:
        known = signals.get(term)
        if known is None or mode.tier > known.tier:
            signals[term] = mode

    user_keywords = keywords(kept, limit=USER_KEYWORDS)
    for word in user_keywords:
        signal(word, EvidenceMode.USER_CONSTITUTED)
    replied = list(rec.replies(record))
    attested = keywords([r.text for r in replied if r.attested], limit=REPLY_KEYWORDS)
    observed = keywords([r.text for r in replied if not r.attested], limit=REPLY_KEYWORDS)
    for word in attested:
        signal(word, EvidenceMode.ATTESTED)
    for word in observed:
        signal(word, EvidenceMode.OBSERVED)
    for word in words(session.workflow):
        signal(word, EvidenceMode.OBSERVED)

    identifiers: dict[str, IdentifierTuple] = {}
    anchors: dict[tuple[str, str], StructuredAnchor] = {}
    sources = [(s.turn_id, s.text, EvidenceMode.USER_CONSTITUTED) for s in said]
    sources += [
        (r.turn_id, r.text, EvidenceMode.ATTESTED if r.attested else EvidenceMode.OBSERVED)
        for r in replied
    ]
    for turn_id, text, mode in (s for s in sources if s[0] not in recalling):
        for found in find_identifiers(text):
            known = identifiers.get(found.literal)
            if known is None or mode.tier > known.evidence_mode.tier:
                elsewhere = counts.identifiers.get(found.literal, 0)
                identifiers[found.literal] = IdentifierTuple(
                    literal=found.literal,
                    source=f"turn:{turn_id}",
                    source_namespace=found.namespace,
                    precision=1.0 / (1 + elsewhere),
                    evidence_mode=mode,
                )
            signal(found.literal, mode)
            kind = "memory" if found.literal.startswith("memory/") else _ANCHOR_KINDS.get(
                found.namespace
            )
            if kind is not None:
                channel = (
                    AnchorChannel.USER
                    if mode is EvidenceMode.USER_CONSTITUTED
                    else AnchorChannel.TRANSCRIPT
                )
                key = (kind, found.literal)
                if key not in anchors or channel is AnchorChannel.USER:
                    anchors[key] = StructuredAnchor(kind=kind, ref=found.literal, channel=channel)

    markers = profile(kept, others=counts.terms, rare_at=RARE_AT)
    settled = tuple(
        c
        for c in markers.coinage
        if any(set(words(c)) <= set(words(s.text)) and settles(s.text) for s in said)
    )
    for group in (markers.coinage, markers.actor):
        for item in group:
            for word in words(item):
                signal(word, EvidenceMode.USER_CONSTITUTED)
    spine = content_words(said[0].text) if said else []
    topic_words = [w for w in dict.fromkeys(spine) if w in user_keywords][:3] or user_keywords[:3]
    topic = " ".join(topic_words)
    plans = [t.plan for t in record.turns if t.plan is not None]
    gist = _gist(session.workflow, len(record.turns), topic, plans, list(identifiers))
    for word in content_words(gist):
        signal(word, EvidenceMode.INFERRED)
    parent = rec.fork_of(record)
    last = record.turns[-1] if record.turns else None
    return IndexEntry(
        session_id=session.session_id,
        topic=topic,
        keywords=tuple(dict.fromkeys([*user_keywords, *attested, *observed])),
        gist=gist,
        identifiers=tuple(identifiers.values()),
        markers=markers,
        cross_refs=tuple(anchors.values()),
        settled=settled,
        signals=signals,
        source_scan=SourceScan(
            skipped_lines=rec.skipped_lines(record),
            unverified_user_turns=rec.unverified_user_turns(record),
            omitted_chars=omitted,
        ),
        started_at=rec.started(record),
        recency=rec.last_active(record),
        scope=Scope(
            workflow=session.workflow,
            account_id=session.account_id,
            case_ids=rec.case_ids(record),
        ),
        fork_marker=parent is not None,
        parent_pointer=parent if parent_exists else None,
        turn_count=len(record.turns),
        recall_turns=recalling,
        indexed_through=last.turn_id if last is not None else None,
    )


def entry_terms(entry: IndexEntry) -> str:
    """The words of the entry's full-text row (the gist's too: it is a finding cue)."""
    found: list[str] = []
    found += words(entry.topic)
    found += list(entry.keywords)
    for identifier in entry.identifiers:
        found += words(identifier.literal)
    found += entry.markers.terms()
    found += content_words(entry.gist)
    found += words(entry.scope.workflow)
    for case_id in entry.scope.case_ids:
        found += words(case_id)
    return " ".join(dict.fromkeys(w for w in found if w))


def new_entry(entry: IndexEntry, *, findable: bool = True) -> NewRecallEntry:
    """The row the store keeps. An entry that is not ``findable`` (a session whose every user
    turn was a recall: it asked about the past and said nothing of its own) holds no words and
    no identifiers, so no cue reaches it; it still records that the session was indexed."""
    return NewRecallEntry(
        session_id=entry.session_id,
        entry=entry_json(entry),
        terms=entry_terms(entry) if findable else "",
        identifiers=tuple(
            RecallIdentifier(literal=i.literal, namespace=i.source_namespace)
            for i in (entry.identifiers if findable else ())
        ),
        indexed_through=entry.indexed_through,
        writer_version=entry.writer_version,
    )


async def index_session(store: Store, account_id: str, session_id: str) -> IndexEntry | None:
    """Write the session's entry from its record now; None for a session without turns."""
    record = await store.read_recall_record(account_id, session_id)
    if record is None or not record.turns:
        return None
    said = rec.own_words(record)
    literals = list(dict.fromkeys(f.literal for s in said for f in find_identifiers(s.text)))
    candidates = coinage_candidates([s.text for s in said])[:24]
    counts = await store.count_recall_terms(
        account_id,
        terms=candidates,
        identifiers=literals,
        exclude_session=session_id,
        upto=RARE_AT + 1,  # a coinage is held by at most RARE_AT other sessions: stop counting
    )
    parent = rec.fork_of(record)
    parent_exists = parent is not None and (await store.get_session(account_id, parent)) is not None
    entry = derive_entry(record, counts=counts, parent_exists=parent_exists)
    await store.write_recall_entry(account_id, new_entry(entry, findable=bool(said)))
    return entry


async def index_account(
    store: Store,
    account_id: str,
    *,
    everything: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> IndexReport:
    """Write the entry of every session whose entry is missing or stale (``everything``: of
    every session). ``progress(done, total)`` is called after each session."""
    backlog = await store.list_recall_backlog(
        account_id, writer_version=WRITER_VERSION, everything=everything, limit=10**9
    )
    written = skipped = 0
    for done, session in enumerate(backlog, start=1):
        entry = await index_session(store, account_id, session.session_id)
        if entry is None:
            skipped += 1
        else:
            written += 1
        if progress is not None:
            progress(done, len(backlog))
    return IndexReport(written=written, skipped=skipped)


__all__ = [
    "MAX_CHARS",
    "IndexReport",
    "bounded",
    "derive_entry",
    "entry_terms",
    "index_account",
    "index_session",
    "new_entry",
]
