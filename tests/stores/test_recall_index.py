"""Recall's part of the store: full-text rows kept as turns and replies are written, derived
index entries, identifiers, and queries that reach the same sessions on every store."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from store_kit import ACCOUNT, OTHER

from turnframe.stores import (
    CardResolution,
    InteractionStatus,
    NewInteraction,
    NewRecallEntry,
    RecallIdentifier,
    RecallQuery,
    RecallScope,
    RecallTerm,
    Store,
)

pytestmark = pytest.mark.anyio


async def conversation(
    store: Store, *said: str, account: str = ACCOUNT, replies: Sequence[str] = ()
) -> str:
    """A session whose user turns said ``said`` (each answered by the matching reply)."""
    session = await store.create_session(account_id=account, workflow="tickets")
    for n, text in enumerate(said):
        turn = await store.record_user_turn(
            account_id=account, session_id=session.session_id, payload={"text": text}
        )
        if n < len(replies):
            blocks = [{"kind": "text", "code": "turnframe.text.chitchat", "text": replies[n]}]
            await store.save_assistant_turn(account, turn.turn_id, blocks)
    return session.session_id


def term(*forms: str, weight: int = 1) -> RecallTerm:
    return RecallTerm(forms=forms, weight=weight)


async def reached(
    store: Store,
    *forms: str,
    scope: RecallScope = RecallScope.SPINE,
    account: str = ACCOUNT,
    identifiers: tuple[str, ...] = (),
) -> set[str]:
    query = RecallQuery(
        terms=tuple(term(f) for f in forms), identifiers=identifiers, scope=scope
    )
    found = await store.find_recall(account, query)
    return {h.session_id for h in found.hits}


async def test_words_are_cut_the_same_way_on_every_store(store: Store) -> None:
    hyphen = await conversation(store, "The hotel-pool closes early")
    url = await conversation(store, "See https://example.com/rooms/blue for the room")
    path = await conversation(store, "The notes are in docs/app.py, line 12")
    accents = await conversation(store, "Le Hôtel Été has a PISCINE")
    assert await reached(store, "pool") == {hyphen}
    assert await reached(store, "example") == {url}
    assert await reached(store, "blue") == {url}
    assert await reached(store, "app") == {path}
    assert await reached(store, "py") == {path}
    assert await reached(store, "hôtel") == {accents}
    assert await reached(store, "hotel") == {hyphen}  # diacritics are kept: hôtel is not hotel
    assert await reached(store, "piscine") == {accents}
    assert await reached(store, "12") == {path}


async def test_spine_scope_reads_first_turns_and_full_text_every_turn_and_reply(
    store: Store,
) -> None:
    session = await conversation(
        store,
        "Book the hotel in Porto",
        "and the ferry to Sintra",
        replies=["Noted, the azulejo museum is shut"],
    )
    assert await reached(store, "porto") == {session}
    assert await reached(store, "ferry") == set()
    assert await reached(store, "ferry", scope=RecallScope.FULL_TEXT) == {session}
    assert await reached(store, "azulejo", scope=RecallScope.FULL_TEXT) == {session}
    found = await store.find_recall(
        ACCOUNT, RecallQuery(terms=(term("ferry"), term("azulejo")), scope=RecallScope.FULL_TEXT)
    )
    [hit] = found.hits
    assert [s.value for s in hit.sources] == ["body", "reply"]
    assert hit.terms == (0, 1) and hit.score == 2
    assert (found.sessions, found.indexed) == (None, None)  # hits, and no coverage asked for


async def test_a_term_matches_through_any_of_its_forms(store: Store) -> None:
    pools = await conversation(store, "Two pools at the hotel")
    assert await reached(store, "pool") == set()
    found = await store.find_recall(ACCOUNT, RecallQuery(terms=(term("pool", "pools"),)))
    assert [h.session_id for h in found.hits] == [pools]


async def test_sessions_come_best_first_then_newest_first(store: Store) -> None:
    old_both = await conversation(store, "ferry and pool")
    one = await conversation(store, "ferry only")
    new_both = await conversation(store, "pool and ferry")
    query = RecallQuery(terms=(term("ferry"), term("pool")), limit=2, coverage=True)
    found = await store.find_recall(ACCOUNT, query)
    assert [h.session_id for h in found.hits] == sorted([old_both, new_both], reverse=True)
    assert one not in {h.session_id for h in found.hits}
    assert found.sessions == 3


async def test_excluded_sessions_are_never_reached(store: Store) -> None:
    here = await conversation(store, "the ferry, again")
    there = await conversation(store, "the ferry")
    query = RecallQuery(terms=(term("ferry"),), exclude_sessions=(here,))
    found = await store.find_recall(ACCOUNT, query)
    assert [h.session_id for h in found.hits] == [there]


async def test_another_accounts_sessions_are_never_reached(store: Store) -> None:
    await conversation(store, "the ferry to Sintra", account=OTHER)
    await store.write_recall_entry(
        OTHER,
        NewRecallEntry(
            session_id="ses_theirs",
            entry={},
            terms="ferry sintra",
            identifiers=(RecallIdentifier(literal="#7", namespace="ticket"),),
        ),
    )
    assert await reached(store, "ferry", scope=RecallScope.FULL_TEXT) == set()
    assert await reached(store, identifiers=("#7",)) == set()
    found = await store.find_recall(ACCOUNT, RecallQuery(terms=(term("ferry"),)))
    assert (found.sessions, found.indexed) == (0, 0)
    assert await store.read_recall_record(ACCOUNT, "ses_theirs") is None


async def test_an_entry_is_found_by_its_words_and_identifiers_and_rewritten_whole(
    store: Store,
) -> None:
    session = await conversation(store, "hello")
    entry = NewRecallEntry(
        session_id=session,
        entry={"topic": "refund"},
        terms="refund receipt",
        identifiers=(RecallIdentifier(literal="#309", namespace="github_pr"),),
        indexed_through="turn-1",
    )
    await store.write_recall_entry(ACCOUNT, entry)
    assert await reached(store, "receipt") == {session}
    assert await reached(store, identifiers=("#309",)) == {session}
    found = await store.find_recall(ACCOUNT, RecallQuery(identifiers=("#309",)))
    assert found.hits[0].identifiers == ("#309",) and found.hits[0].score == 4
    rewritten = NewRecallEntry(session_id=session, entry={"topic": "ferry"}, terms="ferry")
    await store.write_recall_entry(ACCOUNT, rewritten)
    assert await reached(store, "receipt") == set()
    assert await reached(store, identifiers=("#309",)) == set()
    [stored] = await store.get_recall_entries(ACCOUNT, [session, "ses_unknown"])
    assert stored.entry == {"topic": "ferry"} and stored.indexed_through is None


async def test_an_entry_may_outlive_its_session(store: Store) -> None:
    await store.write_recall_entry(
        ACCOUNT, NewRecallEntry(session_id="ses_gone", entry={}, terms="ferry")
    )
    found = await store.find_recall(ACCOUNT, RecallQuery(terms=(term("ferry"),)))
    [hit] = found.hits
    assert hit.session_id == "ses_gone" and hit.workflow is None and hit.started_at is None


async def test_the_backlog_lists_sessions_whose_entry_is_missing_or_stale(store: Store) -> None:
    never = await conversation(store, "one")
    current = await conversation(store, "two")
    stale = await conversation(store, "three")
    await store.create_session(account_id=ACCOUNT, workflow="tickets")  # no turns: nothing to do
    for session_id in (current, stale):
        record = await store.get_session(ACCOUNT, session_id)
        assert record is not None
        new = NewRecallEntry(
            session_id=session_id, entry={}, terms="x", indexed_through=record.last_turn_id
        )
        await store.write_recall_entry(ACCOUNT, new)
    await store.record_user_turn(account_id=ACCOUNT, session_id=stale, payload={"text": "four"})
    backlog = await store.list_recall_backlog(ACCOUNT, writer_version=1)
    assert [s.session_id for s in backlog] == [never, stale]
    newer_writer = await store.list_recall_backlog(ACCOUNT, writer_version=2)
    assert [s.session_id for s in newer_writer] == [never, current, stale]
    everything = await store.list_recall_backlog(ACCOUNT, writer_version=1, everything=True)
    assert len(everything) == 3


async def test_counts_say_how_many_other_sessions_hold_a_word_or_identifier(
    store: Store,
) -> None:
    mine = await conversation(store, "bluebird shuttle")
    other = await conversation(store, "the bluebird plan")
    await conversation(store, "unrelated")
    for session_id in (mine, other):
        await store.write_recall_entry(
            ACCOUNT,
            NewRecallEntry(
                session_id=session_id,
                entry={},
                terms="x",
                identifiers=(RecallIdentifier(literal="#12", namespace="ticket"),),
            ),
        )
    counts = await store.count_recall_terms(
        ACCOUNT, terms=["bluebird", "shuttle"], identifiers=["#12", "#13"], exclude_session=mine
    )
    assert counts.terms == {"bluebird": 1, "shuttle": 0}
    assert counts.identifiers == {"#12": 1, "#13": 0}


async def test_a_record_opens_whole_with_its_replies(store: Store) -> None:
    session = await conversation(store, "first", "second", replies=["answer one"])
    record = await store.read_recall_record(ACCOUNT, session)
    assert record is not None
    assert [t.payload["text"] for t in record.turns] == ["first", "second"]
    [(turn_id, blocks)] = record.replies.items()
    assert turn_id == record.turns[0].turn_id and blocks[0]["text"] == "answer one"
    assert await store.read_recall_record(ACCOUNT, "ses_unknown") is None


async def test_a_response_opens_and_closes_cards_with_its_first_write_only(store: Store) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    first = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "one"}
    )
    card = NewInteraction(payload={"kind": "recall_expansion"}, interaction_id="card_r1")
    await store.save_assistant_turn(ACCOUNT, first.turn_id, [], interactions=[card])
    await store.save_assistant_turn(ACCOUNT, first.turn_id, [], interactions=[card])  # replay
    [opened] = await store.list_open_interactions(ACCOUNT, session_id=session.session_id)
    assert opened.interaction_id == "card_r1"
    second = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "two"}
    )
    closing = CardResolution(interaction_id="card_r1", status=InteractionStatus.EXPIRED)
    await store.save_assistant_turn(ACCOUNT, second.turn_id, [], card_resolutions=[closing])
    await store.save_assistant_turn(ACCOUNT, second.turn_id, [], card_resolutions=[closing])
    assert await store.list_open_interactions(ACCOUNT) == []
    closed = await store.get_interaction(ACCOUNT, "card_r1")
    assert closed is not None and closed.status is InteractionStatus.EXPIRED


def test_a_query_term_is_one_lower_case_word() -> None:
    with pytest.raises(ValueError, match="one lower-case word"):
        RecallTerm(forms=("two words",))
    with pytest.raises(ValueError, match="one lower-case word"):
        RecallTerm(forms=("Pool",))
    with pytest.raises(ValueError, match="limit"):
        RecallQuery(limit=0)


async def test_a_term_reaches_at_most_its_newest_matching_rows(store: Store) -> None:
    oldest = await conversation(store, "ferry times")
    middle = await conversation(store, "the ferry back")
    newest = await conversation(store, "a late ferry")
    query = RecallQuery(terms=(term("ferry"),), term_reach=2)
    found = await store.find_recall(ACCOUNT, query)
    assert {h.session_id for h in found.hits} == {middle, newest}
    assert oldest not in {h.session_id for h in found.hits}


async def recalled_in(store: Store, said: str, reply: dict[str, object], *, first: str = "") -> str:
    """A session whose turn ``said`` was answered by ``reply`` (after ``first``, when given)."""
    session = await store.create_session(account_id=ACCOUNT, workflow="tickets")
    for text in (first, said) if first else (said,):
        turn = await store.record_user_turn(
            account_id=ACCOUNT, session_id=session.session_id, payload={"text": text}
        )
    await store.save_assistant_turn(ACCOUNT, turn.turn_id, [reply])
    return session.session_id


def recall_reply(code: str, text: str, acts: list[int]) -> dict[str, object]:
    return {"kind": "answer", "code": f"turnframe.recall.{code}", "text": text, "acts": acts}


async def test_recall_turns_and_recall_replies_are_never_reached_on_any_store(
    store: Store,
) -> None:
    conversation_itself = await conversation(store, "Is the ferry to Sintra running on Sundays?")
    asked = await recalled_in(
        store,
        "what was that thing about the ferry?",
        recall_reply("presented", "Is this it? \u201cIs the ferry to Sintra running…\u201d", [0]),
    )
    clicked = await recalled_in(  # a click's reply answers no act, and still quotes
        store,
        "",
        recall_reply("presented", "Is this it? \u201cthe Sintra ferry on Sundays\u201d", []),
        first="Book a table for two",
    )
    moved_on = await recalled_in(  # the turn that moved on is the conversation itself
        store,
        "Set the note to Sintra ferry tickets",
        recall_reply("withdrawn", "Leaving the earlier conversation aside", []),
        first="Book a table for two",
    )
    for scope in RecallScope:
        found = await reached(store, "ferry", "sintra", scope=scope)
        assert asked not in found and clicked not in found
        assert conversation_itself in found
        assert (moved_on in found) is (scope is RecallScope.FULL_TEXT)


async def test_excluded_sessions_spend_none_of_a_terms_reach(store: Store) -> None:
    older = await conversation(store, "ferry times")
    current = await conversation(store, "the ferry", "the ferry again", "and the ferry back")
    turned_down = await conversation(store, "a late ferry")
    excluded = (current, turned_down)
    query = RecallQuery(terms=(term("ferry"),), term_reach=2, exclude_sessions=excluded)
    found = await store.find_recall(ACCOUNT, query)
    assert {h.session_id for h in found.hits} == {older}
