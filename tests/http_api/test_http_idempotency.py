"""A re-post with the same Idempotency-Key returns the same turn and executes nothing again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
from http_kit import ACCOUNT, NOTE, REBOOK, headers, serving

from turnframe.stores import CommitBundle, SqliteStore, StoreTimeout
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.records import AssistantTurnRecord, BundleReceipt, Json

pytestmark = pytest.mark.anyio


async def test_a_repost_with_the_same_key_answers_the_same_turn_and_commits_nothing_more() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        first = await api.say(session_id, NOTE, key="key-1")
        events = await api.event_count()
        again = await api.say(session_id, NOTE, key="key-1")
        turns = await api.store.list_session_turns(ACCOUNT, session_id)
        assert await api.event_count() == events == 1
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert [t.turn_id for t in turns] == [first.json()["turn_id"]]


async def test_a_repost_of_a_click_answers_the_same_receipt_and_commits_nothing_more() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        card = await api.card(session_id)
        first = await api.click(session_id, "confirm", card=card["interaction_id"], key="c-1")
        again = await api.click(session_id, "confirm", card=card["interaction_id"], key="c-1")
        also = await api.click(session_id, "Confirm", key="c-1")  # the same option, named so
        assert await api.event_count() == 1
    assert first.json()["blocks"][0]["code"] == "turnframe.receipt.committed"
    assert again.json() == first.json() == also.json()


async def test_a_key_reused_for_another_message_is_refused_and_changes_nothing() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        first = await api.say(session_id, NOTE, key="key-1")
        other = await api.say(session_id, "Set the note to hello.", key="key-1")
        turns = await api.store.list_session_turns(ACCOUNT, session_id)
        assert await api.event_count() == 1
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "turnframe.http.idempotency_key_reused"
    assert first.json()["turn_id"] in other.json()["error"]["message"]
    assert len(turns) == 1


async def test_a_key_reused_for_a_click_after_a_message_is_refused() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK, key="key-1")
        clicked = await api.click(session_id, "confirm", key="key-1")
    assert clicked.status_code == 409
    assert clicked.json()["error"]["code"] == "turnframe.http.idempotency_key_reused"


async def test_the_same_key_in_another_session_is_another_turn() -> None:
    async with serving() as api:
        one = await api.open_session()
        two = await api.open_session()
        a = await api.say(one, NOTE, key="same")
        b = await api.say(two, "Set the note to hello.", key="same")
    assert a.json()["turn_id"] != b.json()["turn_id"]
    assert b.json()["blocks"][0]["code"] == "turnframe.receipt.committed"


async def test_concurrent_posts_with_one_key_make_one_turn() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answers = []

        async def post() -> None:
            answers.append(await api.say(session_id, NOTE, key="race"))

        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(post)
        turns = await api.store.list_session_turns(ACCOUNT, session_id)
        assert await api.event_count() == 1
    assert len(turns) == 1
    assert {a.status_code for a in answers} == {200}
    assert len({a.json()["turn_id"] for a in answers}) == 1
    assert sum("Idempotent-Replayed" not in a.headers for a in answers) == 1


async def test_a_key_is_remembered_across_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "turns.db")
    async with serving(path) as api:
        session_id = await api.open_session()
        first = await api.say(session_id, NOTE, key="key-1")
    async with serving(path) as api:
        again = await api.say(session_id, NOTE, key="key-1")
        assert await api.event_count() == 1
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"


class ResponsesDown(DelegatingStore):
    """Commits work; storing the reply fails while ``down`` (the turn stops after its commit)."""

    down = True

    async def save_assistant_turn(
        self, account_id: str, turn_id: str, blocks: Json, **kwargs: object
    ) -> AssistantTurnRecord:
        if self.down:
            raise StoreTimeout("the database stayed locked")
        return await super().save_assistant_turn(account_id, turn_id, blocks, **kwargs)  # type: ignore[arg-type]

    async def commit_bundle(self, bundle: CommitBundle, **kwargs: Any) -> BundleReceipt:
        # The reply rides in the bundle (ADR 0022): storing it fails there too while down.
        if self.down:
            bundle = attrs.evolve(bundle, reply=None)
        return await super().commit_bundle(bundle, **kwargs)


async def test_a_turn_that_stopped_after_its_commit_is_finished_once_by_a_repost() -> None:
    async with SqliteStore.open(":memory:") as inner:
        store = ResponsesDown(inner)
        async with serving(store) as api:
            session_id = await api.open_session()
            stopped = await api.say(session_id, NOTE, key="key-1")
            assert stopped.status_code == 503
            assert stopped.json()["error"]["code"] == "turnframe.turn.incomplete"
            assert stopped.headers["Retry-After"]
            store.down = False
            again = await api.say(session_id, NOTE, key="key-1")
            assert await api.event_count() == 1
    assert again.status_code == 200
    assert again.json()["phase"] == "delivered"
    assert [b["code"] for b in again.json()["blocks"]] == ["turnframe.receipt.committed"]


async def test_a_post_without_a_key_is_a_new_turn_each_time() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        a = await api.say(session_id, NOTE)
        b = await api.say(session_id, NOTE)
    assert a.json()["turn_id"] != b.json()["turn_id"]
    assert [x["code"] for x in b.json()["blocks"]] == ["turnframe.notice.no_change"]


@pytest.mark.parametrize("key", ["", "x" * 201, "caf\u00e9", "two words"])
async def test_a_malformed_key_is_refused_before_anything_runs(key: str) -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await api.client.post(
            f"/v1/sessions/{session_id}/turns",
            json={"text": NOTE},
            headers={**headers(), "Idempotency-Key": key.encode()},
        )
        assert await api.store.list_session_turns(ACCOUNT, session_id) == []
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "turnframe.http.bad_idempotency_key"
