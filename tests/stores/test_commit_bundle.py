"""The commit bundle: one transaction, whole or not at all."""

from __future__ import annotations

import attrs
import pytest
from store_kit import ACCOUNT, MakeCase, MakeTurn, entry, move

from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CardResolution,
    CaseRecord,
    CaseUpdate,
    CommitBundle,
    InteractionStatus,
    JournalOutcome,
    KeyReused,
    NewCase,
    NewEvent,
    NewInteraction,
    NewOutboxEffect,
    NotFound,
    OutboxStatus,
    PayloadImmutable,
    RevisionConflict,
    StatusConflict,
    Store,
    TurnRecord,
)

pytestmark = pytest.mark.anyio

NAN = float("nan")

J = JournalStatus
P = TurnPhase


class Boom(Exception):
    pass


async def _executing_turn_with_card(
    store: Store, make_turn: MakeTurn, case: CaseRecord
) -> tuple[TurnRecord, str]:
    turn = await make_turn(phase=P.INTERPRETED)
    [card] = await store.save_reduction(
        ACCOUNT,
        turn.turn_id,
        {"r": 1},
        interactions=[
            NewInteraction(payload={"k": "confirm"}, case_id=case.case_id, blocking=True)
        ],
        phase=move(P.INTERPRETED, P.REDUCED),
    )
    await store.admit(
        ACCOUNT,
        turn.turn_id,
        [entry("k1", case_id=case.case_id, expected_revision=case.revision)],
        phase=move(P.REDUCED, P.EXECUTING),
    )
    return turn, card.interaction_id


def _full_bundle(
    turn: TurnRecord, case: CaseRecord, card_id: str, *, expected_revision: int | None = None
) -> CommitBundle:
    rev = case.revision if expected_revision is None else expected_revision
    return CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        journal_outcomes=[
            JournalOutcome(
                idempotency_key="k1", expected=J.PENDING, status=J.COMMITTED, outcome={"r": 2}
            )
        ],
        case_updates=[
            CaseUpdate(
                case_id=case.case_id,
                expected_revision=rev,
                new_revision=rev + 1,
                state={"status": "closed"},
            )
        ],
        events=[
            NewEvent(
                case_id=case.case_id,
                revision=rev + 1,
                type="status_set",
                payload={"status": "closed"},
                command_id="cmd-k1",
            )
        ],
        card_resolutions=[CardResolution(interaction_id=card_id, resolution={"choice": "yes"})],
        outbox=[NewOutboxEffect(idempotency_key="notify-1", payload={"to": "ops"})],
        replay_record={"plan_hash": "h"},
        phase=move(P.EXECUTING, P.COMMITTED),
    )


async def _assert_nothing_of_the_bundle(
    store: Store, turn: TurnRecord, case: CaseRecord, card_id: str
) -> None:
    assert await store.get_case(ACCOUNT, case.case_id) == case
    assert await store.list_events(ACCOUNT) == []
    journal = await store.get_journal_entry(ACCOUNT, "k1")
    assert journal is not None and journal.status is J.PENDING and journal.outcome is None
    card = await store.get_interaction(ACCOUNT, card_id)
    assert card is not None and card.status is InteractionStatus.OPEN
    assert await store.list_outbox(ACCOUNT) == []
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) is None
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.EXECUTING


async def test_a_commit_bundle_writes_every_part_together(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn, card_id = await _executing_turn_with_card(store, make_turn, case)
    receipt = await store.commit_bundle(_full_bundle(turn, case, card_id))
    assert receipt.phase is P.COMMITTED
    assert [c.revision for c in receipt.cases] == [2]
    stored_case = await store.get_case(ACCOUNT, case.case_id)
    assert stored_case is not None
    assert (stored_case.revision, stored_case.state) == (2, {"status": "closed"})
    assert [e.type for e in await store.list_events(ACCOUNT)] == ["status_set"]
    assert receipt.events == tuple(await store.list_events(ACCOUNT))
    journal = await store.get_journal_entry(ACCOUNT, "k1")
    assert journal is not None and (journal.status, journal.outcome) == (J.COMMITTED, {"r": 2})
    card = await store.get_interaction(ACCOUNT, card_id)
    assert card is not None and card.status is InteractionStatus.RESOLVED
    [effect] = await store.list_outbox(ACCOUNT)
    assert (effect.status, effect.idempotency_key) == (OutboxStatus.PENDING, "notify-1")
    assert receipt.outbox == (effect,)
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) == {"plan_hash": "h"}
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.COMMITTED


