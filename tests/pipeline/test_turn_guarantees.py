"""One sentence-named test per guarantee of the durable pipeline (issue 4)."""

from __future__ import annotations

import pytest
from pipeline_kit import (
    ACCOUNT,
    open_card,
    operation,
    option,
    question,
    running,
    say,
    scripted,
    set_field,
)

from turnframe.lifecycle import TurnPhase
from turnframe.plan import KeepUnchangedAct, LabelTarget
from turnframe.response import BlockKind
from turnframe.results import ActStatus, OptionAction
from turnframe.testing import span
from turnframe.testing.plans import TURN_CLOCK
from turnframe.testing.scripted import Answer, Fail, ScriptedProvider

pytestmark = pytest.mark.anyio


async def test_a_correction_that_leaves_the_value_unchanged_causes_no_mutation() -> None:
    text = "Change Bob's date to Friday. Actually, leave the date as it is."
    acts = [
        set_field(text, "Bob", "travel_date", "Friday", "date to Friday"),
        KeepUnchangedAct(
            target=LabelTarget(label="Bob"),
            field="travel_date",
            evidence=span(text, "leave the date as it is"),
        ),
    ]
    async with running(scripted(acts)) as (rt, store):
        response = await say(rt, text)
        assert response.phase is TurnPhase.DELIVERED
        assert await store.list_events(ACCOUNT) == []
        assert response.results[0].status is ActStatus.SUPERSEDED_BY_CORRECTION
        assert not any(b.kind is BlockKind.RECEIPT for b in response.blocks)


async def test_several_fields_on_one_case_commit_under_one_revision_bump() -> None:
    text = "For Bob: note window seat, passengers 3"
    acts = [
        set_field(text, "Bob", "note", "window seat", "note window seat"),
        set_field(text, "Bob", "passengers", "3", "passengers 3"),
    ]
    async with running(scripted(acts)) as (rt, store):
        await say(rt, text)
        case = await store.get_case(ACCOUNT, "case-bob")
        assert case is not None and case.revision == 3
        assert case.state["note"] == "window seat" and case.state["passengers"] == 3
        events = await store.list_events(ACCOUNT, case_id="case-bob")
        assert {e.revision for e in events} == {3}


@pytest.mark.parametrize("question_first", [False, True])
async def test_an_action_and_a_question_both_get_results(question_first: bool) -> None:
    text = "Note for Bob: aisle. What is Bob's status?"
    acts = [
        set_field(text, "Bob", "note", "aisle", "Note for Bob: aisle"),
        question(text, "Bob", "status", "What is Bob's status?"),
    ]
    if question_first:
        acts.reverse()
    async with running(scripted(acts)) as (rt, _):
        response = await say(rt, text)
        kinds = {b.kind for b in response.blocks}
        assert {BlockKind.RECEIPT, BlockKind.ANSWER} <= kinds
        assert len(response.results) == 2


async def test_two_cases_with_the_same_label_produce_a_selection_card_and_no_mutation() -> None:
    text = "Set Anna's note to quiet room"
    acts = [set_field(text, "Anna", "note", "quiet room", "note to quiet room")]
    async with running(scripted(acts)) as (rt, store):
        response = await say(rt, text)
        assert await store.list_events(ACCOUNT) == []
        assert any(b.kind is BlockKind.CARD for b in response.blocks)
        assert response.results[0].status is ActStatus.NEEDS_CLARIFICATION


async def test_a_malformed_second_act_executes_nothing() -> None:
    text = "Set Bob's note to aisle and submit"
    good = set_field(text, "Bob", "note", "aisle", "note to aisle")
    from turnframe._converter import converter
    from turnframe._hashing import canonical_json

    raw = {"acts": [converter.unstructure(good, type(good)) | {"kind": "set_field"}, {"kind": "x"}]}
    provider = ScriptedProvider(name="model", script=[Answer(canonical_json(raw).decode())])
    async with running(provider) as (rt, store):
        response = await say(rt, text)
        assert response.phase is TurnPhase.FAILED
        assert await store.list_events(ACCOUNT) == []
        assert await store.list_journal(ACCOUNT, response.turn_id) == []


