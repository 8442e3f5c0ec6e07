"""Invariant checkers for chaos tests: what must hold of a store after any crash schedule.

Each checker reads the store alone and returns the violations it found (empty when the
invariant holds), so a test can assert ``== []`` and see every problem at once.
"""

from __future__ import annotations

from collections import Counter

from turnframe._converter import converter
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.response import Block, BlockKind
from turnframe.stores.protocol import Store


async def receipt_violations(store: Store, account_id: str, turn_id: str) -> list[str]:
    """Every receipt of the turn's stored answer names events the store committed."""
    stored = await store.get_assistant_turn(account_id, turn_id)
    if stored is None:
        return []
    committed = {e.seq for e in await store.list_events(account_id)}
    problems = []
    for raw in stored.blocks:
        block = converter.structure(raw, Block)
        if block.kind is not BlockKind.RECEIPT:
            continue
        seqs = block.data.get("events", [])
        if not seqs or not set(seqs) <= committed:
            problems.append(f"turn {turn_id}: receipt {block.block_id} has no committed events")
    return problems


async def exactly_once_violations(store: Store, account_id: str) -> list[str]:
    """No command's events were committed twice, and every committed entry has its events."""
    events = await store.list_events(account_id)
    per_command = Counter(e.command_id for e in events if e.command_id is not None)
    revisions: dict[str, set[int]] = {}
    for event in events:
        if event.command_id is not None:
            revisions.setdefault(event.command_id, set()).add(event.revision)
    return [
        f"command {command} committed at several revisions {sorted(revs)}"
        for command, revs in revisions.items()
        if len(revs) > 1
    ] + [
        f"command {command} has {count} events"
        for command, count in per_command.items()
        if count > 1 and len(revisions[command]) > 1
    ]


async def ending_violations(store: Store, account_id: str, turn_id: str) -> list[str]:
    """The turn ended delivered, or failed with nothing committed."""
    turn = await store.get_turn(account_id, turn_id)
    if turn is None:
        return [f"turn {turn_id} is missing"]
    if turn.phase is TurnPhase.DELIVERED:
        return []
    if turn.phase is TurnPhase.FAILED:
        journal = await store.list_journal(account_id, turn_id)
        if any(j.status is JournalStatus.COMMITTED for j in journal):
            return [f"turn {turn_id} failed although a command committed"]
        if await store.list_events(account_id, turn_id=turn_id):
            return [f"turn {turn_id} failed although it has events"]
        return []
    return [f"turn {turn_id} ended in phase {turn.phase.value}"]