async def test_a_stale_expected_revision_aborts_the_whole_commit_bundle(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case(revision=5)
    turn, card_id = await _executing_turn_with_card(store, make_turn, case)
    with pytest.raises(RevisionConflict) as caught:
        await store.commit_bundle(_full_bundle(turn, case, card_id, expected_revision=4))
    assert (caught.value.expected, caught.value.actual) == (4, 5)
    await _assert_nothing_of_the_bundle(store, turn, case, card_id)


async def test_a_journal_status_conflict_aborts_the_whole_commit_bundle(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn, card_id = await _executing_turn_with_card(store, make_turn, case)
    bundle = _full_bundle(turn, case, card_id)
    stale = CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        journal_outcomes=[
            JournalOutcome(idempotency_key="k1", expected=J.EXECUTING, status=J.COMMITTED)
        ],
        case_updates=bundle.case_updates,
        events=bundle.events,
    )
    with pytest.raises(StatusConflict):
        await store.commit_bundle(stale)
    await _assert_nothing_of_the_bundle(store, turn, case, card_id)


async def test_a_closed_card_aborts_the_whole_commit_bundle(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn, card_id = await _executing_turn_with_card(store, make_turn, case)
    await store.resolve_interaction(
        ACCOUNT, CardResolution(interaction_id=card_id, status=InteractionStatus.EXPIRED)
    )
    with pytest.raises(StatusConflict):
        await store.commit_bundle(_full_bundle(turn, case, card_id))
    assert await store.get_case(ACCOUNT, case.case_id) == case
    assert await store.list_events(ACCOUNT) == []


async def test_a_failing_hook_inside_the_transaction_leaves_nothing_partial(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn, card_id = await _executing_turn_with_card(store, make_turn, case)
    calls: list[str] = []

    def hook() -> None:
        calls.append("inside")
        raise Boom("mid-transaction")

    with pytest.raises(Boom):
        await store.commit_bundle(_full_bundle(turn, case, card_id), inside_transaction=hook)
    assert calls == ["inside"]
    await _assert_nothing_of_the_bundle(store, turn, case, card_id)
    receipt = await store.commit_bundle(_full_bundle(turn, case, card_id))
    assert receipt.phase is P.COMMITTED


async def test_a_reused_outbox_key_aborts_the_bundle(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn, card_id = await _executing_turn_with_card(store, make_turn, case)
    full = _full_bundle(turn, case, card_id)
    twice = CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        case_updates=full.case_updates,
        outbox=[full.outbox[0], full.outbox[0]],
    )
    with pytest.raises(KeyReused):
        await store.commit_bundle(twice)
    assert await store.get_case(ACCOUNT, case.case_id) == case


async def test_an_event_for_an_unknown_case_aborts_the_bundle(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case()
    turn = await make_turn(phase=P.EXECUTING)
    bundle = CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        case_updates=[
            CaseUpdate(case_id=case.case_id, expected_revision=1, new_revision=2, state={})
        ],
        events=[NewEvent(case_id="nope", revision=1, type="x", payload={})],
    )
    with pytest.raises(NotFound):
        await store.commit_bundle(bundle)
    assert await store.get_case(ACCOUNT, case.case_id) == case


async def test_a_bundle_can_start_a_case_and_record_its_first_event(
    store: Store, make_turn: MakeTurn
) -> None:
    turn = await make_turn(phase=P.EXECUTING)
    receipt = await store.commit_bundle(
        CommitBundle(
            account_id=ACCOUNT,
            turn_id=turn.turn_id,
            new_cases=[NewCase(workflow="tickets", label="New", state={}, case_id="c-new")],
            events=[NewEvent(case_id="c-new", revision=1, type="case_started", payload={})],
        )
    )
    assert [c.case_id for c in receipt.cases] == ["c-new"]
    assert [e.case_id for e in receipt.events] == ["c-new"]


async def test_several_fields_on_one_case_commit_under_one_revision_bump(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    case = await make_case(state={"title": "old", "priority": "low"})
    turn = await make_turn(phase=P.EXECUTING)
    new_state = {"title": "new", "priority": "high"}
    await store.commit_bundle(
        CommitBundle(
            account_id=ACCOUNT,
            turn_id=turn.turn_id,
            case_updates=[
                CaseUpdate(
                    case_id=case.case_id, expected_revision=1, new_revision=2, state=new_state
                )
            ],
            events=[
                NewEvent(case_id=case.case_id, revision=2, type="field_set", payload={"f": f})
                for f in ("title", "priority")
            ],
        )
    )
    stored = await store.get_case(ACCOUNT, case.case_id)
    assert stored is not None and (stored.revision, stored.state) == (2, new_state)
    assert {e.revision for e in await store.list_events(ACCOUNT)} == {2}


def _commands_on_cases(
    turn: TurnRecord, cases: list[CaseRecord], *, stale: int | None = None
) -> CommitBundle:
    """One command per case: its journal move, its case update and its event; the update of
    case number ``stale`` expects a revision the case has left."""
    expected = [c.revision - (1 if i == stale else 0) for i, c in enumerate(cases)]
    return CommitBundle(
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        journal_outcomes=[
            JournalOutcome(idempotency_key=f"k{i}", expected=J.PENDING, status=J.COMMITTED)
            for i in range(len(cases))
        ],
        case_updates=[
            CaseUpdate(case_id=c.case_id, expected_revision=r, new_revision=r + 1, state={"n": i})
            for i, (c, r) in enumerate(zip(cases, expected, strict=True))
        ],
        events=[
            NewEvent(case_id=c.case_id, revision=r + 1, type="set", payload={"n": i})
            for i, (c, r) in enumerate(zip(cases, expected, strict=True))
        ],
        replay_record={"plan_hash": "h"},
        phase=move(P.EXECUTING, P.COMMITTED),
    )


@pytest.mark.parametrize("count", [1, 3, 6])
async def test_a_bundle_of_commands_on_several_cases_writes_each_or_none(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, count: int
) -> None:
    cases = [await make_case(revision=2) for _ in range(count)]
    turn = await make_turn(phase=P.INTERPRETED)
    await store.admit(
        ACCOUNT,
        turn.turn_id,
        [entry(f"k{i}") for i in range(count)],
        phase=move(P.INTERPRETED, P.EXECUTING),
    )
    with pytest.raises(RevisionConflict) as caught:
        await store.commit_bundle(_commands_on_cases(turn, cases, stale=count - 1))
    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert [await store.get_case(ACCOUNT, c.case_id) for c in cases] == cases
    assert await store.list_events(ACCOUNT) == []
    assert await store.get_replay_record(ACCOUNT, turn.turn_id) is None
    receipt = await store.commit_bundle(_commands_on_cases(turn, cases))
    assert [(c.case_id, c.revision, c.state) for c in receipt.cases] == [
        (c.case_id, 3, {"n": i}) for i, c in enumerate(cases)
    ]
    assert [e.payload for e in await store.list_events(ACCOUNT)] == [{"n": i} for i in range(count)]
    for i in range(count):
        stored = await store.get_journal_entry(ACCOUNT, f"k{i}")
        assert stored is not None and stored.status is J.COMMITTED
    reread = await store.get_turn(ACCOUNT, turn.turn_id)
    assert reread is not None and reread.phase is P.COMMITTED


async def test_a_bundle_is_judged_in_order_turn_journal_cases_then_its_replay_record(
    store: Store, make_turn: MakeTurn, make_case: MakeCase
) -> None:
    cases = [await make_case(revision=2) for _ in range(2)]
    turn = await make_turn(phase=P.INTERPRETED)
    await store.admit(
        ACCOUNT, turn.turn_id, [entry("k0"), entry("k1")], phase=move(P.INTERPRETED, P.EXECUTING)
    )
    await store.save_replay_record(ACCOUNT, turn.turn_id, {"plan_hash": "other"})
    with pytest.raises(PayloadImmutable):  # another record stored under the turn
        await store.commit_bundle(_commands_on_cases(turn, cases))
    assert [await store.get_case(ACCOUNT, c.case_id) for c in cases] == cases
    with pytest.raises(RevisionConflict):  # the stale case before the record
        await store.commit_bundle(_commands_on_cases(turn, cases, stale=1))
    stale = _commands_on_cases(turn, cases, stale=0)
    gone = JournalOutcome(idempotency_key="nope", expected=J.PENDING, status=J.COMMITTED)
    with pytest.raises(NotFound):  # the unknown journal entry before the stale case
        await store.commit_bundle(
            attrs.evolve(stale, journal_outcomes=[stale.journal_outcomes[0], gone])
        )
    unknown = CaseUpdate(case_id="no-such-case", expected_revision=1, new_revision=2, state={})
    with pytest.raises(NotFound):  # an unknown case
        await store.commit_bundle(
            attrs.evolve(stale, case_updates=[stale.case_updates[1], unknown], events=[])
        )
    assert await store.list_events(ACCOUNT) == []
    same = attrs.evolve(_commands_on_cases(turn, cases), replay_record={"plan_hash": "other"})
    assert (await store.commit_bundle(same)).phase is P.COMMITTED  # the same record: a replay


@pytest.mark.parametrize(
    ("unsendable", "first_wrong"),
    [
        ("state", "turn"),  # a state that is not JSON, for a turn that is not there
        ("record", "case"),  # a replay record that is not JSON, with a stale case
        ("revision", "turn"),  # a revision beyond 64 bits, for a turn that is not there
    ],
)
async def test_a_bundle_with_a_value_no_store_takes_fails_on_what_is_checked_first(
    store: Store, make_turn: MakeTurn, make_case: MakeCase, unsendable: str, first_wrong: str
) -> None:
    case = await make_case(revision=2)
    turn = await make_turn(phase=P.INTERPRETED)
    await store.admit(ACCOUNT, turn.turn_id, [entry("k0")], phase=move(P.INTERPRETED, P.EXECUTING))
    bundle = _commands_on_cases(turn, [case], stale=0 if first_wrong == "case" else None)
    if first_wrong == "turn":
        bundle = attrs.evolve(bundle, turn_id="no-such-turn")
    [update] = bundle.case_updates
    if unsendable == "state":
        bundle = attrs.evolve(bundle, case_updates=[attrs.evolve(update, state={"x": NAN})])
    elif unsendable == "record":
        bundle = attrs.evolve(bundle, replay_record={"plan_hash": {1, 2}})
    else:
        far = attrs.evolve(update, new_revision=2**63)
        bundle = attrs.evolve(bundle, case_updates=[far])
    expected = {"turn": NotFound, "case": RevisionConflict}[first_wrong]
    with pytest.raises(expected):
        await store.commit_bundle(bundle)
    assert await store.get_case(ACCOUNT, case.case_id) == case