async def test_a_confirmed_withdrawal_runs_once_and_a_double_click_adds_nothing() -> None:
    text = "Withdraw Bob's trip"
    acts = [operation(text, "Bob", "withdraw", "Withdraw Bob's trip")]
    async with running(scripted(acts)) as (rt, store):
        first = await say(rt, text)
        assert first.results[0].status is ActStatus.AWAITING_CONFIRMATION
        assert await store.list_events(ACCOUNT) == []
        card = await open_card(store)
        session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
        confirm = option(card, OptionAction.CONFIRM)
        revision = card.expected_revision or 0
        clicked = await rt.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id=confirm,
            expected_revision=revision,
            at=TURN_CLOCK,
        )
        assert any(b.kind is BlockKind.RECEIPT for b in clicked.blocks)
        again = await rt.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id=confirm,
            expected_revision=revision,
            at=TURN_CLOCK,
        )
        assert not any(b.kind is BlockKind.RECEIPT for b in again.blocks)
        events = await store.list_events(ACCOUNT, case_id="case-bob")
        assert [e.type for e in events] == ["withdrawn"]


async def test_a_stale_confirmation_is_rejected() -> None:
    text = "Withdraw Bob's trip"
    note = "Bob's note: late"
    provider = scripted(
        [operation(text, "Bob", "withdraw", "Withdraw Bob's trip")],
        [set_field(note, "Bob", "note", "late", "note: late")],
    )
    async with running(provider) as (rt, store):
        await say(rt, text)
        card = await open_card(store)
        await say(rt, note)  # the case moves on: the card's revision is stale now
        session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
        await rt.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id=option(card, OptionAction.CONFIRM),
            expected_revision=card.expected_revision or 0,
            at=TURN_CLOCK,
        )
        types = [e.type for e in await store.list_events(ACCOUNT, case_id="case-bob")]
        assert "withdrawn" not in types


async def test_a_client_cannot_change_what_an_option_means() -> None:
    text = "Withdraw Bob's trip"
    async with running(scripted([operation(text, "Bob", "withdraw", "Withdraw Bob's trip")])) as (
        rt,
        store,
    ):
        await say(rt, text)
        card = await open_card(store)
        session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
        await rt.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id="confirm-everything",
            expected_revision=card.expected_revision or 0,
            at=TURN_CLOCK,
        )
        assert await store.list_events(ACCOUNT) == []


async def test_a_failed_command_yields_no_receipt() -> None:
    text = "Submit Anna's Rome trip"
    # Bob has every field; Carla is already submitted, so submitting her again is refused.
    acts = [operation(text, "Carla", "submit", "Submit")]
    async with running(scripted(acts)) as (rt, store):
        response = await say(rt, text)
        assert not any(b.kind is BlockKind.RECEIPT for b in response.blocks)
        assert await store.list_events(ACCOUNT) == []


async def test_a_provider_failure_before_commit_falls_back_safely() -> None:
    text = "Set Bob's note to aisle"
    acts = [set_field(text, "Bob", "note", "aisle", "note to aisle")]
    from turnframe.providers.policy import RetryPolicy
    from turnframe.testing.pipeline import plan_answer

    primary = ScriptedProvider(name="primary", script=[Fail(kind="fallback")])
    backup = ScriptedProvider(name="backup", script=[Answer(plan_answer(acts))])
    async with running([primary, backup], retry_policy=RetryPolicy.no_retries()) as (rt, store):
        response = await say(rt, text)
        assert response.phase is TurnPhase.DELIVERED
        events = await store.list_events(ACCOUNT)
        assert [e.type for e in events] == ["field_set"]


