"""Our own corpora in the seed project's file format (``seed_format/``), and how to load them.

The layout and every field follow the seed's files: pack folders with extra manifest keys and
upper-case parts of speech, lexicons where an inflected line redefines a lemma, chain files
with ``domains_*_k`` counts, key orders that change mid-file, a replacement line carrying
``superseded_by``, lines of an intent turnframe does not compose, and a cross-pack file. The
words (a garden, its people) are ours.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from pathlib import Path

import attrs

from turnframe._converter import structure
from turnframe.cli.desk import build_runtime
from turnframe.clock import ManualClock
from turnframe.corpora import CorpusRegistry, ThreadContext
from turnframe.corpora.sources import ChainsSource, CorpusSources, LoadedCorpora, load_corpora
from turnframe.examples import sample
from turnframe.response import Block, BlockKind
from turnframe.stores import SqliteStore

ROOT = Path(__file__).parent / "seed_format"
PACKS = ROOT / "language_packs" / "data"
TEACHING = ROOT / "teaching"

GARDEN = PACKS / "fx_core_garden_v1"
ROLES = PACKS / "fx_core_roles_v1"
ROLES_V2 = PACKS / "fx_core_roles_v2"
ROLES_V3 = PACKS / "fx_core_roles_v3"
GARDEN_CHAINS = TEACHING / "garden_chains" / "garden_chains_v1.jsonl"
ROLES_CHAINS = TEACHING / "roles_chains" / "roles_chains_v1.jsonl"
ROLES_CHAINS_V2 = TEACHING / "roles_chains_v2" / "roles_chains_v2.jsonl"
CROSS_PACK_CHAINS = TEACHING / "cross_pack_chains" / "cross_pack_chains_v1.jsonl"

#: Registration order, as the seed registers its corpora: in-pack corpora, then cross-pack.
ALL_PACKS = (GARDEN, ROLES, ROLES_V2, ROLES_V3)
IN_PACK_CHAINS = (GARDEN_CHAINS, ROLES_CHAINS, ROLES_CHAINS_V2)


def sources(*, cross_pack: bool = True) -> CorpusSources:
    chains = (*IN_PACK_CHAINS, CROSS_PACK_CHAINS) if cross_pack else IN_PACK_CHAINS
    return CorpusSources(packs=ALL_PACKS, chains=tuple(ChainsSource(path=p) for p in chains))


@functools.cache
def loaded(*, cross_pack: bool = True) -> LoadedCorpora:
    return load_corpora(sources(cross_pack=cross_pack))


def registry(*, cross_pack: bool = True) -> CorpusRegistry:
    """Read-only use only: the registry is shared between tests."""
    return loaded(cross_pack=cross_pack).registry


@attrs.frozen
class ChatRun:
    answers: list[Block]
    thread: ThreadContext


async def chat(*texts: str, anaphora: bool) -> ChatRun:
    """One session on the travel desk's runtime answering from the fixture corpora (a fresh
    registry: the desk registers its own corpus into it): its answer blocks, and the thread the
    session stored (docs/corpora.md: persisted through the one converter)."""
    desk = sample("travel-desk")
    clock = ManualClock(at=datetime(2026, 1, 7, 9, 30, tzinfo=UTC))
    async with SqliteStore.open(":memory:") as store:
        await desk.seed_account(store, "demo")
        registry = load_corpora(sources()).registry
        runtime = build_runtime(store, desk, clock=clock, anaphora=anaphora, corpora=registry)
        answers: list[Block] = []
        async with runtime:
            session = await runtime.open_session(account_id="demo", workflow=desk.name)
            for text in texts:
                response = await runtime.handle_turn(runtime.new_turn(session, text))
                answers += [b for b in response.blocks if b.kind is BlockKind.ANSWER]
        record = await store.get_session("demo", session.session_id)
        assert record is not None
        stored = (record.thread_context or {}).get("thread") or {}
        return ChatRun(answers=answers, thread=structure(stored, ThreadContext))
