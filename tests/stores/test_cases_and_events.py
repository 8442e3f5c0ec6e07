"""Cases under optimistic concurrency and their immutable, globally sequenced events."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, OTHER, MakeCase, MakeTurn

from turnframe.stores import AlreadyExists, CaseUpdate, CommitBundle, NewCase, NewEvent, Store

pytestmark = pytest.mark.anyio


async def test_a_seeded_case_reads_back_at_its_revision(store: Store) -> None:
    created = await store.create_case(
        account_id=ACCOUNT,
        case=NewCase(workflow="tickets", label="Printer", state={"status": "open"}, revision=7),
    )
    assert created.case_id.startswith("case_")
    assert await store.get_case(ACCOUNT, created.case_id) == created
    assert (created.revision, created.state) == (7, {"status": "open"})


async def test_seeding_an_existing_case_id_is_refused(store: Store) -> None:
    case = NewCase(workflow="tickets", label="Printer", state={}, case_id="c1")
    await store.create_case(account_id=ACCOUNT, case=case)
    with pytest.raises(AlreadyExists):
        await store.create_case(account_id=ACCOUNT, case=case)


async def test_cases_are_found_by_workflow_and_label(store: Store, make_case: MakeCase) -> None:
    one = await make_case(label="Printer")
    two = await make_case(label="Printer")
    await make_case(label="Laptop")
    found = await store.list_cases(ACCOUNT, workflow="tickets", label="Printer")
    assert [c.case_id for c in found] == [one.case_id, two.case_id]
    assert len(await store.list_cases(ACCOUNT)) == 3
    assert await store.list_cases(ACCOUNT, workflow="orders") == []


async def _commit_event(store: Store, account: str, turn_id: str, case_id: str, rev: int) -> int:
    receipt = await store.commit_bundle(
        CommitBundle(
            account_id=account,
            turn_id=turn_id,
            case_updates=[
                CaseUpdate(case_id=case_id, expected_revision=rev, new_revision=rev + 1, state={})
            ],
            events=[NewEvent(case_id=case_id, revision=rev + 1, type="changed", payload={})],
        )
    )
    return receipt.events[0].seq


async def test_events_get_one_global_increasing_sequence(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    mine, theirs = await make_case(ACCOUNT), await make_case(OTHER)
    my_turn, their_turn = await make_turn(ACCOUNT), await make_turn(OTHER)
    seqs = [
        await _commit_event(store, ACCOUNT, my_turn.turn_id, mine.case_id, 1),
        await _commit_event(store, OTHER, their_turn.turn_id, theirs.case_id, 1),
        await _commit_event(store, ACCOUNT, my_turn.turn_id, mine.case_id, 2),
    ]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


async def test_events_are_listed_by_case_by_turn_and_after_a_sequence_number(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    a, b = await make_case(label="A"), await make_case(label="B")
    t1, t2 = await make_turn(), await make_turn()
    s1 = await _commit_event(store, ACCOUNT, t1.turn_id, a.case_id, 1)
    s2 = await _commit_event(store, ACCOUNT, t2.turn_id, b.case_id, 1)
    s3 = await _commit_event(store, ACCOUNT, t2.turn_id, a.case_id, 2)
    by_case = await store.list_events(ACCOUNT, case_id=a.case_id)
    by_turn = await store.list_events(ACCOUNT, turn_id=t2.turn_id)
    after = await store.list_events(ACCOUNT, after_seq=s1, limit=1)
    assert [e.seq for e in by_case] == [s1, s3]
    assert [e.seq for e in by_turn] == [s2, s3]
    assert [e.seq for e in after] == [s2]
    assert by_case[1].revision == 3 and by_case[1].turn_id == t2.turn_id
