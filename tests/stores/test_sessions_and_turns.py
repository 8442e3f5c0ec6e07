"""Sessions and user turns."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, OTHER, MakeTurn

from turnframe.lifecycle import TurnPhase
from turnframe.stores import AlreadyExists, NotFound, PayloadImmutable, Store

pytestmark = pytest.mark.anyio


async def test_a_created_session_reads_back(store: Store) -> None:
    created = await store.create_session(
        account_id=ACCOUNT, workflow="tickets", thread_context={"summaries": []}
    )
    assert await store.get_session(ACCOUNT, created.session_id) == created
    assert created.last_turn_id is None
    assert created.session_id.startswith("ses_")


async def test_creating_a_known_session_id_again_returns_the_stored_session(store: Store) -> None:
    first = await store.create_session(account_id=ACCOUNT, workflow="tickets", session_id="s1")
    again = await store.create_session(
        account_id=ACCOUNT, workflow="tickets", session_id="s1", thread_context={"x": 1}
    )
    assert again == first


async def test_a_session_id_reused_for_another_workflow_is_refused(store: Store) -> None:
    await store.create_session(account_id=ACCOUNT, workflow="tickets", session_id="s1")
    with pytest.raises(AlreadyExists):
        await store.create_session(account_id=ACCOUNT, workflow="orders", session_id="s1")


async def test_a_recorded_user_turn_starts_received_and_is_the_sessions_last_turn(
    store: Store,
) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    turn = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "close it"}
    )
    assert turn.phase is TurnPhase.RECEIVED
    assert turn.payload == {"text": "close it"}
    assert turn.plan is None and turn.reduction is None
    assert await store.get_turn(ACCOUNT, turn.turn_id) == turn
    reread = await store.get_session(ACCOUNT, session.session_id)
    assert reread is not None and reread.last_turn_id == turn.turn_id


async def test_recording_the_same_turn_again_returns_the_stored_one(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    first = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "a"}, turn_id="t1"
    )
    again = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "a"}, turn_id="t1"
    )
    assert again == first


async def test_a_turn_id_reused_with_a_different_payload_is_refused(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "a"}, turn_id="t1"
    )
    with pytest.raises(PayloadImmutable):
        await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={"text": "b"}, turn_id="t1"
        )
    stored = await store.get_turn(ACCOUNT, "t1")
    assert stored is not None and stored.payload == {"text": "a"}


async def test_a_turn_for_an_unknown_session_is_refused(store: Store) -> None:
    with pytest.raises(NotFound):
        await store.record_user_turn(account_id=ACCOUNT, session_id="nope", payload={})


async def test_a_sessions_turns_list_in_the_order_they_were_recorded(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    ids = [
        (
            await store.record_user_turn(
                account_id=ACCOUNT, session_id=session.session_id, payload={"n": n}
            )
        ).turn_id
        for n in range(5)
    ]
    listed = await store.list_session_turns(ACCOUNT, session.session_id)
    assert [t.turn_id for t in listed] == ids


async def test_unfinished_turns_exclude_delivered_and_failed_ones(
    store: Store, make_turn: MakeTurn
) -> None:
    open_turn = await make_turn(phase=TurnPhase.EXECUTING)
    await make_turn(phase=TurnPhase.DELIVERED)
    failed = await make_turn(phase=TurnPhase.INTERPRETED)
    await store.advance_phase(ACCOUNT, failed.turn_id, TurnPhase.INTERPRETED, TurnPhase.FAILED)
    unfinished = await store.list_unfinished_turns(account_id=ACCOUNT)
    assert [t.turn_id for t in unfinished] == [open_turn.turn_id]


async def test_the_recovery_scan_without_an_account_sees_every_account(
    store: Store, make_turn: MakeTurn
) -> None:
    mine = await make_turn(ACCOUNT)
    theirs = await make_turn(OTHER)
    everyone = await store.list_unfinished_turns(account_id=None)
    assert {(t.account_id, t.turn_id) for t in everyone} == {
        (ACCOUNT, mine.turn_id),
        (OTHER, theirs.turn_id),
    }
    only_mine = await store.list_unfinished_turns(account_id=ACCOUNT)
    assert [t.turn_id for t in only_mine] == [mine.turn_id]


async def test_the_thread_context_is_replaced_as_a_whole(store: Store) -> None:
    session = await store.create_session(
        account_id=ACCOUNT, workflow="tickets", thread_context={"summaries": ["one"]}
    )
    await store.save_thread_context(ACCOUNT, session.session_id, {"summaries": ["one", "two"]})
    reread = await store.get_session(ACCOUNT, session.session_id)
    assert reread is not None and reread.thread_context == {"summaries": ["one", "two"]}
