"""Recall's Find at 1k, 10k and 100k indexed sessions on SQLite, and the index writer's pace.

The synthetic store is built with bulk inserts into a real turnframe SQLite store (its
migrations, triggers and full-text tables): sessions of three user turns drawn from a 6,000-word
vocabulary (a few words common, most rare), one in five naming a ticket, each turn with its
reply; in one session in ten the last turn is a recall ("what was that thing about …") answered
by a presentation quoting another session, which Find must leave out. Each has an index entry
with the writer's keywords, topic and identifiers, built directly for speed (the writer itself
is measured below). It grows 1k → 10k → 100k and is measured at each size.

- **Find**: what one recall step costs before grounding: the cue's store query (index entries,
  identifiers and spines), the entries of the hits, identifier precision, and the ranking. Cues
  are three words (one in five with a ticket number) of a random session's turns, or words no
  session holds. Baselines, measured in the same run on the same database, query by query:
  the *same match* is the store's own statement for the cue run raw through aiosqlite (so the
  ratio is what Find adds around it: entries, precision, ranking, the thread hops); *bm25* is
  the plain way to write it, one FTS5 query over the same two full-text tables for the same
  words (``"a" OR "b" …``), best 16 by bm25 over every match.
- **Index writer**: sessions per second through ``index_session`` (read the record, judge it
  against the store, derive, write). Baseline: the same rows written by raw statements.

Prints p95 per size, the ratios, the growth of Find's p95 from 1k to 100k sessions and whether
the 50 ms target at 100k holds. ``--quick --json`` prints one JSON object.

    python benchmarks/recall.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite
import anyio

from turnframe.recall.cue import cue, input_type, track_of
from turnframe.recall.entry import (
    EvidenceMode,
    IdentifierTuple,
    IndexEntry,
    Scope,
    SourceScan,
    entry_from_json,
)
from turnframe.recall.find import FIND_LIMIT, find, query_terms
from turnframe.recall.identifiers import find_identifiers
from turnframe.recall.rank import rank
from turnframe.recall.salience import MarkerProfile
from turnframe.recall.words import keywords
from turnframe.recall.writer import entry_terms, index_session, new_entry
from turnframe.stores import NewRecallEntry, RecallQuery, RecallScope, SqliteStore
from turnframe.stores.rows import dump_json
from turnframe.stores.sqlite.ops.recall import find_statement

ACCOUNT = "bench"
SIZES = (1_000, 10_000, 100_000)
TARGET_MS = 50.0
START = datetime(2025, 1, 1, tzinfo=UTC)
WRITTEN = "2026-01-01T00:00:00.000000+00:00"
RECALLING = "what was that thing about"
_SYLLABLES = [a + b for a in "bcdfglmnprstv" for b in ("a", "e", "i", "o", "u", "ai", "ou")]


def _vocabulary(rng: random.Random, size: int = 6_000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Synthetic:
    """Deterministic sessions: their ids, turns' texts and when they happened."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng)
        # A few words are common (a Zipf-ish head), most are rare.
        self.cumulative = list(
            itertools.accumulate(1.0 / (rank + 10) for rank in range(len(self.words)))
        )
        self.sessions: list[tuple[str, list[str], datetime]] = []

    def sentence(self, n: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.cumulative, k=n))

    def make(self, count: int) -> list[tuple[str, list[str], datetime]]:
        made = []
        for _ in range(count):
            number = len(self.sessions)
            texts = [self.sentence(12), self.sentence(10), self.sentence(8)]
            if number % 5 == 0:
                texts[self.rng.randrange(2)] += f" about ticket {self.rng.randint(1, 50_000)}"
            if number % 10 == 3:  # the user recalled another conversation
                texts[2] = f"{RECALLING} {self.sentence(3)}"
            at = START + timedelta(minutes=7 * number)
            row = (f"ses_{number:012d}", texts, at)
            self.sessions.append(row)
            made.append(row)
        return made

    def cues(self, count: int) -> list[str]:
        found = []
        for n in range(count):
            if n % 10 == 9:  # a cue nothing holds
                found.append(f"the {self.rng.choice(_SYLLABLES) * 4} thing")
                continue
            _, texts, _ = self.rng.choice(self.sessions)
            words = " ".join(texts).split()
            picked = " ".join(self.rng.sample(words, k=min(3, len(words))))
            ticket = next((w for w in words if w.isdigit()), None)
            about = f"what did we say about {picked}"
            found.append(about + (f" ticket {ticket}" if ticket else ""))
        return found


