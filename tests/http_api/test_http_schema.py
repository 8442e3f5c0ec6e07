"""The OpenAPI schema is derived from the attrs types the CLI and the API write, and it holds."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from http_kit import NOTE, REBOOK, headers, serving

from turnframe.http.schema import response_model
from turnframe.http.wire import ErrorBody, OpenCard, SessionList, TurnActs
from turnframe.pipeline.replay_view import ReplayView
from turnframe.pipeline.turn_view import TurnView

pytestmark = pytest.mark.anyio


def _resolve(schema: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    name = ref["$ref"].rsplit("/", 1)[-1]
    found: dict[str, Any] = schema["components"]["schemas"][name]
    return found


async def test_every_answer_validates_against_the_model_derived_from_its_attrs_type() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        turn = await api.say(session_id, REBOOK)
        turn_id = turn.json()["turn_id"]
        answers = [
            (TurnView, turn),
            (OpenCard, await api.client.get(f"/v1/sessions/{session_id}/card", headers=headers())),
            (TurnView, await api.click(session_id, "confirm")),
            (SessionList, await api.client.get("/v1/sessions", headers=headers())),
            (ReplayView, await api.client.get(f"/v1/turns/{turn_id}/replay", headers=headers())),
            (TurnActs, await api.client.get(f"/v1/turns/{turn_id}/acts", headers=headers())),
            (ErrorBody, await api.client.get("/v1/turns/nope", headers=headers())),
        ]
    for cls, answer in answers:
        response_model(cls).model_validate_json(answer.content, strict=True)


async def test_the_documented_turn_is_exactly_the_chat_json_form() -> None:
    async with serving() as api:
        schema = (await api.client.get("/openapi.json")).json()
        session_id = await api.open_session()
        turn = (await api.say(session_id, NOTE)).json()
    post = schema["paths"]["/v1/sessions/{session_id}/turns"]["post"]
    documented = _resolve(schema, post["responses"]["200"]["content"]["application/json"]["schema"])
    assert documented["required"] == [f.name for f in attrs.fields(TurnView)] == list(turn)
    assert documented["additionalProperties"] is False
    body = _resolve(schema, post["requestBody"]["content"]["application/json"]["schema"])
    assert set(body["properties"]) == {"text", "click", "card"}
    assert {"Idempotency-Key", "X-Turnframe-Account"} <= {p["name"] for p in post["parameters"]}
    assert (
        _resolve(schema, post["responses"]["409"]["content"]["application/json"]["schema"])["title"]
        == "ErrorBody"
    )


async def test_the_schema_documents_every_endpoint_of_the_api() -> None:
    async with serving() as api:
        schema = (await api.client.get("/openapi.json")).json()
    routes = {(m.upper(), p) for p, ops in schema["paths"].items() for m in ops}
    assert routes >= {
        ("POST", "/v1/sessions"),
        ("GET", "/v1/sessions"),
        ("POST", "/v1/sessions/{session_id}/turns"),
        ("GET", "/v1/sessions/{session_id}/turns"),
        ("GET", "/v1/sessions/{session_id}/card"),
        ("GET", "/v1/sessions/{session_id}/stream"),
        ("GET", "/v1/turns/{turn_id}"),
        ("GET", "/v1/turns/{turn_id}/replay"),
        ("GET", "/v1/turns/{turn_id}/acts"),
    }
    assert "HTTPValidationError" not in schema["components"]["schemas"]
