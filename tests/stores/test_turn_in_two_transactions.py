"""A turn in two write transactions and one read (ADR 0022): the read that starts a turn, the
seal that records a live turn, and the commit bundle that stores the reply."""

from __future__ import annotations

import attrs
import pytest
from store_kit import ACCOUNT, OTHER, MakeCase, MakeTurn, entry, move

from turnframe.lifecycle import TurnPhase
from turnframe.stores import (
    AdmissionVerdict,
    CaseUpdate,
    CommitBundle,
    NewEvent,
    NotFound,
    PayloadImmutable,
    PhaseConflict,
    Store,
    TurnRecord,
    TurnSeal,
)
from turnframe.stores.inputs import BundleReply, NewUserTurn
from turnframe.stores.records import BundleReceipt

pytestmark = pytest.mark.anyio

P = TurnPhase


async def _live_seal(store: Store, account_id: str = ACCOUNT) -> tuple[str, TurnSeal]:
    session = await store.create_session(account_id=account_id, workflow="tickets")
    seal = TurnSeal(
        user_turn=NewUserTurn(session_id=session.session_id, payload={"text": "hi"}),
        plan={"plan": {"acts": []}},
        reduction={"results": [1]},
        entries=(entry("k1"),),
        phase=move(P.RECEIVED, P.EXECUTING),
    )
    return session.session_id, seal


async def _executing(store: Store, make_turn: MakeTurn) -> TurnRecord:
    turn = await make_turn(phase=P.INTERPRETED)
    await store.seal_turn(
        ACCOUNT,
        turn.turn_id,
        TurnSeal(
            reduction={"r": 1}, entries=(entry("k1"),), phase=move(P.INTERPRETED, P.EXECUTING)
        ),
    )
    return turn


def _bundle(turn: TurnRecord, case_id: str, **extra: object) -> CommitBundle:
    return CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        case_updates=[
            CaseUpdate(case_id=case_id, expected_revision=1, new_revision=2, state={"s": 2})
        ],
        events=[NewEvent(case_id=case_id, revision=2, type="changed", payload={})],
        phase=move(P.EXECUTING, P.COMMITTED),
        **extra,  # type: ignore[arg-type]
    )


def _reply_naming_the_events(receipt: BundleReceipt) -> BundleReply:
    return BundleReply(
        blocks=[{"text": "done", "events": [e.seq for e in receipt.events]}],
        meta={"narration_attempts": []},
        thread_context={"thread": {"n": 1}},
    )


async def test_the_start_of_an_unrecorded_turn_lists_every_case_of_the_account_only(
    store: Store, make_case: MakeCase
) -> None:
    mine = await make_case(label="Ticket 1")
    await make_case(OTHER, label="Ticket 2")
    start = await store.get_turn_start(ACCOUNT, "turn-unknown")
    assert start.turn is None
    assert start.cases is not None and [c.case_id for c in start.cases] == [mine.case_id]


