"""A model answer that is JSON but not a valid plan gets one repair round quoting the parse
errors, then the fallback; through a real Runtime, the official SDK adapters and the fake
provider server. The bad answer quotes an API key, which no stored record keeps."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from turnframe.lifecycle import TurnPhase
from turnframe.pipeline.replay_view import load_replay_view
from turnframe.plan import LabelTarget, SetFieldAct
from turnframe.providers import RetryPolicy
from turnframe.providers.anthropic import AnthropicProvider
from turnframe.providers.openai_compat import OpenAICompatProvider
from turnframe.providers.redaction import REDACTED
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.stores.protocol import Store
from turnframe.supervisors import EventKind, SupervisionEvent
from turnframe.testing import TRIP_WORKFLOW, span
from turnframe.testing import fake_provider as fake
from turnframe.testing.pipeline import plan_answer, seed_store
from turnframe.testing.plans import TURN_CLOCK

pytestmark = pytest.mark.anyio

ACCOUNT = "acct-1"
TEXT = "Set Bob's note to aisle"
KEY = "sk-ant-api03-Zq81kLp0Xm2Nv7Bc4Rt6Yw9Ue3Io5Pa"
MALFORMED = "turnframe.provider.malformed_answer"
GOOD = plan_answer(
    [
        SetFieldAct(
            target=LabelTarget(label="Bob"),
            field="note",
            value="aisle",
            evidence=span(TEXT, "note to aisle"),
        )
    ]
)


def _invalid_plan() -> str:
    """Valid JSON, an invalid plan: its evidence is not the user's text (it quotes a key)."""
    data = json.loads(GOOD)
    data["acts"][0]["evidence"][0]["text"] = f"note {KEY}"
    return json.dumps(data)


BAD = _invalid_plan()


@asynccontextmanager
async def desk(
    primary: list[fake.Step], fallback: list[fake.Step] | None = None
) -> AsyncIterator[tuple[Runtime, Store, list[fake.FakeProviderServer], list[SupervisionEvent]]]:
    """A Runtime whose chain is the OpenAI adapter (then, if given, the Anthropic adapter),
    each served by a fake provider server."""
    events: list[SupervisionEvent] = []
    async with (
        fake.FakeProviderServer(*primary) as first,
        fake.FakeProviderServer(*(fallback or [])) as second,
        OpenAICompatProvider(
            name="primary", model="gpt-test", api_key=KEY, base_url=first.openai_base_url
        ) as one,
        AnthropicProvider(
            name="fallback", model="claude-test", api_key=KEY, base_url=second.anthropic_base_url
        ) as two,
        SqliteStore.open(":memory:") as store,
    ):
        await seed_store(store)
        async with Runtime(
            workflows=[TRIP_WORKFLOW],
            store=store,
            provider=[one, two] if fallback is not None else [one],
            retry_policy=RetryPolicy(attempts_per_provider=1, repair_rounds=1),
            settings=RuntimeSettings(pool_size=1, ask_timeout=10.0),
            on_supervision_event=events.append,
        ) as rt:
            yield rt, store, [first, second], events


async def _say(rt: Runtime) -> Any:
    session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
    return await rt.handle_turn(rt.new_turn(session, TEXT, at=TURN_CLOCK))


def _attempts(view: Any) -> list[tuple[str, str, str, str | None]]:
    return [
        (a["provider"], a["step"], a["outcome"], a.get("error_code"))
        for a in view.provider_attempts
    ]


async def _stored_text(store: Store, turn_id: str) -> str:
    turn = await store.get_turn(ACCOUNT, turn_id)
    replay = await store.get_replay_record(ACCOUNT, turn_id)
    return json.dumps([getattr(turn, "plan", None), replay], default=str)


async def test_an_answer_that_is_json_but_no_valid_plan_is_repaired_quoting_its_problems_and_commits_once() -> (  # noqa: E501
    None
):
    async with desk([fake.Answer(BAD), fake.Answer(GOOD)]) as (rt, store, servers, events):
        response = await _say(rt)

        assert response.phase is TurnPhase.DELIVERED
        assert [e.type for e in await store.list_events(ACCOUNT)] == ["field_set"]
        repair = servers[0].received[1].body["messages"]
        assert repair[-2] == {"role": "assistant", "content": BAD}
        assert "evidence[0]" in repair[-1]["content"]
        assert "reads 'note to aisle'" in repair[-1]["content"]
        view = await load_replay_view(store, account_id=ACCOUNT, turn_id=response.turn_id)
        assert view is not None
        assert _attempts(view) == [
            ("primary", "first", "error", MALFORMED),
            ("primary", "repair", "ok", None),
        ]
        assert REDACTED in view.provider_attempts[0]["detail"]
        assert KEY not in await _stored_text(store, response.turn_id)
        assert servers[0].problems == []
    assert not [e for e in events if e.kind is EventKind.CRASHED]


async def test_a_repair_that_is_no_valid_plan_again_falls_back_to_the_next_provider() -> None:
    async with desk([fake.Answer(BAD), fake.Answer(BAD)], [fake.Answer(GOOD)]) as (
        rt,
        store,
        servers,
        _,
    ):
        response = await _say(rt)

        assert response.phase is TurnPhase.DELIVERED
        assert [e.type for e in await store.list_events(ACCOUNT)] == ["field_set"]
        view = await load_replay_view(store, account_id=ACCOUNT, turn_id=response.turn_id)
        assert view is not None
        assert _attempts(view) == [
            ("primary", "first", "error", MALFORMED),
            ("primary", "repair", "error", MALFORMED),
            ("fallback", "fallback", "ok", None),
        ]
        assert KEY not in await _stored_text(store, response.turn_id)
        assert [r.api for r in servers[1].received] == ["anthropic"]


async def test_without_a_fallback_a_repair_that_is_no_valid_plan_again_fails_the_turn_typed() -> (
    None
):
    async with desk([fake.Answer(BAD), fake.Answer(BAD), fake.Answer(GOOD)]) as (
        rt,
        store,
        _,
        events,
    ):
        failed = await _say(rt)

        assert failed.phase is TurnPhase.FAILED
        assert [b.code for b in failed.blocks] == ["turnframe.notice.plan_rejected"]
        replay = await store.get_replay_record(ACCOUNT, failed.turn_id)
        assert replay is not None
        assert replay["error"]["code"] == "turnframe.plan.rejected"
        assert [p["field"] for p in replay["problems"]] == ["evidence[0]"]
        assert REDACTED in replay["raw"]
        assert [(a["step"], a["error_code"]) for a in replay["provider_attempts"]] == [
            ("first", MALFORMED),
            ("repair", MALFORMED),
        ]
        assert KEY not in await _stored_text(store, failed.turn_id)
        assert await store.list_events(ACCOUNT) == []
        assert await store.list_unfinished_turns(account_id=None) == []
        assert (await _say(rt)).phase is TurnPhase.DELIVERED  # the runtime serves on
    assert not [e for e in events if e.kind in (EventKind.CRASHED, EventKind.GAVE_UP)]
