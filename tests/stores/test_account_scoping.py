"""Every row belongs to an account: another account's id answers exactly like an unknown one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from store_kit import ACCOUNT, OTHER, MakeCase, MakeTurn, entry, move

from turnframe.clock import ManualClock
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CardResolution,
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewCase,
    NewEvent,
    NewInteraction,
    NewOutboxEffect,
    OutboxResult,
    Store,
)

pytestmark = pytest.mark.anyio

#: An account that holds nothing: every id is unknown there.
EMPTY = "acct-empty"
P = TurnPhase
J = JournalStatus


@attrs.frozen
class World:
    """Rows of ACCOUNT; OTHER holds rows of its own so it is not simply empty."""

    session_id: str
    turn_id: str
    case_id: str
    card_id: str
    effect_id: str


@pytest.fixture
async def world(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, clock: ManualClock
) -> World:
    await make_turn(OTHER, phase=P.DELIVERED)
    await make_case(OTHER, label="Their ticket")
    case = await make_case()
    turn = await make_turn(phase=P.INTERPRETED)
    [card] = await store.save_reduction(
        ACCOUNT,
        turn.turn_id,
        {"r": 1},
        interactions=[NewInteraction(payload={}, case_id=case.case_id, blocking=True)],
        phase=move(P.INTERPRETED, P.REDUCED),
    )
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    receipt = await store.commit_bundle(
        CommitBundle(
            account_id=ACCOUNT,
            turn_id=turn.turn_id,
            events=[NewEvent(case_id=case.case_id, revision=1, type="seen", payload={})],
            outbox=[NewOutboxEffect(idempotency_key="send-1", payload={})],
            replay_record={"r": 1},
        )
    )
    await store.claim_outbox(
        account_id=ACCOUNT, claim_token="w1", now=clock.now(), lease_expires_at=clock.now()
    )
    await store.save_assistant_turn(ACCOUNT, turn.turn_id, [{"t": "hi"}])
    return World(
        session_id=turn.session_id,
        turn_id=turn.turn_id,
        case_id=case.case_id,
        card_id=card.interaction_id,
        effect_id=receipt.outbox[0].effect_id,
    )


Op = Callable[[Store, str, World], Awaitable[Any]]
_T0 = ManualClock().now()

OPERATIONS: dict[str, Op] = {
    "get_session": lambda s, a, w: s.get_session(a, w.session_id),
    "save_thread_context": lambda s, a, w: s.save_thread_context(a, w.session_id, {"x": 1}),
    "acquire_session_lease": lambda s, a, w: s.acquire_session_lease(
        a, w.session_id, worker_id="w9", now=_T0, expires_at=_T0 + timedelta(seconds=30)
    ),
    "release_session_lease": lambda s, a, w: s.release_session_lease(
        a, w.session_id, worker_id="w9"
    ),
    "record_user_turn": lambda s, a, w: s.record_user_turn(
        account_id=a, session_id=w.session_id, payload={}
    ),
    "get_turn": lambda s, a, w: s.get_turn(a, w.turn_id),
    "list_session_turns": lambda s, a, w: s.list_session_turns(a, w.session_id),
    "advance_phase": lambda s, a, w: s.advance_phase(a, w.turn_id, P.EXECUTING, P.COMMITTED),
    "save_plan": lambda s, a, w: s.save_plan(a, w.turn_id, {"p": 1}),
    "save_reduction": lambda s, a, w: s.save_reduction(a, w.turn_id, {"r": 2}),
    "get_interaction": lambda s, a, w: s.get_interaction(a, w.card_id),
    "list_open_interactions_by_case": lambda s, a, w: s.list_open_interactions(
        a, case_id=w.case_id
    ),
    "list_open_interactions_by_session": lambda s, a, w: s.list_open_interactions(
        a, session_id=w.session_id
    ),
    "resolve_interaction": lambda s, a, w: s.resolve_interaction(
        a, CardResolution(interaction_id=w.card_id)
    ),
    "admit": lambda s, a, w: s.admit(a, w.turn_id, [entry("k1")]),
    "get_journal_entry": lambda s, a, w: s.get_journal_entry(a, "k1"),
    "list_journal": lambda s, a, w: s.list_journal(a, w.turn_id),
    "set_journal_status": lambda s, a, w: s.set_journal_status(
        a, "k1", expected=J.PENDING, new=J.EXECUTING
    ),
    "get_case": lambda s, a, w: s.get_case(a, w.case_id),
    "list_cases": lambda s, a, w: s.list_cases(a, label="Ticket 1", workflow="tickets"),
    "list_events_by_case": lambda s, a, w: s.list_events(a, case_id=w.case_id),
    "list_events_by_turn": lambda s, a, w: s.list_events(a, turn_id=w.turn_id),
    "commit_bundle_on_the_turn": lambda s, a, w: s.commit_bundle(
        CommitBundle(account_id=a, turn_id=w.turn_id, replay_record={"x": 1})
    ),
    "commit_bundle_on_the_case": lambda s, a, w: s.commit_bundle(
        CommitBundle(
            account_id=a,
            turn_id=w.turn_id,
            case_updates=[
                CaseUpdate(case_id=w.case_id, expected_revision=1, new_revision=2, state={})
            ],
        )
    ),
    "commit_bundle_settling_the_journal": lambda s, a, w: s.commit_bundle(
        CommitBundle(
            account_id=a,
            turn_id=w.turn_id,
            journal_outcomes=[
                JournalOutcome(idempotency_key="k1", expected=J.PENDING, status=J.COMMITTED)
            ],
        )
    ),
    "get_outbox": lambda s, a, w: s.get_outbox(a, w.effect_id),
    "list_outbox": lambda s, a, w: s.list_outbox(a, turn_id=w.turn_id),
    "settle_outbox": lambda s, a, w: s.settle_outbox(
        a, w.effect_id, claim_token="w1", result=OutboxResult.COMPLETED
    ),
    "reconcile_outbox": lambda s, a, w: s.reconcile_outbox(
        a, w.effect_id, result=OutboxResult.COMPLETED
    ),
    "get_replay_record": lambda s, a, w: s.get_replay_record(a, w.turn_id),
    "save_replay_record": lambda s, a, w: s.save_replay_record(a, w.turn_id, {"r": 2}),
    "get_assistant_turn": lambda s, a, w: s.get_assistant_turn(a, w.turn_id),
    "save_assistant_turn": lambda s, a, w: s.save_assistant_turn(a, w.turn_id, [{"t": "x"}]),
    "list_unfinished_turns": lambda s, a, w: s.list_unfinished_turns(account_id=a),
}


async def _answer(op: Op, store: Store, account: str, world: World) -> tuple[Any, ...]:
    try:
        return ("returned", await op(store, account, world))
    except Exception as error:  # the answer under test is the error itself
        return ("raised", type(error), str(error))


async def _snapshot(store: Store, world: World) -> tuple[Any, ...]:
    return (
        await store.get_session(ACCOUNT, world.session_id),
        await store.get_turn(ACCOUNT, world.turn_id),
        await store.get_case(ACCOUNT, world.case_id),
        await store.get_interaction(ACCOUNT, world.card_id),
        await store.get_journal_entry(ACCOUNT, "k1"),
        await store.get_outbox(ACCOUNT, world.effect_id),
        await store.list_events(ACCOUNT),
        await store.get_replay_record(ACCOUNT, world.turn_id),
        await store.get_assistant_turn(ACCOUNT, world.turn_id),
    )


@pytest.mark.parametrize("name", list(OPERATIONS))
async def test_another_accounts_id_answers_like_an_unknown_one(
    store: Store, world: World, name: str
) -> None:
    op = OPERATIONS[name]
    before = await _snapshot(store, world)
    from_other = await _answer(op, store, OTHER, world)
    from_empty = await _answer(op, store, EMPTY, world)
    assert from_other == from_empty
    assert from_other[0] == "raised" or from_other[1] in (None, [])
    assert await _snapshot(store, world) == before


async def test_another_account_may_reuse_the_same_ids_without_touching_the_first(
    store: Store, world: World
) -> None:
    before = await _snapshot(store, world)
    await store.create_session(account_id=OTHER, workflow="orders", session_id=world.session_id)
    await store.record_user_turn(
        account_id=OTHER, session_id=world.session_id, payload={"x": 1}, turn_id=world.turn_id
    )
    await store.create_case(
        account_id=OTHER,
        case=NewCase(workflow="orders", label="Other", state={}, case_id=world.case_id),
    )
    await store.admit(OTHER, world.turn_id, [entry("k1", digest="theirs")])
    assert await _snapshot(store, world) == before
    theirs = await store.get_journal_entry(OTHER, "k1")
    assert theirs is not None and theirs.content_digest == "theirs"
