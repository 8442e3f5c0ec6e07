"""The protocol survives crashes and restarts: its state is stored with the session, with the
response of the turn that changed it, so the next turn (in this process or another) continues
where it stood, and a crashed turn replays from the state before it."""

from __future__ import annotations

import pytest
from recall_kit import (
    ACCOUNT,
    Chat,
    codes,
    converse,
    index,
    presented_sessions,
    recall_block,
    recalling,
)

from turnframe.actors.session import TurnIncomplete
from turnframe.lifecycle import TurnPhase
from turnframe.recall import recalled_contexts
from turnframe.stores import Store
from turnframe.testing.faults import Fault, FaultMode, FaultPlan, FaultPoint, FaultyStore

pytestmark = pytest.mark.anyio

POOL = "The hotel pool is closed until March, so we settled on the lounge pass instead"
PORTO = "Is the pool at the Porto hotel heated in winter?"
FERRY = "Can you check whether the ferry to Sintra runs on Sundays?"


async def test_a_crash_between_present_and_the_answer_resumes_where_it_was(store: Store) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        shown = recall_block(await chat.say("what did we settle about the hotel pool?"))
        assert shown.code == "turnframe.recall.presented"
    # The process is gone; another one serves the session's next turn.
    async with recalling(store) as rt:
        chat = Chat(rt, chat.session)
        chat.minute = 5
        identified = recall_block(await chat.say("yes, that one"))
        assert identified.code == "turnframe.recall.identified"
        assert identified.data["session_id"] == pool.session_id


