"""Concurrent turns on one store never see or undo each other's uncommitted rows."""

from __future__ import annotations

import threading

import anyio
import anyio.lowlevel
import anyio.to_thread
import pytest
from store_kit import ACCOUNT, MakeCase, MakeTurn, entry

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseRecord,
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewEvent,
    RevisionConflict,
    Store,
    TurnRecord,
)

pytestmark = pytest.mark.anyio

J = JournalStatus


class Boom(Exception):
    pass


async def _turn_with_command(make_turn: MakeTurn, store: Store, key: str) -> TurnRecord:
    turn = await make_turn(phase=TurnPhase.EXECUTING)
    await store.admit(ACCOUNT, turn.turn_id, [entry(key)])
    return turn


def _bundle(turn: TurnRecord, key: str, case: CaseRecord) -> CommitBundle:
    return CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        journal_outcomes=[
            JournalOutcome(idempotency_key=key, expected=J.PENDING, status=J.COMMITTED)
        ],
        case_updates=[
            CaseUpdate(
                case_id=case.case_id,
                expected_revision=case.revision,
                new_revision=case.revision + 1,
                state={"by": key},
            )
        ],
        events=[NewEvent(case_id=case.case_id, revision=case.revision + 1, type=key, payload={})],
        replay_record={"by": key},
    )


async def _assert_committed(store: Store, turn: TurnRecord, key: str, case: CaseRecord) -> None:
    journal = await store.get_journal_entry(ACCOUNT, key)
    assert journal is not None and journal.status is J.COMMITTED
    stored = await store.get_case(ACCOUNT, case.case_id)
    assert stored is not None and stored.state == {"by": key}
    assert [e.type for e in await store.list_events(ACCOUNT, turn_id=turn.turn_id)] == [key]
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) == {"by": key}


async def _assert_absent(store: Store, turn: TurnRecord, key: str, case: CaseRecord) -> None:
    journal = await store.get_journal_entry(ACCOUNT, key)
    assert journal is not None and journal.status is J.PENDING
    stored = await store.get_case(ACCOUNT, case.case_id)
    assert stored == case
    assert await store.list_events(ACCOUNT, turn_id=turn.turn_id) == []
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) is None


@pytest.mark.parametrize("first_fails", [True, False], ids=["first-fails", "second-fails"])
async def test_two_concurrent_turns_never_see_or_undo_each_others_rows(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, first_fails: bool
) -> None:
    """The first turn's transaction is held open (its hook blocks) until the second turn has
    issued its own; then one of them fails and rolls back while the other commits."""
    first_case, second_case = await make_case(label="one"), await make_case(label="two")
    first = await _turn_with_command(make_turn, store, "first")
    second = await _turn_with_command(make_turn, store, "second")
    first_inside, second_issued = threading.Event(), threading.Event()

    def hold_then_maybe_fail() -> None:
        first_inside.set()
        second_issued.wait(timeout=5)
        if first_fails:
            raise Boom("first turn fails mid-transaction")

    def second_hook() -> None:
        if not first_fails:
            raise Boom("second turn fails mid-transaction")

    async def run_first() -> None:
        bundle = _bundle(first, "first", first_case)
        if first_fails:
            with pytest.raises(Boom):
                await store.commit_bundle(bundle, inside_transaction=hold_then_maybe_fail)
        else:
            await store.commit_bundle(bundle, inside_transaction=hold_then_maybe_fail)

    async def run_second() -> None:
        await anyio.to_thread.run_sync(first_inside.wait, 5)
        second_issued.set()
        bundle = _bundle(second, "second", second_case)
        if first_fails:
            await store.commit_bundle(bundle, inside_transaction=second_hook)
        else:
            with pytest.raises(Boom):
                await store.commit_bundle(bundle, inside_transaction=second_hook)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run_first)
        tg.start_soon(run_second)

    if first_fails:
        await _assert_absent(store, first, "first", first_case)
        await _assert_committed(store, second, "second", second_case)
    else:
        await _assert_committed(store, first, "first", first_case)
        await _assert_absent(store, second, "second", second_case)


async def test_many_concurrent_turns_half_failing_keep_exactly_the_committed_rows(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    work = []
    for n in range(12):
        case = await make_case(label=f"case {n}")
        turn = await _turn_with_command(make_turn, store, f"k{n}")
        work.append((n, turn, case))

    def fail() -> None:
        raise Boom("mid-transaction")

    async def run(n: int, turn: TurnRecord, case: CaseRecord) -> None:
        await anyio.lowlevel.checkpoint()
        if n % 2:
            with pytest.raises(Boom):
                await store.commit_bundle(_bundle(turn, f"k{n}", case), inside_transaction=fail)
        else:
            await store.commit_bundle(_bundle(turn, f"k{n}", case))

    async with anyio.create_task_group() as tg:
        for n, turn, case in work:
            tg.start_soon(run, n, turn, case)

    for n, turn, case in work:
        if n % 2:
            await _assert_absent(store, turn, f"k{n}", case)
        else:
            await _assert_committed(store, turn, f"k{n}", case)


async def test_concurrent_bundles_at_the_same_revision_commit_exactly_one(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turns = [await _turn_with_command(make_turn, store, f"k{n}") for n in range(6)]
    outcomes: list[str] = []

    async def run(n: int, turn: TurnRecord) -> None:
        try:
            await store.commit_bundle(_bundle(turn, f"k{n}", case))
            outcomes.append("committed")
        except RevisionConflict:
            outcomes.append("conflict")

    async with anyio.create_task_group() as tg:
        for n, turn in enumerate(turns):
            tg.start_soon(run, n, turn)

    assert sorted(outcomes) == ["committed"] + ["conflict"] * 5
    stored = await store.get_case(ACCOUNT, case.case_id)
    assert stored is not None and stored.revision == case.revision + 1
    assert len(await store.list_events(ACCOUNT, case_id=case.case_id)) == 1


async def test_a_cancelled_caller_leaves_its_bundle_whole_or_absent(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await _turn_with_command(make_turn, store, "k1")
    with anyio.CancelScope() as scope:
        scope.cancel()
        await store.commit_bundle(_bundle(turn, "k1", case))
    journal = await store.get_journal_entry(ACCOUNT, "k1")
    assert journal is not None
    if journal.status is J.COMMITTED:
        await _assert_committed(store, turn, "k1", case)
    else:
        await _assert_absent(store, turn, "k1", case)