async def test_the_start_of_a_received_turn_lists_the_cases_and_a_later_one_does_not(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    await make_case()
    received = await make_turn(phase=P.RECEIVED)
    start = await store.get_turn_start(ACCOUNT, received.turn_id)
    assert start.turn is not None and start.turn.phase is P.RECEIVED
    assert start.cases is not None and len(start.cases) == 1
    reduced = await make_turn(phase=P.REDUCED)
    later = await store.get_turn_start(ACCOUNT, reduced.turn_id)
    assert later.turn is not None and later.turn.phase is P.REDUCED and later.cases is None


async def test_the_start_of_a_turn_lists_no_case_when_there_is_none_and_several_in_order(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    received = await make_turn(phase=P.RECEIVED)
    empty = await store.get_turn_start(ACCOUNT, received.turn_id)
    assert empty.turn is not None and empty.turn.turn_id == received.turn_id
    assert empty.cases == ()
    assert (await store.get_turn_start(ACCOUNT, "turn-unknown")).cases == ()
    made = [await make_case(label=f"Ticket {n}") for n in range(3)]
    start = await store.get_turn_start(ACCOUNT, received.turn_id)
    assert start.turn == empty.turn
    assert start.cases is not None and [c.case_id for c in start.cases] == [c.case_id for c in made]
    assert list(start.cases) == await store.list_cases(ACCOUNT)


async def test_another_accounts_turn_starts_like_an_unknown_one(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(OTHER)
    start = await store.get_turn_start(ACCOUNT, turn.turn_id)
    assert start.turn is None


async def test_a_seal_that_records_a_live_turn_stores_it_with_its_plan_and_admission(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    receipt = await store.seal_turn(ACCOUNT, "turn-live", seal)
    assert [a.entry.idempotency_key for a in receipt.admissions] == ["k1"]
    turn = await store.get_turn(ACCOUNT, "turn-live")
    assert turn is not None and turn.session_id == session_id
    assert turn.payload == {"text": "hi"} and turn.phase is P.EXECUTING
    assert turn.plan == {"plan": {"acts": []}} and turn.reduction == {"results": [1]}
    session = await store.get_session(ACCOUNT, session_id)
    assert session is not None and session.last_turn_id == "turn-live"


async def test_a_seal_that_fails_stores_nothing_of_a_live_turn_not_even_the_turn(
    store: Store,
) -> None:
    _, seal = await _live_seal(store)
    wrong = TurnSeal(
        user_turn=seal.user_turn,
        reduction=seal.reduction,
        entries=seal.entries,
        phase=move(P.INTERPRETED, P.EXECUTING),  # a live turn is received: the move fails
    )
    with pytest.raises(PhaseConflict):
        await store.seal_turn(ACCOUNT, "turn-live", wrong)
    assert await store.get_turn(ACCOUNT, "turn-live") is None
    assert await store.get_journal_entry(ACCOUNT, "k1") is None


async def test_a_bundle_with_a_reply_stores_it_naming_its_events_and_ends_the_turn_delivered(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await _executing(store, make_turn)
    bundle = _bundle(turn, case.case_id, reply=_reply_naming_the_events)
    receipt = await store.commit_bundle(bundle)
    assert receipt.phase is P.DELIVERED
    reply = await store.get_assistant_turn(ACCOUNT, turn.turn_id)
    assert reply is not None
    assert reply.blocks == [{"text": "done", "events": [e.seq for e in receipt.events]}]
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.DELIVERED
    session = await store.get_session(ACCOUNT, reread.session_id)
    assert session is not None and session.thread_context == {"thread": {"n": 1}}


async def test_a_reply_that_cannot_be_composed_leaves_the_bundle_committed_without_it(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    def broken(receipt: BundleReceipt) -> BundleReply:
        raise KeyError("a narration bug")

    case = await make_case()
    turn = await _executing(store, make_turn)
    receipt = await store.commit_bundle(_bundle(turn, case.case_id, reply=broken))
    assert receipt.phase is P.COMMITTED and len(receipt.events) == 1
    assert await store.get_assistant_turn(ACCOUNT, turn.turn_id) is None
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.COMMITTED
    assert [e.type for e in await store.list_events(ACCOUNT)] == ["changed"]


async def test_a_reply_that_cannot_be_written_leaves_the_bundle_committed_without_it(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await _executing(store, make_turn)
    # Other blocks are stored already: the reply is write-once, so writing it fails.
    await store.save_assistant_turn(ACCOUNT, turn.turn_id, [{"text": "earlier"}])
    receipt = await store.commit_bundle(_bundle(turn, case.case_id, reply=_reply_naming_the_events))
    assert receipt.phase is P.COMMITTED
    reply = await store.get_assistant_turn(ACCOUNT, turn.turn_id)
    assert reply is not None and reply.blocks == [{"text": "earlier"}]
    case_now = await store.get_case(ACCOUNT, case.case_id)
    assert case_now is not None and case_now.revision == 2
    # The receipt names the events as committed (once: PostgreSQL writes them again after
    # rolling the reply back to a savepoint taken before them).
    stored = await store.list_events(ACCOUNT)
    assert [(e.seq, e.event_id, e.type) for e in stored] == [
        (e.seq, e.event_id, e.type) for e in receipt.events
    ]
    assert [e.type for e in stored] == ["changed"]


async def test_a_bundle_that_fails_stores_no_reply_either(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await _executing(store, make_turn)
    stale = CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        phase=move(P.REDUCED, P.COMMITTED),  # the turn is executing: the move fails
        reply=_reply_naming_the_events,
    )
    with pytest.raises(PhaseConflict):
        await store.commit_bundle(stale)
    assert await store.get_assistant_turn(ACCOUNT, turn.turn_id) is None
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.EXECUTING


async def test_a_reply_is_left_out_of_a_bundle_that_does_not_end_committed(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await _executing(store, make_turn)
    bundle = CommitBundle(account_id=ACCOUNT, turn_id=turn.turn_id, reply=_reply_naming_the_events)
    receipt = await store.commit_bundle(bundle)
    assert receipt.phase is None
    assert await store.get_assistant_turn(ACCOUNT, turn.turn_id) is None


async def test_a_live_turn_sealed_in_one_insert_reads_back_as_one_recorded_and_then_sealed(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    await store.seal_turn(ACCOUNT, "turn-live", seal)
    await store.record_user_turn(
        account_id=ACCOUNT, session_id=session_id, turn_id="turn-long", payload={"text": "hi"}
    )
    long_way = attrs.evolve(seal, user_turn=None, entries=(entry("k2"),))
    await store.seal_turn(ACCOUNT, "turn-long", long_way)
    one = await store.get_turn(ACCOUNT, "turn-live")
    other = await store.get_turn(ACCOUNT, "turn-long")
    assert one is not None and other is not None
    same = ("session_id", "payload", "phase", "plan", "reduction")
    assert [getattr(one, f) for f in same] == [getattr(other, f) for f in same]
    assert one.phase_changed_at == one.created_at
    unfinished = {t.turn_id for t in await store.list_unfinished_turns(account_id=ACCOUNT)}
    assert {"turn-live", "turn-long"} <= unfinished


async def test_a_live_seal_for_a_turn_stored_already_writes_its_plan_and_phase_the_long_way(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    await store.record_user_turn(
        account_id=ACCOUNT, session_id=session_id, turn_id="turn-live", payload={"text": "hi"}
    )
    receipt = await store.seal_turn(ACCOUNT, "turn-live", seal)
    assert [a.verdict for a in receipt.admissions] == [AdmissionVerdict.FRESH]
    turn = await store.get_turn(ACCOUNT, "turn-live")
    assert turn is not None and turn.phase is P.EXECUTING
    assert turn.plan == {"plan": {"acts": []}} and turn.reduction == {"results": [1]}


async def test_a_live_seal_under_the_id_of_another_stored_turn_is_refused_and_writes_nothing(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    await store.record_user_turn(
        account_id=ACCOUNT, session_id=session_id, turn_id="turn-live", payload={"text": "bye"}
    )
    with pytest.raises(PayloadImmutable):
        await store.seal_turn(ACCOUNT, "turn-live", seal)
    turn = await store.get_turn(ACCOUNT, "turn-live")
    assert turn is not None and turn.phase is P.RECEIVED and turn.plan is None
    assert await store.get_journal_entry(ACCOUNT, "k1") is None


async def test_a_live_seal_answers_a_command_another_turn_admitted_as_a_replay_or_a_refusal(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    await store.seal_turn(ACCOUNT, "turn-live", seal)  # admits k1 (digest-k1)
    again = TurnSeal(
        user_turn=NewUserTurn(session_id=session_id, payload={"text": "again"}),
        plan={"plan": {"acts": []}},
        reduction={"results": [2]},
        entries=(entry("k2"), entry("k1"), entry("k1-other", digest="x"), entry("k3")),
        phase=move(P.RECEIVED, P.EXECUTING),
    )
    await store.seal_turn(ACCOUNT, "turn-other", attrs.evolve(again, entries=(entry("k1-other"),)))
    receipt = await store.seal_turn(ACCOUNT, "turn-next", again)
    assert [(a.entry.idempotency_key, a.verdict) for a in receipt.admissions] == [
        ("k2", AdmissionVerdict.FRESH),
        ("k1", AdmissionVerdict.REPLAY_IN_FLIGHT),
        ("k1-other", AdmissionVerdict.REFUSED_DIFFERENT_COMMAND),
        ("k3", AdmissionVerdict.FRESH),
    ]
    assert receipt.admissions[1].entry.turn_id == "turn-live"
    stored = await store.get_journal_entry(ACCOUNT, "k3")
    assert stored is not None and stored.turn_id == "turn-next"


async def test_a_live_seal_with_many_commands_or_one_twice_admits_them_in_order(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    keys = [f"k{i}" for i in range(7)]
    many = attrs.evolve(seal, entries=tuple(entry(k) for k in keys))
    receipt = await store.seal_turn(ACCOUNT, "turn-live", many)
    assert [a.entry.idempotency_key for a in receipt.admissions] == keys
    assert {a.verdict for a in receipt.admissions} == {AdmissionVerdict.FRESH}
    twice = attrs.evolve(
        seal,
        user_turn=NewUserTurn(session_id=session_id, payload={"text": "twice"}),
        entries=(entry("k9"), entry("k9")),
    )
    receipt = await store.seal_turn(ACCOUNT, "turn-twice", twice)
    assert [a.verdict for a in receipt.admissions] == [
        AdmissionVerdict.FRESH,
        AdmissionVerdict.REPLAY_IN_FLIGHT,
    ]


async def test_a_live_seal_whose_session_is_gone_is_not_found_and_admits_nothing(
    store: Store,
) -> None:
    _, seal = await _live_seal(store)
    lost = attrs.evolve(seal, user_turn=NewUserTurn(session_id="no-such", payload={"text": "x"}))
    with pytest.raises(NotFound):
        await store.seal_turn(ACCOUNT, "turn-live", lost)
    assert await store.get_journal_entry(ACCOUNT, "k1") is None


async def test_a_live_seal_with_a_command_no_store_takes_fails_on_what_is_checked_first(
    store: Store,
) -> None:
    session_id, seal = await _live_seal(store)
    odd = attrs.evolve(entry("k2"), payload={"x": float("nan")})
    lost = attrs.evolve(
        seal,
        user_turn=NewUserTurn(session_id="no-such", payload={"text": "x"}),
        entries=(entry("k1"), odd),
    )
    with pytest.raises(NotFound):  # the session is checked before the commands are
        await store.seal_turn(ACCOUNT, "turn-live", lost)
    with pytest.raises(ValueError):  # then the command that is not JSON, and nothing stays
        await store.seal_turn(ACCOUNT, "turn-live", attrs.evolve(lost, user_turn=seal.user_turn))
    assert await store.get_turn(ACCOUNT, "turn-live") is None
    assert await store.get_journal_entry(ACCOUNT, "k1") is None
    session = await store.get_session(ACCOUNT, session_id)
    assert session is not None and session.last_turn_id is None


async def test_a_live_seal_admits_its_command_fresh_whatever_the_account_id_is(
    store: Store,
) -> None:
    _, seal = await _live_seal(store, account_id="")
    receipt = await store.seal_turn("", "turn-live", seal)
    assert [a.verdict for a in receipt.admissions] == [AdmissionVerdict.FRESH]
