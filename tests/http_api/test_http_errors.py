"""Bad requests get a 4xx with a stable code and change nothing; foreign ids look unknown."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from http_kit import ACCOUNT, NOTE, OTHER, REBOOK, Api, headers, serving

from turnframe.http import HttpSettings

pytestmark = pytest.mark.anyio

LIMIT = 2048


async def _nothing_written(api: Api, session_id: str) -> None:
    assert await api.store.list_session_turns(ACCOUNT, session_id) == []
    assert await api.event_count() == 0


async def _post_raw(
    api: Api, session_id: str, content: bytes | AsyncIterator[bytes], **extra: str
) -> httpx.Response:
    return await api.client.post(
        f"/v1/sessions/{session_id}/turns",
        content=content,
        headers={**headers(), "Content-Type": "application/json", **extra},
    )


async def test_a_body_over_the_limit_is_refused_before_it_is_read() -> None:
    async with serving(settings=HttpSettings(max_body_bytes=LIMIT)) as api:
        session_id = await api.open_session()
        answer = await api.say(session_id, "x" * LIMIT)
        await _nothing_written(api, session_id)
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "turnframe.http.body_too_large"


async def test_a_streamed_body_is_cut_off_at_the_limit() -> None:
    read: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"text": "'
        for n in range(100):
            read.append(n)
            yield b"x" * 512
        yield b'"}'

    async with serving(settings=HttpSettings(max_body_bytes=LIMIT)) as api:
        session_id = await api.open_session()
        answer = await _post_raw(api, session_id, chunks())
        await _nothing_written(api, session_id)
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "turnframe.http.body_too_large"


@pytest.mark.parametrize(
    "raw",
    [b"{", b"not json", b'{"text": "a"} trailing', b'{"text": NaN}', b"\xff\xfe{}"],
    ids=["truncated", "words", "trailing", "nan", "not-utf8"],
)
async def test_a_body_that_is_not_json_is_malformed(raw: bytes) -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await _post_raw(api, session_id, raw)
        await _nothing_written(api, session_id)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "turnframe.http.malformed_body"


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"text": 5}, ["text"]),
        ({"text": NOTE, "mood": "happy"}, ["mood"]),
        ([NOTE], []),
        ({"click": ["confirm"]}, ["click"]),
    ],
    ids=["number", "unknown-key", "array", "list-click"],
)
async def test_a_body_of_the_wrong_shape_names_what_is_wrong(body: object, path: list[str]) -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await api.client.post(
            f"/v1/sessions/{session_id}/turns", json=body, headers=headers()
        )
        await _nothing_written(api, session_id)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "turnframe.http.invalid_body"
    assert [p["path"] for p in error["problems"]] == [path]


@pytest.mark.parametrize(
    "body",
    [{}, {"text": NOTE, "click": "confirm"}, {"text": "   "}, {"card": "ia_1", "text": NOTE}],
    ids=["empty", "both", "blank", "card-without-click"],
)
async def test_a_turn_is_text_or_a_click(body: object) -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await api.client.post(
            f"/v1/sessions/{session_id}/turns", json=body, headers=headers()
        )
        await _nothing_written(api, session_id)
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "turnframe.http.invalid_body"


async def test_a_body_that_is_not_json_by_its_media_type_is_refused() -> None:
    async with serving() as api:
        session_id = await api.open_session()
        answer = await api.client.post(
            f"/v1/sessions/{session_id}/turns",
            content=b"text=hello",
            headers={**headers(), "Content-Type": "application/x-www-form-urlencoded"},
        )
        await _nothing_written(api, session_id)
    assert answer.status_code == 415
    assert answer.json()["error"]["code"] == "turnframe.http.unsupported_media_type"


async def test_a_malformed_session_body_opens_no_session() -> None:
    async with serving() as api:
        answer = await api.client.post("/v1/sessions", content=b"{", headers=headers())
        sessions = await api.store.list_sessions(ACCOUNT)
    assert answer.status_code == 400
    assert sessions == []


async def test_a_request_without_an_account_is_refused() -> None:
    async with serving() as api:
        answer = await api.client.get("/v1/sessions")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "turnframe.http.no_account"


async def test_an_unknown_path_and_a_wrong_method_have_codes_too() -> None:
    async with serving() as api:
        missing = await api.client.get("/v1/nothing", headers=headers())
        wrong = await api.client.delete("/v1/sessions", headers=headers())
    assert (missing.status_code, missing.json()["error"]["code"]) == (
        404,
        "turnframe.http.not_found",
    )
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (
        405,
        "turnframe.http.method_not_allowed",
    )


async def test_another_accounts_ids_answer_exactly_like_unknown_ids() -> None:
    async with serving() as api:
        session_id = await api.open_session(OTHER)
        turn_id = (await api.say(session_id, REBOOK, account=OTHER)).json()["turn_id"]
        card = await api.client.get(f"/v1/sessions/{session_id}/card", headers=headers(OTHER))
        card_id = card.json()["card"]["interaction_id"]
        mine = await api.open_session()
        requests = [
            ("GET", "/v1/sessions/{s}/turns", None),
            ("GET", "/v1/sessions/{s}/card", None),
            ("GET", "/v1/sessions/{s}/stream", None),
            ("POST", "/v1/sessions/{s}/turns", {"text": NOTE}),
            ("POST", "/v1/sessions/{s}/turns", {"click": "confirm"}),
            ("GET", "/v1/turns/{t}", None),
            ("GET", "/v1/turns/{t}/replay", None),
            ("GET", "/v1/turns/{t}/acts", None),
            ("POST", f"/v1/sessions/{mine}/turns", {"click": "confirm", "card": "{c}"}),
        ]
        for method, template, body in requests:
            answers = []
            for s, t, c in ((session_id, turn_id, card_id), ("ses_nope", "turn-nope", "ia_nope")):
                path = template.format(s=s, t=t)
                sent = None if body is None else {k: v.format(c=c) for k, v in body.items()}
                answer = await api.client.request(method, path, json=sent, headers=headers())
                answers.append(
                    (
                        answer.status_code,
                        answer.text.replace(s, "ID").replace(t, "ID").replace(c, "ID"),
                    )
                )
            foreign, unknown = answers
            assert foreign == unknown, (method, template)
            assert foreign[0] == 404
        assert await api.store.list_session_turns(ACCOUNT, mine) == []
        assert len(await api.store.list_session_turns(OTHER, session_id)) == 1
