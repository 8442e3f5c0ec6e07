"""A store opened again on the same database sees everything an earlier one wrote."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, StoreFactory, entry, move

from turnframe.clock import ManualClock
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewCase,
    NewEvent,
    NewInteraction,
    NewOutboxEffect,
)

pytestmark = pytest.mark.anyio

P = TurnPhase


async def test_reopening_a_file_store_keeps_everything(
    store_factory: StoreFactory, clock: ManualClock
) -> None:
    if not store_factory.persistent:
        pytest.skip("this factory's database does not outlive its store")
    async with store_factory.open(clock=clock) as store:
        session = await store.create_session(
            account_id=ACCOUNT, workflow="tickets", thread_context={"s": [1]}
        )
        turn = await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={"text": "close"}
        )
        case = await store.create_case(
            account_id=ACCOUNT, case=NewCase(workflow="tickets", label="T", state={"v": 1})
        )
        await store.save_plan(
            ACCOUNT, turn.turn_id, {"p": 1}, phase=move(P.RECEIVED, P.INTERPRETED)
        )
        [card] = await store.save_reduction(
            ACCOUNT,
            turn.turn_id,
            {"r": 1},
            interactions=[NewInteraction(payload={"c": 1}, case_id=case.case_id)],
            phase=move(P.INTERPRETED, P.REDUCED),
        )
        await store.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
        await store.commit_bundle(
            CommitBundle(
                account_id=ACCOUNT,
                turn_id=turn.turn_id,
                journal_outcomes=[
                    JournalOutcome(
                        idempotency_key="k1",
                        expected=JournalStatus.PENDING,
                        status=JournalStatus.COMMITTED,
                    )
                ],
                case_updates=[
                    CaseUpdate(
                        case_id=case.case_id, expected_revision=1, new_revision=2, state={"v": 2}
                    )
                ],
                events=[NewEvent(case_id=case.case_id, revision=2, type="v_set", payload={})],
                outbox=[NewOutboxEffect(idempotency_key="o1", payload={"x": 1})],
                replay_record={"rr": 1},
                phase=move(P.EXECUTING, P.COMMITTED),
            )
        )
        await store.advance_phase(ACCOUNT, turn.turn_id, P.COMMITTED, P.COMPOSED)
        await store.save_assistant_turn(
            ACCOUNT, turn.turn_id, [{"b": 1, "a": 2}], phase=move(P.COMPOSED, P.DELIVERED)
        )
        before = (
            await store.get_session(ACCOUNT, session.session_id),
            await store.get_turn(ACCOUNT, turn.turn_id),
            await store.get_case(ACCOUNT, case.case_id),
            await store.get_interaction(ACCOUNT, card.interaction_id),
            await store.list_journal(ACCOUNT, turn.turn_id),
            await store.list_events(ACCOUNT),
            await store.list_outbox(ACCOUNT),
            await store.get_replay_record(ACCOUNT, turn.turn_id),
            await store.get_assistant_turn(ACCOUNT, turn.turn_id),
        )

    async with store_factory.open(clock=clock) as store:
        after = (
            await store.get_session(ACCOUNT, session.session_id),
            await store.get_turn(ACCOUNT, turn.turn_id),
            await store.get_case(ACCOUNT, case.case_id),
            await store.get_interaction(ACCOUNT, card.interaction_id),
            await store.list_journal(ACCOUNT, turn.turn_id),
            await store.list_events(ACCOUNT),
            await store.list_outbox(ACCOUNT),
            await store.get_replay_record(ACCOUNT, turn.turn_id),
            await store.get_assistant_turn(ACCOUNT, turn.turn_id),
        )
    assert after == before
    assert after[1] is not None and after[1].phase is P.DELIVERED
    assert after[-1] is not None and after[-1].blocks_json == '[{"b":1,"a":2}]'
