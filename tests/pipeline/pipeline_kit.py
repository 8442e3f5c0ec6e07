"""Shared set-up for pipeline tests: a seeded store, a scripted provider, a running Runtime."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from turnframe.plan import Act, LabelTarget, OperationAct, QuestionAct, SetFieldAct
from turnframe.results import InteractionToCreate, OptionAction
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.stores.protocol import Store
from turnframe.testing import TRIP_WORKFLOW, span
from turnframe.testing.pipeline import plan_answer, seed_store
from turnframe.testing.plans import TURN_CLOCK
from turnframe.testing.scripted import Answer, ScriptedProvider

ACCOUNT = "acct-1"


def set_field(text: str, label: str, field: str, value: str, fragment: str) -> SetFieldAct:
    return SetFieldAct(
        target=LabelTarget(label=label), field=field, value=value, evidence=span(text, fragment)
    )


def operation(text: str, label: str, name: str, fragment: str) -> OperationAct:
    return OperationAct(
        target=LabelTarget(label=label), operation=name, evidence=span(text, fragment)
    )


def question(text: str, label: str, name: str, fragment: str) -> QuestionAct:
    return QuestionAct(
        question=name, target=LabelTarget(label=label), evidence=span(text, fragment)
    )


def answers(*plans: Sequence[Act]) -> list[Answer]:
    return [Answer(plan_answer(acts)) for acts in plans]


@contextlib.asynccontextmanager
async def running(
    provider: Any, *, store: Store | None = None, **kwargs: Any
) -> AsyncIterator[tuple[Runtime, Store]]:
    async with contextlib.AsyncExitStack() as stack:
        if store is None:
            store = await stack.enter_async_context(SqliteStore.open(":memory:"))
            await seed_store(store)
        settings = kwargs.pop("settings", RuntimeSettings(pool_size=2, ask_timeout=10.0))
        rt = await stack.enter_async_context(
            Runtime(
                workflows=[TRIP_WORKFLOW],
                store=store,
                provider=provider,
                settings=settings,
                **kwargs,
            )
        )
        yield rt, store


def scripted(*plans: Sequence[Act]) -> ScriptedProvider:
    return ScriptedProvider(name="model", script=answers(*plans))


async def say(rt: Runtime, text: str) -> Any:
    session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
    return await rt.handle_turn(rt.new_turn(session, text, at=TURN_CLOCK))


async def open_card(store: Store) -> InteractionToCreate:
    from turnframe._converter import converter

    cards = await store.list_open_interactions(ACCOUNT)
    assert len(cards) == 1, cards
    card: InteractionToCreate = converter.structure(cards[0].payload, InteractionToCreate)
    return card


def option(card: InteractionToCreate, action: OptionAction) -> str:
    return next(o.option_id for o in card.options if o.action is action)