def _entry(session_id: str, texts: list[str], at: datetime) -> NewRecallEntry:
    """The entry the writer would derive, without its markers: keywords, topic, identifiers
    (of the user's own turns: a recall turn is left out, as the writer leaves it out)."""
    own = [t for t in texts if not t.startswith(RECALLING)]
    said = keywords(own, limit=16)
    found = [f for text in own for f in find_identifiers(text)]
    entry = IndexEntry(
        session_id=session_id,
        topic=" ".join(said[:3]),
        keywords=tuple(said),
        gist=f"A bench-desk conversation of {len(texts)} turns.",
        identifiers=tuple(
            IdentifierTuple(
                literal=f.literal,
                source=f"turn:{session_id}-t0",
                source_namespace=f.namespace,
                precision=1.0,
                evidence_mode=EvidenceMode.USER_CONSTITUTED,
            )
            for f in found
        ),
        markers=MarkerProfile(),
        cross_refs=(),
        settled=(),
        signals=dict.fromkeys(said, EvidenceMode.USER_CONSTITUTED),
        source_scan=SourceScan(),
        started_at=at,
        recency=at + timedelta(minutes=len(texts) - 1),
        scope=Scope(workflow="bench-desk", account_id=ACCOUNT),
        turn_count=len(texts),
        indexed_through=f"{session_id}-t{len(texts) - 1}",
    )
    return new_entry(entry)


def _bulk_insert(path: Path, rows: list[tuple[str, list[str], datetime]]) -> None:
    """Sessions, turns (the triggers fill the full-text rows) and their entries."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO sessions (account_id, id, workflow, created_at, thread_context, "
        "last_turn_id) VALUES (?, ?, 'bench-desk', ?, 'null', ?)",
        [(ACCOUNT, sid, at.isoformat(), f"{sid}-t{len(t) - 1}") for sid, t, at in rows],
    )
    conn.executemany(
        "INSERT INTO turns (account_id, id, session_id, payload, phase, plan, created_at, "
        "phase_changed_at) VALUES (?, ?, ?, ?, 'delivered', ?, ?, ?)",
        [
            (
                ACCOUNT,
                f"{sid}-t{i}",
                sid,
                dump_json({"text": text, "clock": (at + timedelta(minutes=i)).isoformat()}),
                '{"plan":{"acts":[{"kind":"chitchat"}]}}',
                at.isoformat(),
                at.isoformat(),
            )
            for sid, texts, at in rows
            for i, text in enumerate(texts)
        ],
    )
    conn.executemany(
        "INSERT INTO assistant_turns (account_id, turn_id, blocks, created_at) "
        "VALUES (?, ?, ?, ?)",
        [
            (ACCOUNT, f"{sid}-t{i}", _reply(text, i), at.isoformat())
            for sid, texts, at in rows
            for i, text in enumerate(texts)
        ],
    )
    entries = [_entry(*row) for row in rows]
    conn.executemany(
        "INSERT INTO recall_index (account_id, session_id, entry, terms, indexed_through, "
        "writer_version, written_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (ACCOUNT, e.session_id, dump_json(e.entry), e.terms, e.indexed_through, 1, WRITTEN)
            for e in entries
        ],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO recall_identifiers (account_id, literal, session_id, namespace) "
        "VALUES (?, ?, ?, ?)",
        [(ACCOUNT, i.literal, e.session_id, i.namespace) for e in entries for i in e.identifiers],
    )
    conn.execute("COMMIT")
    conn.close()


def _reply(text: str, index: int) -> str:
    """A turn's reply blocks: a presentation answering a recall turn (act 0), else a note."""
    if text.startswith(RECALLING):
        block = {
            "block_id": f"blk_{index}",
            "kind": "answer",
            "code": "turnframe.recall.presented",
            "text": f"Is this the conversation you mean? \u201c{text[len(RECALLING) + 1:]}\u201d",
            "acts": [0],
            "data": {},
        }
    else:
        block = {
            "block_id": f"blk_{index}",
            "kind": "text",
            "code": "turnframe.text.chitchat",
            "text": "Noted: " + " ".join(text.split()[:6]),
            "acts": [0],
            "data": {},
        }
    return dump_json([block])


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] * 1000 if len(samples) > 1 else samples[0] * 1000


