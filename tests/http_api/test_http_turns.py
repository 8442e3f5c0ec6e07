"""Sessions and turns through the HTTP API: the turn comes back in the ``chat --json`` form."""

from __future__ import annotations

import pytest
from http_kit import ACCOUNT, DESK, NOTE, REBOOK, headers, serving

from turnframe.pipeline.replay_view import load_replay_view

pytestmark = pytest.mark.anyio

CHAT_JSON_KEYS = ["session_id", "turn_id", "phase", "acts", "blocks", "cards", "events"]


async def test_a_session_opened_over_http_is_listed_for_its_account_only() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        mine = (await api.client.get("/v1/sessions", headers=headers())).json()
        theirs = (await api.client.get("/v1/sessions", headers=headers("acct-z"))).json()
    assert [s["session_id"] for s in mine["sessions"]] == [session_id]
    assert mine["sessions"][0]["workflow"] == DESK.name
    assert theirs == {"sessions": []}


async def test_opening_a_session_answers_with_its_id_alone() -> None:
    async with serving() as api:
        answer = await api.client.post(
            "/v1/sessions", json={"workflow": DESK.name}, headers=headers()
        )
    assert answer.status_code == 201
    assert list(answer.json()) == ["session_id"]


async def test_a_session_on_an_unknown_workflow_is_refused_naming_the_known_ones() -> None:
    async with serving() as api:
        answer = await api.client.post(
            "/v1/sessions", json={"workflow": "pizza-desk"}, headers=headers()
        )
        listed = (await api.client.get("/v1/sessions", headers=headers())).json()
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "turnframe.runtime.unknown_workflow"
    assert DESK.name in answer.json()["error"]["hint"]
    assert listed == {"sessions": []}


async def test_a_message_answers_with_the_turn_in_the_chat_json_form() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await api.say(session_id, NOTE)
    assert answer.status_code == 200
    turn = answer.json()
    assert list(turn) == CHAT_JSON_KEYS
    assert turn["session_id"] == session_id and turn["phase"] == "delivered"
    assert [b["code"] for b in turn["blocks"]] == ["turnframe.receipt.committed"]
    assert turn["acts"] == [
        {
            "index": 0,
            "kind": "set_field",
            "result": "ready_to_execute",
            "reason": "turnframe.act.ready",
        }
    ]
    assert turn["events"] == [{"type": "field_set", "case_id": f"{ACCOUNT}:travel-desk:lisbon"}]


async def test_a_turn_reads_back_exactly_as_it_was_answered() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        said = (await api.say(session_id, REBOOK)).json()
        clicked = (await api.click(session_id, "confirm")).json()
        turns = []
        for turn in (said, clicked):
            got = await api.client.get(f"/v1/turns/{turn['turn_id']}", headers=headers())
            turns.append(got.json())
        listed = await api.client.get(f"/v1/sessions/{session_id}/turns", headers=headers())
    assert turns == [said, clicked]
    assert listed.json() == {"turns": [said, clicked]}


async def test_the_replay_endpoint_answers_what_turnframe_replay_json_prints() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        turn = (await api.say(session_id, NOTE)).json()
        answer = await api.client.get(f"/v1/turns/{turn['turn_id']}/replay", headers=headers())
        view = await load_replay_view(api.store, account_id=ACCOUNT, turn_id=turn["turn_id"])
    assert view is not None
    assert answer.json() == view.to_json()
    assert answer.json()["provider_attempts"][0]["outcome"] == "ok"


async def test_the_acts_endpoint_explains_each_act_as_the_demo_does() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        turn = (
            await api.say(
                session_id,
                "Change the travel date to Friday and add a note: window seat please. "
                "Actually, leave the date as it is.",
            )
        ).json()
        answer = await api.client.get(f"/v1/turns/{turn['turn_id']}/acts", headers=headers())
    acts = answer.json()["acts"]
    words = {a["summary"]: (a["word"], a["reason"]) for a in acts}
    assert words["set travel_date to \u201cFriday\u201d"] == (
        "NOT DONE",
        "turnframe.act.superseded_by_keep_unchanged",
    )
    assert words["set note to \u201cwindow seat\u201d"][0] == "DONE"
    superseded = next(a for a in acts if a["word"] == "NOT DONE")
    assert superseded["why"].startswith("superseded by act 2")


async def test_the_workflows_served_are_listed() -> None:
    async with serving() as api:
        answer = await api.client.get("/v1/workflows")
    assert answer.json() == {"workflows": [{"name": DESK.name}]}
