"""Cards over HTTP: shown with their options and arguments, clicked by label, never run twice."""

from __future__ import annotations

import pytest
from http_kit import ACCOUNT, NOTE, REBOOK, headers, serving

pytestmark = pytest.mark.anyio


async def test_the_open_card_shows_its_options_and_the_arguments_it_asks_to_confirm() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        turn = (await api.say(session_id, REBOOK)).json()
        card = await api.card(session_id)
    assert [b["code"] for b in turn["blocks"]][-1] == "turnframe.card.confirm_command"
    assert card["kind"] == "confirm_command" and card["turn_id"] == turn["turn_id"]
    assert [(o["label"], o["action"]) for o in card["options"]] == [
        ("confirm", "confirm"),
        ("decline", "decline"),
    ]
    assert card["commands"] == [
        {
            "name": "rebook",
            "args": {"date": "2026-03-20", "leg": "return"},
            "case_id": f"{ACCOUNT}:travel-desk:lisbon",
        }
    ]


async def test_a_session_without_an_open_card_answers_null() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await api.client.get(f"/v1/sessions/{session_id}/card", headers=headers())
    assert answer.json() == {"session_id": session_id, "card": None}


async def test_clicking_confirm_commits_the_card_and_closes_it() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        clicked = (await api.click(session_id, "Confirm")).json()
        after = await api.client.get(f"/v1/sessions/{session_id}/card", headers=headers())
    assert clicked["acts"] == []
    assert [b["code"] for b in clicked["blocks"]] == ["turnframe.receipt.committed"]
    assert clicked["events"] == [{"type": "rebooked", "case_id": f"{ACCOUNT}:travel-desk:lisbon"}]
    assert after.json()["card"] is None


async def test_a_second_click_on_the_same_card_executes_nothing_and_says_so() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        card = (await api.card(session_id))["interaction_id"]
        await api.click(session_id, "confirm", card=card)
        second = await api.click(session_id, "confirm", card=card)
        assert await api.event_count() == 1
    assert second.status_code == 200
    assert [b["code"] for b in second.json()["blocks"]] == ["turnframe.notice.already_done"]
    assert second.json()["events"] == []


async def test_a_second_click_without_naming_the_card_finds_no_open_card() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        await api.click(session_id, "confirm")
        second = await api.click(session_id, "confirm")
        assert await api.event_count() == 1
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "turnframe.http.no_open_card"


async def test_a_click_on_a_card_whose_case_moved_on_is_stale_and_executes_nothing() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        card = (await api.card(session_id))["interaction_id"]
        await api.say(session_id, NOTE)  # the case moves on: the card's revision is stale
        events = await api.event_count()
        stale = await api.click(session_id, "confirm", card=card)
        assert await api.event_count() == events
    assert stale.status_code == 200
    codes = [b["code"] for b in stale.json()["blocks"]]
    assert codes[0] == "turnframe.notice.card_stale"
    assert "turnframe.receipt.committed" not in codes
    assert stale.json()["events"] == []


async def test_declining_executes_nothing() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        declined = (await api.click(session_id, "decline")).json()
        assert await api.event_count() == 0
    assert [b["code"] for b in declined["blocks"]] == ["turnframe.notice.declined"]


async def test_an_unknown_label_is_refused_naming_the_cards_labels() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        await api.say(session_id, REBOOK)
        answer = await api.click(session_id, "maybe")
        turns = await api.store.list_session_turns(ACCOUNT, session_id)
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "turnframe.http.unknown_option"
    assert "confirm, decline" in answer.json()["error"]["message"]
    assert len(turns) == 1


async def test_a_card_of_another_session_is_unknown_here() -> None:
    async with serving() as api:
        one = await api.open_session()
        two = await api.open_session()
        await api.say(one, REBOOK)
        card = (await api.card(one))["interaction_id"]
        answer = await api.click(two, "confirm", card=card)
        assert await api.event_count() == 0
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "turnframe.http.unknown_card"