async def _find_once(store: SqliteStore, text: str) -> None:
    recall = cue(text)
    found = await find(store, ACCOUNT, recall, scope=RecallScope.SPINE)
    rank(found.candidates, recall.trace, track_of(input_type(recall.trace)), None)


def _same_match(text: str) -> tuple[str, list[Any]]:
    """The store's own statement for the cue (the same match, the same bounds), to run raw."""
    recall = cue(text)
    _, terms = query_terms(recall)
    query = RecallQuery(
        terms=tuple(terms),
        identifiers=tuple(i.literal for i in recall.trace.identifiers),
        scope=RecallScope.SPINE,
        limit=FIND_LIMIT,
    )
    return find_statement(ACCOUNT, query)


def _bm25_match(text: str) -> tuple[str, list[Any]]:
    """The plain way to write it: one FTS5 query over both tables, best 16 by bm25."""
    words, _ = query_terms(cue(text))
    match = " OR ".join(f'"{w}"' for w in words) or '"nothing"'
    return _BM25, [match, ACCOUNT, match, ACCOUNT]


_BM25 = (
    "SELECT session_id FROM ("
    "SELECT r.session_id, bm25(recall_index_fts) AS score FROM recall_index_fts "
    "CROSS JOIN recall_index r ON r.id = recall_index_fts.rowid "
    "WHERE recall_index_fts MATCH ? AND r.account_id = ? "
    "UNION ALL SELECT t.session_id, bm25(recall_text_fts) FROM recall_text_fts "
    "CROSS JOIN recall_text t ON t.id = recall_text_fts.rowid "
    "WHERE recall_text_fts MATCH ? AND t.account_id = ? AND t.part = 'spine'"
    ") ORDER BY score LIMIT 16"
)


async def _measure_find(path: Path, cues: list[str]) -> dict[str, float]:
    """p95 (ms) of Find and of the two raw baselines, interleaved query by query."""
    times: dict[str, list[float]] = {"find": [], "same_match": [], "bm25": []}
    async with SqliteStore.open(path) as store, aiosqlite.connect(path) as raw:

        async def raw_query(statement: tuple[str, list[Any]]) -> None:
            await (await raw.execute(*statement)).fetchall()

        for text in cues[:5]:  # warm all three
            await _find_once(store, text)
            await raw_query(_same_match(text))
            await raw_query(_bm25_match(text))
        for text in cues:
            started = time.perf_counter()
            await _find_once(store, text)
            times["find"].append(time.perf_counter() - started)
            for name, statement in (("same_match", _same_match), ("bm25", _bm25_match)):
                built = statement(text)
                started = time.perf_counter()
                await raw_query(built)
                times[name].append(time.perf_counter() - started)
    return {name: _p95(samples) for name, samples in times.items()}


