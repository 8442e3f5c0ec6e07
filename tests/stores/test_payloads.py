"""Payloads are write-once: the same content again is a no-op, different content is refused."""

from __future__ import annotations

import json

import pytest
from store_kit import ACCOUNT, MakeTurn, move

from turnframe.lifecycle import TurnPhase
from turnframe.stores import NewInteraction, PayloadImmutable, PhaseConflict, Store

pytestmark = pytest.mark.anyio

P = TurnPhase


async def test_a_plan_is_stored_with_its_phase_move(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    saved = await store.save_plan(
        ACCOUNT,
        turn.turn_id,
        {"acts": [{"kind": "chitchat"}]},
        phase=move(P.RECEIVED, P.INTERPRETED),
    )
    assert saved.plan == {"acts": [{"kind": "chitchat"}]}
    assert saved.phase is P.INTERPRETED


async def test_writing_the_same_plan_again_is_a_no_op(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    await store.save_plan(ACCOUNT, turn.turn_id, {"acts": [], "v": 1})
    again = await store.save_plan(ACCOUNT, turn.turn_id, {"v": 1, "acts": []})
    assert again.plan == {"acts": [], "v": 1}


async def test_payloads_are_never_rewritten(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    tid = turn.turn_id
    await store.save_plan(ACCOUNT, tid, {"acts": ["a"]})
    await store.save_reduction(ACCOUNT, tid, {"results": ["r"]})
    await store.save_replay_record(ACCOUNT, tid, {"plan_hash": "h1"})
    await store.save_assistant_turn(ACCOUNT, tid, [{"type": "text", "text": "done"}])
    with pytest.raises(PayloadImmutable):
        await store.save_plan(ACCOUNT, tid, {"acts": ["b"]})
    with pytest.raises(PayloadImmutable):
        await store.save_reduction(ACCOUNT, tid, {"results": ["other"]})
    with pytest.raises(PayloadImmutable):
        await store.save_replay_record(ACCOUNT, tid, {"plan_hash": "h2"})
    with pytest.raises(PayloadImmutable):
        await store.save_assistant_turn(ACCOUNT, tid, [{"type": "text", "text": "other"}])
    reread = await store.get_turn(ACCOUNT, tid)
    assert reread is not None
    assert (reread.plan, reread.reduction) == ({"acts": ["a"]}, {"results": ["r"]})
    assert await store.get_replay_record(ACCOUNT, tid) == {"plan_hash": "h1"}
    response = await store.get_assistant_turn(ACCOUNT, tid)
    assert response is not None and response.blocks == [{"type": "text", "text": "done"}]


async def test_a_reduction_saved_again_returns_its_stored_cards_without_new_ones(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.INTERPRETED)
    cards = [NewInteraction(payload={"kind": "confirm"})]
    first = await store.save_reduction(ACCOUNT, turn.turn_id, {"r": 1}, interactions=cards)
    again = await store.save_reduction(ACCOUNT, turn.turn_id, {"r": 1}, interactions=cards)
    assert again == first
    assert len(await store.list_open_interactions(ACCOUNT)) == 1


async def test_reload_returns_the_response_blocks_byte_identical(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.COMPOSED)
    blocks = [
        {"type": "text", "text": "Zoë's ticket — done ✓", "z": 1, "a": 2},
        {"type": "card", "options": [{"id": "yes", "label": "Yes"}], "amount": 12.5},
        {"type": "notice", "code": "turnframe.notice.kept_unchanged", "data": None},
    ]
    given = json.dumps(blocks, ensure_ascii=False, separators=(",", ":"))
    await store.save_assistant_turn(
        ACCOUNT, turn.turn_id, blocks, meta={"attempts": 1}, phase=move(P.COMPOSED, P.DELIVERED)
    )
    reloaded = await store.get_assistant_turn(ACCOUNT, turn.turn_id)
    assert reloaded is not None
    assert reloaded.blocks == blocks
    assert reloaded.blocks_json == given
    assert json.dumps(reloaded.blocks, ensure_ascii=False, separators=(",", ":")) == given
    assert reloaded.meta == {"attempts": 1}


async def test_saving_the_response_can_replace_the_thread_context_and_deliver_the_turn(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.COMPOSED)
    await store.save_assistant_turn(
        ACCOUNT,
        turn.turn_id,
        [{"type": "text", "text": "ok"}],
        thread_context={"summaries": ["closed ticket 1"]},
        phase=move(P.COMPOSED, P.DELIVERED),
    )
    session = await store.get_session(ACCOUNT, turn.session_id)
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert session is not None and session.thread_context == {"summaries": ["closed ticket 1"]}
    assert reread is not None and reread.phase is P.DELIVERED


async def test_a_response_with_a_conflicting_phase_move_is_not_stored(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.COMMITTED)
    with pytest.raises(PhaseConflict):
        await store.save_assistant_turn(
            ACCOUNT, turn.turn_id, [{"t": 1}], phase=move(P.COMPOSED, P.DELIVERED)
        )
    assert await store.get_assistant_turn(ACCOUNT, turn.turn_id) is None


async def test_a_replay_record_is_readable_by_turn_id(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    record = {"plan_hash": "abc", "provider_attempts": [{"provider": "p1", "ok": True}]}
    await store.save_replay_record(ACCOUNT, turn.turn_id, record)
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) == record


async def test_mutating_a_returned_payload_does_not_touch_the_store(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    saved = await store.save_plan(ACCOUNT, turn.turn_id, {"acts": ["a"]})
    assert saved.plan is not None
    saved.plan["acts"].append("smuggled")
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.plan == {"acts": ["a"]}
