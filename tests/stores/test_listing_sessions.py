"""Listing an account's sessions (what ``turnframe sessions`` shows)."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, OTHER

from turnframe.stores import Store

pytestmark = pytest.mark.anyio


async def test_an_accounts_sessions_list_oldest_first(store: Store) -> None:
    ids = [
        (await store.create_session(account_id=ACCOUNT, workflow="tickets")).session_id
        for _ in range(3)
    ]
    listed = await store.list_sessions(ACCOUNT)
    assert [s.session_id for s in listed] == ids


async def test_a_listed_session_carries_its_last_turn(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    turn = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"n": 1}
    )
    (listed,) = await store.list_sessions(ACCOUNT)
    assert listed.last_turn_id == turn.turn_id


async def test_another_accounts_sessions_are_not_listed(store: Store) -> None:
    await store.create_session(account_id=OTHER, workflow="tickets")
    assert await store.list_sessions(ACCOUNT) == []