async def _measure_writer(path: Path, session_ids: list[str]) -> tuple[float, float]:
    async with SqliteStore.open(path) as store:
        started = time.perf_counter()
        for session_id in session_ids:
            await index_session(store, ACCOUNT, session_id)
        writer = len(session_ids) / (time.perf_counter() - started)
        entries = await store.get_recall_entries(ACCOUNT, session_ids)
    async with aiosqlite.connect(path, isolation_level=None) as raw:
        started = time.perf_counter()
        for entry in entries:
            await raw.execute("BEGIN IMMEDIATE")
            await raw.execute(
                "UPDATE recall_index SET entry = ?, terms = ?, written_at = ? "
                "WHERE account_id = ? AND session_id = ?",
                (
                    dump_json(entry.entry),
                    entry_terms_of(entry.entry),
                    WRITTEN,
                    ACCOUNT,
                    entry.session_id,
                ),
            )
            await raw.execute("COMMIT")
        baseline = len(entries) / (time.perf_counter() - started)
    return writer, baseline


def entry_terms_of(entry: Any) -> str:
    parsed = entry_from_json(entry)
    return entry_terms(parsed) if parsed is not None else ""


async def run(quick: bool) -> dict[str, Any]:
    synthetic = Synthetic()
    queries = 60 if quick else 300
    figures: dict[str, Any] = {"queries_per_size": queries}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "recall.db"
        async with SqliteStore.open(path):
            pass  # the schema, migrated
        built = 0
        for size in SIZES:
            started = time.perf_counter()
            _bulk_insert(path, synthetic.make(size - built))
            built = size
            label = f"{size // 1000}k"
            figures[f"build_s_{label}"] = round(time.perf_counter() - started, 2)
            p95 = await _measure_find(path, synthetic.cues(queries))
            figures[f"find_p95_ms_{label}"] = round(p95["find"], 2)
            figures[f"raw_same_match_p95_ms_{label}"] = round(p95["same_match"], 2)
            figures[f"raw_bm25_p95_ms_{label}"] = round(p95["bm25"], 2)
            figures[f"find_vs_raw_same_match_{label}"] = round(p95["find"] / p95["same_match"], 2)
            figures[f"find_vs_raw_bm25_{label}"] = round(p95["find"] / p95["bm25"], 2)
        sample = [sid for sid, _, _ in synthetic.sessions[: (200 if quick else 2_000)]]
        writer, raw_writer = await _measure_writer(path, sample)
    figures["index_sessions_per_s"] = round(writer, 1)
    figures["raw_entry_writes_per_s"] = round(raw_writer, 1)
    figures["index_vs_raw_writes"] = round(writer / raw_writer, 3)
    figures["growth_100k_vs_1k"] = round(figures["find_p95_ms_100k"] / figures["find_p95_ms_1k"], 2)
    figures["target_p95_ms_100k"] = TARGET_MS
    figures["target_met"] = figures["find_p95_ms_100k"] <= TARGET_MS
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer queries and writes")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figures = anyio.run(run, args.quick)
    if args.json:
        print(json.dumps(figures))
        return
    for size in SIZES:
        label = f"{size // 1000}k"
        print(
            f"{label:>5} sessions: find p95 {figures[f'find_p95_ms_{label}']:.2f} ms; "
            f"raw same match {figures[f'raw_same_match_p95_ms_{label}']:.2f} ms "
            f"(x{figures[f'find_vs_raw_same_match_{label}']}); "
            f"raw bm25 {figures[f'raw_bm25_p95_ms_{label}']:.2f} ms "
            f"(x{figures[f'find_vs_raw_bm25_{label}']})"
        )
    print(f"growth 100k vs 1k: x{figures['growth_100k_vs_1k']}")
    print(
        f"index writer: {figures['index_sessions_per_s']} sessions/s "
        f"(raw entry writes {figures['raw_entry_writes_per_s']}/s, "
        f"x{figures['index_vs_raw_writes']})"
    )
    verdict = "met" if figures["target_met"] else "NOT met"
    print(f"target p95 <= {TARGET_MS:.0f} ms at 100k: {verdict}")


if __name__ == "__main__":
    main()
