"""The Runtime lives in the app's lifespan; shutdown refuses new turns and drains posted ones."""

from __future__ import annotations

import contextlib
import json

import anyio
import httpx
import pytest
from http_kit import ACCOUNT, NOTE, REBOOK, HeldProvider, desk_runtime, headers, seed, serving

from turnframe.http import HttpService, create_app
from turnframe.stores import SqliteStore

pytestmark = pytest.mark.anyio


async def test_an_app_whose_lifespan_did_not_run_answers_not_running() -> None:
    async with SqliteStore.open(":memory:") as store:
        app = create_app(desk_runtime(store))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            answer = await client.get("/v1/sessions", headers=headers())
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "turnframe.http.not_running"
    assert "lifespan_context" in answer.json()["error"]["hint"]


async def test_the_lifespan_starts_the_runtime_and_stops_it() -> None:
    async with SqliteStore.open(":memory:") as store:
        runtime = desk_runtime(store)
        app = create_app(runtime)
        async with app.router.lifespan_context(app):
            assert runtime.running
        assert not runtime.running


async def test_an_app_over_a_runtime_the_host_runs_leaves_it_running() -> None:
    async with SqliteStore.open(":memory:") as store:
        runtime = desk_runtime(store)
        async with runtime:
            app = create_app(runtime)
            async with app.router.lifespan_context(app):
                pass
            assert runtime.running


async def test_shutdown_finishes_a_posted_turn_and_refuses_new_ones() -> None:
    held = HeldProvider()
    async with SqliteStore.open(":memory:") as store:
        app = create_app(desk_runtime(store, held), on_session_opened=seed)
        service: HttpService = app.state.turnframe
        running = anyio.Event()
        stop = anyio.Event()
        stopped = anyio.Event()
        answers: list[httpx.Response] = []

        async def run_app() -> None:
            async with app.router.lifespan_context(app):
                running.set()
                await stop.wait()
            stopped.set()

        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://t") as client,
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(run_app)
            await running.wait()
            opened = await client.post("/v1/sessions", json={}, headers=headers())
            session_id = opened.json()["session_id"]

            async def post() -> None:
                answers.append(
                    await client.post(
                        f"/v1/sessions/{session_id}/turns", json={"text": NOTE}, headers=headers()
                    )
                )

            tg.start_soon(post)
            await held.entered.wait()
            stop.set()  # shutdown begins while the turn is in flight
            await anyio.wait_all_tasks_blocked()
            assert service.draining and not stopped.is_set()
            refused = await client.post(
                f"/v1/sessions/{session_id}/turns", json={"text": REBOOK}, headers=headers()
            )
            health = await client.get("/v1/health")
            held.release.set()
            await stopped.wait()
        assert [len(await store.list_events(ACCOUNT))] == [1]
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "turnframe.http.shutting_down"
    assert health.json() == {"status": "draining"}
    [posted] = answers
    assert posted.status_code == 200
    assert [b["code"] for b in posted.json()["blocks"]] == ["turnframe.receipt.committed"]


def _data(event: str) -> dict[str, object]:
    fields = dict(line.split(": ", 1) for line in event.strip().splitlines())
    assert fields["event"] == "turn"
    data: dict[str, object] = json.loads(fields["data"])
    assert data["turn_id"] == fields["id"]
    return data


async def test_a_stream_sends_each_delivered_turn_as_posted() -> None:
    async with serving() as api:
        service: HttpService = api.app.state.turnframe
        session_id = await api.open_session()
        async with contextlib.aclosing(service.events(ACCOUNT, session_id, after=None)) as events:
            assert await anext(events) == "retry: 2000\n\n"
            posted = (await api.say(session_id, NOTE)).json()
            streamed = _data(await anext(events))
            service.begin_drain()  # the stream ends at shutdown
            with pytest.raises(StopAsyncIteration):
                await anext(events)
    assert streamed == posted


async def test_a_reconnecting_stream_first_sends_the_turns_after_its_last_event() -> None:
    async with serving() as api:
        service: HttpService = api.app.state.turnframe
        session_id = await api.open_session()
        first = (await api.say(session_id, REBOOK)).json()
        second = (await api.click(session_id, "confirm")).json()
        third = (await api.say(session_id, NOTE)).json()
        async with contextlib.aclosing(
            service.events(ACCOUNT, session_id, after=first["turn_id"])
        ) as events:
            await anext(events)
            replayed = [_data(await anext(events)), _data(await anext(events))]
    assert replayed == [second, third]


async def test_a_turn_reposted_with_its_key_is_streamed_once() -> None:
    async with serving() as api:
        service: HttpService = api.app.state.turnframe
        session_id = await api.open_session()
        async with contextlib.aclosing(service.events(ACCOUNT, session_id, after=None)) as events:
            await anext(events)
            await api.say(session_id, NOTE, key="k")
            await api.say(session_id, NOTE, key="k")
            await api.say(session_id, REBOOK)
            ids = [_data(await anext(events))["turn_id"], _data(await anext(events))["turn_id"]]
        turns = await api.store.list_session_turns(ACCOUNT, session_id)
    assert ids == [t.turn_id for t in turns]