async def test_reload_returns_the_same_blocks() -> None:
    text = "Set Bob's note to aisle"
    async with running(scripted([set_field(text, "Bob", "note", "aisle", "note to aisle")])) as (
        rt,
        _,
    ):
        response = await say(rt, text)
        reloaded = await rt.reload(account_id=ACCOUNT, turn_id=response.turn_id)
        assert reloaded is not None and reloaded.blocks == response.blocks


async def test_another_accounts_ids_leak_nothing() -> None:
    text = "Set Dana's note to aisle"
    async with running(scripted([set_field(text, "Dana", "note", "aisle", "note to aisle")])) as (
        rt,
        store,
    ):
        response = await say(rt, text)  # Dana belongs to acct-2
        assert response.results[0].status is ActStatus.NEEDS_CLARIFICATION
        assert await store.list_events("acct-2") == []
        assert await rt.reload(account_id="acct-2", turn_id=response.turn_id) is None


async def test_no_receipt_without_a_committed_event() -> None:
    from turnframe.testing.invariants import receipt_violations

    texts = ["Set Bob's note to aisle", "Submit Carla's trip", "Withdraw Bob's trip"]
    provider = scripted(
        [set_field(texts[0], "Bob", "note", "aisle", "note to aisle")],
        [operation(texts[1], "Carla", "submit", "Submit")],  # refused: already submitted
        [operation(texts[2], "Bob", "withdraw", texts[2])],  # waits for a card
    )
    async with running(provider) as (rt, store):
        responses = [await say(rt, text) for text in texts]
        receipts = [b for r in responses for b in r.blocks if b.kind is BlockKind.RECEIPT]
        assert len(receipts) == 1
        for response in responses:
            assert await receipt_violations(store, ACCOUNT, response.turn_id) == []


async def test_an_evicted_idle_session_resumes_from_the_store_on_its_next_turn() -> None:
    first, second = "Set Bob's note to aisle", "Set Bob's note to window"
    provider = scripted(
        [set_field(first, "Bob", "note", "aisle", "note to aisle")],
        [set_field(second, "Bob", "note", "window", "note to window")],
    )
    async with running(provider) as (rt, store):
        await say(rt, first)
        assert await rt.evict_idle_sessions(idle_for=0.0) == 1
        response = await say(rt, second)
        assert response.phase is TurnPhase.DELIVERED
        case = await store.get_case(ACCOUNT, "case-bob")
        assert case is not None and case.state["note"] == "window"


async def test_two_sessions_changing_one_case_at_once_never_overwrite_each_other() -> None:
    a = b = "Set Bob's note to aisle"  # one text, so either session may get either answer
    provider = scripted(
        [set_field(a, "Bob", "note", "aisle", "note to aisle")],
        [set_field(b, "Bob", "note", "aisle", "note to aisle")],
    )
    import anyio

    async with running(provider) as (rt, store):
        one = await rt.open_session(account_id=ACCOUNT, session_id="sess-a")
        two = await rt.open_session(account_id=ACCOUNT, session_id="sess-b")
        responses = []

        async def turn(session: object, text: str) -> None:
            responses.append(await rt.handle_turn(rt.new_turn(session, text, at=TURN_CLOCK)))  # type: ignore[arg-type]

        async with anyio.create_task_group() as tg:
            tg.start_soon(turn, one, a)
            tg.start_soon(turn, two, b)
        assert all(r.phase is TurnPhase.DELIVERED for r in responses)
        events = await store.list_events(ACCOUNT, case_id="case-bob")
        case = await store.get_case(ACCOUNT, "case-bob")
        assert case is not None
        # Every committed change bumped the revision once, from the revision it was decided on.
        assert case.revision == 2 + len(events)
        receipts = [b for r in responses for b in r.blocks if b.kind is BlockKind.RECEIPT]
        assert len(receipts) == len(events)
        assert case.state["note"] == "aisle"