async def test_a_correction_after_a_restart_keeps_counting_the_same_attempts(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        ferry = await converse(rt, [FERRY], days_ago=6)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("what did we settle about the hotel pool?")
    async with recalling(store) as rt:
        chat = Chat(rt, chat.session)
        chat.minute = 5
        again = recall_block(await chat.say("no, the one about the Sintra ferry"))
        assert presented_sessions(again)[0] == ferry.session_id
        assert again.data["attempts_left"] == 2


@pytest.mark.parametrize(
    "point",
    [
        FaultPoint.BEFORE_RECALL_FIND,
        FaultPoint.BEFORE_RECALL_GROUND,
        FaultPoint.BEFORE_RESPONSE_PERSISTENCE,
    ],
)
async def test_a_turn_stopped_at_any_step_of_a_recall_replays_it_from_the_stored_state(
    store: Store, point: FaultPoint
) -> None:
    async with recalling(store) as rt:
        porto = await converse(rt, [PORTO], days_ago=20)
        pool = await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("what did we settle about the hotel pool?")
    # The store times out at ``point`` every time the answer turn gets there (a transient
    # failure, ADR 0013): the turn stops, left to recovery, and the protocol is still waiting
    # on the presentation.
    stalls = FaultPlan(faults=(Fault(point=point, mode=FaultMode.TIMEOUT, times=None),))
    async with recalling(FaultyStore(store, stalls), resume_attempts=0) as rt:
        chat = Chat(rt, chat.session)
        chat.minute = 5
        with pytest.raises(TurnIncomplete):
            await chat.say("no, not that one. The one about the pool at the hotel")
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        assert record.thread_context["recall"]["state"]["phase"] == "presented"
        assert record.thread_context["recall"]["state"]["attempts"] == 0
    # Restarted without the fault: recovery finishes the stopped turn once, from that state.
    async with recalling(store) as rt:
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        state = record.thread_context["recall"]["state"]
        assert state["attempts"] == 1 and state["rejected"] == [pool.session_id]
        assert state["presented"]["members"][0]["session_id"] == porto.session_id
        chat = Chat(rt, chat.session)
        chat.minute = 9
        after = await chat.say("yes, that one")
        assert recall_block(after).data["session_id"] == porto.session_id


@pytest.mark.parametrize("point", [FaultPoint.BEFORE_RECALL_FIND, FaultPoint.BEFORE_RECALL_GROUND])
async def test_a_recall_turn_that_crashes_the_same_way_every_time_is_parked_and_changes_nothing(
    store: Store, point: FaultPoint
) -> None:
    async with recalling(store) as rt:
        porto = await converse(rt, [PORTO], days_ago=20)
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
        await chat.say("what did we settle about the hotel pool?")
    # The same crash at every try: the turn is parked (ADR 0013), delivered with a fallback
    # reply after its commit, and the protocol still waits on the presentation it had.
    crash = FaultPlan(faults=(Fault(point=point, times=None),))
    async with recalling(FaultyStore(store, crash), resume_attempts=0) as rt:
        chat = Chat(rt, chat.session)
        chat.minute = 5
        parked = await chat.say("no, not that one. The one about the pool at the hotel")
        assert parked.phase is TurnPhase.DELIVERED
        assert codes(parked) == ["turnframe.notice.reply_unavailable"]
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        assert record.thread_context["recall"]["state"]["phase"] == "presented"
        assert record.thread_context["recall"]["state"]["attempts"] == 0
    async with recalling(store) as rt:  # nothing left to recover; saying it again works
        assert await rt.store.list_unfinished_turns(account_id=None) == []
        chat = Chat(rt, chat.session)
        chat.minute = 9
        correction = "no, not that one. The one about the pool at the hotel"
        again = recall_block(await chat.say(correction))
        assert presented_sessions(again)[0] == porto.session_id


async def test_a_crash_before_a_presentation_is_stored_delivers_the_same_presentation_later(
    store: Store,
) -> None:
    async with recalling(store) as rt:
        pool = await converse(rt, [POOL], days_ago=8)
        await index(rt)
        chat = await Chat.start(rt)
    crash = FaultPlan(faults=(Fault(point=FaultPoint.BEFORE_RESPONSE_PERSISTENCE, times=None),))
    async with recalling(FaultyStore(store, crash), resume_attempts=0) as rt:
        chat = Chat(rt, chat.session)
        with pytest.raises(TurnIncomplete) as stopped:
            await chat.say("what did we settle about the hotel pool?")
    async with recalling(store) as rt:  # recovery delivers the presentation, once
        reply = await rt.reload(account_id=ACCOUNT, turn_id=stopped.value.turn_id)
        assert reply is not None
        shown = recall_block(reply)
        assert shown.code == "turnframe.recall.presented"
        assert presented_sessions(shown)[0] == pool.session_id
        chat = Chat(rt, chat.session)
        chat.minute = 5
        identified = recall_block(await chat.say("yes, that one"))
        assert identified.data["session_id"] == pool.session_id
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        assert len(recalled_contexts(record.thread_context)) == 1


async def test_an_index_write_that_fails_when_a_session_goes_idle_loses_nothing(
    store: Store,
) -> None:
    crash = FaultPlan(faults=(Fault(point=FaultPoint.BEFORE_RECALL_INDEX_WRITE, times=None),))
    faulty = FaultyStore(store, crash)
    async with recalling(faulty) as rt:
        ferry = await converse(rt, [FERRY], days_ago=8)
        assert await rt.evict_idle_sessions(idle_for=0) >= 1  # its entry is not written
    assert await store.get_recall_entries(ACCOUNT, [ferry.session_id]) == []
    async with recalling(store) as rt:
        chat = await Chat.start(rt)
        block = recall_block(await chat.say("do you remember the Sintra ferry question?"))
        assert presented_sessions(block)[0] == ferry.session_id


async def reach(chat: Chat, wait: str) -> None:
    """Bring today's recall to ``wait``: the open question, the expansion card, or a
    presentation."""
    if wait == "presented":
        await chat.say("what did we settle about the hotel pool?")
        return
    await chat.say("do you remember that thing from the other day?")
    if wait == "expansion":
        await chat.say("it was with Marco, I think")


#: The answer each wait gets after the restart, and what it must lead to.
ANSWERS = {
    "asked": ("it was about the ferry to Sintra", "turnframe.recall.presented", 1),
    "expansion": ("yes, search everything", "turnframe.recall.presented", 1),
    "presented": ("no, not that one. The one about the ferry", "turnframe.recall.presented", 1),
}


@pytest.mark.parametrize("wait", ["asked", "expansion", "presented"])
async def test_a_restart_at_any_wait_of_the_protocol_continues_it_where_it_stood(
    store: Store, wait: str
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        # Never indexed: "Marco" is in a later turn only, reached by the full text alone.
        ferry = await converse(rt, [FERRY, "and Marco wants the late boat back"], days_ago=6)
        chat = await Chat.start(rt)
        await reach(chat, wait)
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        before = record.thread_context["recall"]["state"]
        assert before["phase"] == wait
    async with recalling(store) as rt:  # another process, nothing carried over but the store
        chat = Chat(rt, chat.session)
        chat.minute = 9
        said, code, attempts = ANSWERS[wait]
        answered = recall_block(await chat.say(said))
        assert answered.code == code
        assert presented_sessions(answered)[0] == ferry.session_id
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        assert record.thread_context["recall"]["state"]["attempts"] == attempts


@pytest.mark.parametrize(
    "point",
    [
        FaultPoint.BEFORE_RECALL_FIND,
        FaultPoint.BEFORE_RECALL_GROUND,
        FaultPoint.BEFORE_RESPONSE_PERSISTENCE,
    ],
)
@pytest.mark.parametrize("wait", ["asked", "expansion"])
async def test_an_answer_stopped_at_any_step_replays_from_the_wait_it_answered(
    store: Store, wait: str, point: FaultPoint
) -> None:
    async with recalling(store) as rt:
        await converse(rt, [POOL], days_ago=8)
        await index(rt)
        # Never indexed: "Marco" is in a later turn only, reached by the full text alone.
        ferry = await converse(rt, [FERRY, "and Marco wants the late boat back"], days_ago=6)
        chat = await Chat.start(rt)
        await reach(chat, wait)
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        before = record.thread_context["recall"]["state"]
    stalls = FaultPlan(faults=(Fault(point=point, mode=FaultMode.TIMEOUT, times=None),))
    said, code, attempts = ANSWERS[wait]
    async with recalling(FaultyStore(store, stalls), resume_attempts=0) as rt:
        chat = Chat(rt, chat.session)
        chat.minute = 9
        with pytest.raises(TurnIncomplete):
            await chat.say(said)
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        assert record.thread_context["recall"]["state"] == before  # nothing half-applied
    async with recalling(store) as rt:  # recovery finishes the stopped answer once
        record = await rt.store.get_session(ACCOUNT, chat.session.session_id)
        assert record is not None
        state = record.thread_context["recall"]["state"]
        assert state["phase"] == "presented" and state["attempts"] == attempts
        assert state["presented"]["members"][0]["session_id"] == ferry.session_id
        chat = Chat(rt, chat.session)
        chat.minute = 12
        identified = recall_block(await chat.say("yes, that one"))
        assert identified.code == "turnframe.recall.identified"
        assert identified.data["session_id"] == ferry.session_id
        assert code == "turnframe.recall.presented"
