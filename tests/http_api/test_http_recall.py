"""Recall over the HTTP API: its blocks carry the same contract fields as ``chat --json``, fit
the schema derived from the turn's attrs type, and its expansion card is clicked like any card."""

from __future__ import annotations

from typing import Any

import pytest
from http_kit import headers, serving

from turnframe.http.schema import response_model
from turnframe.pipeline.turn_view import TurnView

pytestmark = pytest.mark.anyio

POOL = "The hotel pool is closed until March, so we settled on the lounge pass instead"
CAVEAT = "Recall shows that this was discussed, not that it still holds."


def recall_blocks(turn: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in turn["blocks"] if b["code"].startswith("turnframe.recall.")]


async def test_a_recall_over_http_shows_its_candidates_and_every_answer_fits_the_schema() -> None:
    async with serving() as api:
        earlier = await api.open_session()
        said = (await api.say(earlier, POOL)).json()
        today = await api.open_session()
        asked = await api.say(today, "what was that thing we settled about the hotel pool?")
        stored = await api.client.get(f"/v1/turns/{asked.json()['turn_id']}", headers=headers())
        identified = await api.say(today, "yes, that one")
    for answer in (asked, stored, identified):
        assert answer.status_code == 200, answer.text
        response_model(TurnView).model_validate_json(answer.content, strict=True)
    [shown] = recall_blocks(asked.json())
    assert shown["code"] == "turnframe.recall.presented"
    [candidate] = shown["candidates"]
    assert (candidate["session_id"], candidate["turn_id"]) == (earlier, said["turn_id"])
    assert candidate["excerpt"] == POOL
    assert shown["attempts_left"] == 3
    assert stored.json()["blocks"] == asked.json()["blocks"]
    [recalled] = recall_blocks(identified.json())
    assert recalled["code"] == "turnframe.recall.identified"
    assert recalled["session_id"] == earlier
    assert CAVEAT in recalled["text"]
    turns = (said, asked.json(), identified.json())
    others = [b for t in turns for b in t["blocks"] if b not in recall_blocks(t)]
    assert others and all(set(b) == {"kind", "code", "text"} for b in others)


async def test_the_store_expansion_card_is_clicked_over_http_like_any_card() -> None:
    async with serving() as api:
        earlier = await api.open_session()
        await api.say(earlier, "Please add a note: window seat.")
        await api.say(earlier, "Also, our friend Ines recommended a tiled cafe near the station")
        today = await api.open_session()
        await api.say(today, "do you remember that place somebody recommended?")
        offered = (await api.say(today, "a cafe with tiles, I think")).json()
        card = await api.card(today)
        expanded = await api.click(today, "expand")
    [offer] = recall_blocks(offered)
    assert offer["code"] == "turnframe.recall.expand" and offer["options"] == ["expand", "stop"]
    assert card["kind"] == "recall_expansion"
    assert card["interaction_id"] == offer["interaction_id"]
    assert expanded.status_code == 200, expanded.text
    response_model(TurnView).model_validate_json(expanded.content, strict=True)
    [found] = recall_blocks(expanded.json())
    assert found["code"] == "turnframe.recall.presented"
    assert found["candidates"][0]["session_id"] == earlier
    assert "tiled cafe" in found["candidates"][0]["excerpt"]
