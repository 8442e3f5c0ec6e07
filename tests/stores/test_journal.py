"""The command journal: admission by idempotency key, status moves forward only."""

from __future__ import annotations

import pytest
from store_kit import ACCOUNT, MakeTurn, entry, move

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    AdmissionVerdict,
    IllegalTransition,
    PhaseConflict,
    StatusConflict,
    Store,
)

pytestmark = pytest.mark.anyio

J = JournalStatus
V = AdmissionVerdict
P = TurnPhase


async def test_a_new_key_is_admitted_fresh(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn(phase=P.REDUCED)
    [answer] = await store.admit(
        ACCOUNT, turn.turn_id, [entry("k1", case_id="c1", expected_revision=3)]
    )
    assert answer.verdict is V.FRESH
    assert answer.entry.status is J.PENDING
    assert answer.entry.turn_id == turn.turn_id
    assert (answer.entry.case_id, answer.entry.expected_revision) == ("c1", 3)
    assert await store.get_journal_entry(ACCOUNT, "k1") == answer.entry


async def test_admission_and_its_phase_move_seal_the_turn_together(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.REDUCED)
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.EXECUTING


async def test_an_admission_whose_phase_move_conflicts_admits_nothing(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.INTERPRETED)
    with pytest.raises(PhaseConflict):
        await store.admit(ACCOUNT, turn.turn_id, [entry("k1")], phase=move(P.REDUCED, P.EXECUTING))
    assert await store.get_journal_entry(ACCOUNT, "k1") is None


async def test_a_replay_of_a_settled_entry_answers_with_its_stored_outcome(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    await store.set_journal_status(
        ACCOUNT, "k1", expected=J.PENDING, new=J.COMMITTED, outcome={"revision": 4}
    )
    [answer] = await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    assert answer.verdict is V.REPLAY_OF_SETTLED
    assert answer.entry.outcome == {"revision": 4}


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ((), J.PENDING),
        ((J.EXECUTING,), J.EXECUTING),
    ],
)
async def test_a_replay_of_an_in_flight_entry_asks_to_resume_it(
    store: Store, make_turn: MakeTurn, path: tuple[JournalStatus, ...], status: JournalStatus
) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    current = J.PENDING
    for nxt in path:
        await store.set_journal_status(ACCOUNT, "k1", expected=current, new=nxt)
        current = nxt
    [answer] = await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    assert answer.verdict is V.REPLAY_IN_FLIGHT
    assert answer.entry.status is status


async def test_commands_a_confirmation_authorizes_are_journaled_awaiting_it(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    [fresh] = await store.admit(
        ACCOUNT, turn.turn_id, [entry("k1", status=J.AWAITING_CONFIRMATION)]
    )
    [again] = await store.admit(
        ACCOUNT, turn.turn_id, [entry("k1", status=J.AWAITING_CONFIRMATION)]
    )
    assert fresh.entry.status is J.AWAITING_CONFIRMATION
    assert again.verdict is V.REPLAY_IN_FLIGHT


async def test_a_replay_of_an_unknown_outcome_asks_to_reconcile_it(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    await store.set_journal_status(ACCOUNT, "k1", expected=J.PENDING, new=J.OUTCOME_UNKNOWN)
    [answer] = await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    assert answer.verdict is V.REPLAY_OUTCOME_UNKNOWN


async def test_a_reused_key_with_a_different_command_is_refused(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    [original] = await store.admit(ACCOUNT, turn.turn_id, [entry("k1", digest="d1")])
    [answer] = await store.admit(ACCOUNT, turn.turn_id, [entry("k1", digest="d2")])
    assert answer.verdict is V.REFUSED_DIFFERENT_COMMAND and answer.refused
    assert answer.entry == original.entry
    assert await store.get_journal_entry(ACCOUNT, "k1") == original.entry


async def test_admission_answers_each_entry_in_order(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("done"), entry("running")])
    await store.set_journal_status(ACCOUNT, "done", expected=J.PENDING, new=J.COMMITTED)
    answers = await store.admit(
        ACCOUNT,
        turn.turn_id,
        [entry("new"), entry("done"), entry("running", digest="other"), entry("new")],
    )
    assert [a.verdict for a in answers] == [
        V.FRESH,
        V.REPLAY_OF_SETTLED,
        V.REFUSED_DIFFERENT_COMMAND,
        V.REPLAY_IN_FLIGHT,
    ]


async def test_the_journal_lists_a_turns_entries_in_admission_order(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    other = await make_turn()
    keys = ["zeta", "alpha", "mid"]
    await store.admit(ACCOUNT, turn.turn_id, [entry(k) for k in keys])
    await store.admit(ACCOUNT, other.turn_id, [entry("elsewhere")])
    listed = await store.list_journal(ACCOUNT, turn.turn_id)
    assert [e.idempotency_key for e in listed] == keys


async def test_a_journal_status_moves_forward_by_compare_and_swap(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    running = await store.set_journal_status(ACCOUNT, "k1", expected=J.PENDING, new=J.EXECUTING)
    done = await store.set_journal_status(
        ACCOUNT, "k1", expected=J.EXECUTING, new=J.COMMITTED, outcome={"ok": True}
    )
    assert running.status is J.EXECUTING
    assert (done.status, done.outcome) == (J.COMMITTED, {"ok": True})


async def test_a_stale_expected_status_is_a_conflict(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    await store.set_journal_status(ACCOUNT, "k1", expected=J.PENDING, new=J.EXECUTING)
    with pytest.raises(StatusConflict) as caught:
        await store.set_journal_status(ACCOUNT, "k1", expected=J.PENDING, new=J.FAILED)
    assert caught.value.actual == "executing"


async def test_a_settled_entry_never_moves_again(store: Store, make_turn: MakeTurn) -> None:
    turn = await make_turn()
    await store.admit(ACCOUNT, turn.turn_id, [entry("k1")])
    await store.set_journal_status(ACCOUNT, "k1", expected=J.PENDING, new=J.FAILED)
    with pytest.raises(IllegalTransition):
        await store.set_journal_status(ACCOUNT, "k1", expected=J.FAILED, new=J.EXECUTING)
    stored = await store.get_journal_entry(ACCOUNT, "k1")
    assert stored is not None and stored.status is J.FAILED
