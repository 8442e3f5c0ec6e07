"""A client's idempotency key is kept with its turn: a re-post finds it, after a restart too."""

from __future__ import annotations

import anyio
import pytest
from store_kit import ACCOUNT, OTHER, StoreFactory

from turnframe.clock import ManualClock
from turnframe.stores import NotFound, Store

pytestmark = pytest.mark.anyio


async def test_a_turn_recorded_under_a_key_is_found_by_that_key(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    turn = await store.record_user_turn(
        account_id=ACCOUNT,
        session_id=session.session_id,
        payload={"text": "a"},
        idempotency_key="k1",
    )
    found = await store.get_turn_by_idempotency_key(ACCOUNT, session.session_id, "k1")
    assert found == turn
    assert await store.get_turn_by_idempotency_key(ACCOUNT, session.session_id, "k2") is None


async def test_recording_again_under_a_used_key_returns_the_first_turn_and_writes_nothing(
    store: Store,
) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    first = await store.record_user_turn(
        account_id=ACCOUNT,
        session_id=session.session_id,
        payload={"text": "a"},
        turn_id="t1",
        idempotency_key="k1",
    )
    again = await store.record_user_turn(
        account_id=ACCOUNT,
        session_id=session.session_id,
        payload={"text": "something else"},
        turn_id="t2",
        idempotency_key="k1",
    )
    assert again == first
    assert await store.get_turn(ACCOUNT, "t2") is None
    assert [t.turn_id for t in await store.list_session_turns(ACCOUNT, session.session_id)] == [
        "t1"
    ]


async def test_a_key_belongs_to_its_session(store: Store) -> None:
    one = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    two = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    a = await store.record_user_turn(
        account_id=ACCOUNT, session_id=one.session_id, payload={"text": "a"}, idempotency_key="k"
    )
    b = await store.record_user_turn(
        account_id=ACCOUNT, session_id=two.session_id, payload={"text": "b"}, idempotency_key="k"
    )
    assert a.turn_id != b.turn_id
    assert await store.get_turn_by_idempotency_key(ACCOUNT, two.session_id, "k") == b


async def test_another_accounts_key_answers_like_an_unknown_one(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    await store.record_user_turn(
        account_id=ACCOUNT,
        session_id=session.session_id,
        payload={"text": "a"},
        idempotency_key="k",
    )
    assert await store.get_turn_by_idempotency_key(OTHER, session.session_id, "k") is None
    with pytest.raises(NotFound):
        await store.record_user_turn(
            account_id=OTHER, session_id=session.session_id, payload={}, idempotency_key="k"
        )


async def test_a_turn_replayed_by_its_id_keeps_its_key(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    first = await store.record_user_turn(
        account_id=ACCOUNT,
        session_id=session.session_id,
        payload={"text": "a"},
        turn_id="t1",
        idempotency_key="k",
    )
    # The session actor records the turn again by its id, without the key.
    again = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "a"}, turn_id="t1"
    )
    assert again == first
    assert await store.get_turn_by_idempotency_key(ACCOUNT, session.session_id, "k") == first


async def test_of_concurrent_recordings_under_one_key_exactly_one_turn_is_written(
    store: Store,
) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    answers: list[str] = []

    async def post(n: int) -> None:
        turn = await store.record_user_turn(
            account_id=ACCOUNT,
            session_id=session.session_id,
            payload={"text": f"try {n}"},
            turn_id=f"t{n}",
            idempotency_key="same",
        )
        answers.append(turn.turn_id)

    async with anyio.create_task_group() as tg:
        for n in range(8):
            tg.start_soon(post, n)
    assert len(set(answers)) == 1
    assert len(await store.list_session_turns(ACCOUNT, session.session_id)) == 1


async def test_a_key_survives_reopening_the_store(
    store_factory: StoreFactory, clock: ManualClock
) -> None:
    if not store_factory.persistent:
        pytest.skip("an in-memory store does not outlive its connection")
    async with store_factory.open(clock=clock) as store:
        session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
        first = await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={}, idempotency_key="k"
        )
    async with store_factory.open(clock=clock) as store:
        assert await store.get_turn_by_idempotency_key(ACCOUNT, session.session_id, "k") == first
