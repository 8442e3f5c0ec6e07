"""Posting a turn over HTTP: a message or a click, made safe to send twice with a key.

A click names an option by the label its card shows; it is resolved here, on the stored card,
to the ids the runtime takes (``Runtime.respond`` semantics: a client cannot say what an option
means). A double click on the same card reaches the runtime, which answers that nothing new was
done; a click on a card whose case has moved on is answered as stale; neither executes anything.

With an ``Idempotency-Key`` the turn is recorded under the key before it runs (the store keeps
the key with the turn, so this holds across restarts). A re-post with the key finds that turn
and answers with it as stored, finishing it first if it stopped midway: nothing executes twice,
because the runtime resumes a turn from its durable phase. A re-post that asks for something
else under the same key is refused. Once recorded, a turn is handled to its end even if the
client goes away (the wait is shielded from the request's cancellation).
"""

from __future__ import annotations

import anyio
import attrs

from turnframe._converter import converter
from turnframe.http.errors import (
    BadIdempotencyKey,
    IdempotencyKeyReused,
    InvalidBody,
    NoOpenCard,
    UnknownCard,
    UnknownOption,
    UnknownSession,
)
from turnframe.http.wire import PostTurn
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.pipeline.cards import CardOption, match_option, options_of
from turnframe.pipeline.turn_view import TurnView, load_turn_view
from turnframe.runtime import Runtime
from turnframe.stores.records import InteractionRecord, SessionRecord, TurnRecord

MAX_KEY_LENGTH = 200


@attrs.frozen(kw_only=True)
class PostedTurn:
    view: TurnView
    replayed: bool  # True: the key named an earlier turn, answered as stored


def check_key(key: str | None) -> str | None:
    """An ``Idempotency-Key`` is 1-200 visible ASCII characters (a UUID fits)."""
    if key is None:
        return None
    if not 0 < len(key) <= MAX_KEY_LENGTH or not all("!" <= c <= "~" for c in key):
        raise BadIdempotencyKey(
            "the Idempotency-Key must be 1 to 200 visible ASCII characters",
            hint="send a fresh UUID per new turn, and the same one when you retry it",
        )
    return key


def check_request(body: PostTurn) -> None:
    if (body.text is None) == (body.click is None):
        raise InvalidBody(
            'a turn is {"text": MESSAGE} or {"click": OPTION_LABEL}',
            hint="send exactly one of text and click",
        )
    if body.text is not None and not body.text.strip():
        raise InvalidBody("the text is empty", hint="send the user's message")
    if body.card is not None and body.click is None:
        raise InvalidBody("card goes with click", hint='send {"click": LABEL, "card": ID}')
    if body.click is not None and not body.click.strip():
        raise InvalidBody("the click names no option", hint="send an option label of the card")


async def post_turn(
    runtime: Runtime, *, account_id: str, session_id: str, body: PostTurn, key: str | None
) -> PostedTurn:
    store = runtime.store
    session = await store.get_session(account_id, session_id)
    if session is None:
        raise _unknown_session(session_id)
    check_request(body)
    if key is not None and body.click is not None:
        # A click is resolved on its card, which the first post may have closed: the key is
        # looked up first. A message needs no lookup: recording it under the key finds it.
        earlier = await store.get_turn_by_idempotency_key(account_id, session_id, key)
        if earlier is not None:
            return await _replay(runtime, earlier, body, key)
    turn = await _new_turn(runtime, session, body)
    if key is not None:
        recorded = await store.record_user_turn(
            account_id=account_id,
            session_id=session_id,
            payload=converter.unstructure(turn),
            turn_id=turn.turn_id,
            idempotency_key=key,
        )
        if recorded.turn_id != turn.turn_id:  # an earlier (or concurrent) post with this key
            return await _replay(runtime, recorded, body, key)
    with anyio.CancelScope(shield=True):
        response = await runtime.handle_turn(turn)
    return PostedTurn(view=TurnView.of(response), replayed=False)


async def _replay(runtime: Runtime, record: TurnRecord, body: PostTurn, key: str) -> PostedTurn:
    if not await _asks_the_same(runtime, record, body):
        raise IdempotencyKeyReused(
            f"the Idempotency-Key {key!r} was used for another request in this session "
            f"(turn {record.turn_id!r})",
            hint="send a new key for a new turn",
        )
    if not record.phase.is_terminal:  # it stopped midway: finish it, from its durable phase
        with anyio.CancelScope(shield=True):
            await runtime.handle_turn(converter.structure(record.payload, UserTurn))
    view = await load_turn_view(runtime.store, account_id=record.account_id, turn_id=record.turn_id)
    assert view is not None  # the turn was read a moment ago; turns are never deleted
    return PostedTurn(view=view, replayed=True)


async def _asks_the_same(runtime: Runtime, record: TurnRecord, body: PostTurn) -> bool:
    payload = record.payload if isinstance(record.payload, dict) else {}
    click = payload.get("interaction_response")
    if body.text is not None:
        return click is None and payload.get("text") == body.text
    if not isinstance(click, dict) or body.click is None:
        return False
    if body.card is not None and body.card != click.get("interaction_id"):
        return False
    card = await runtime.store.get_interaction(record.account_id, str(click.get("interaction_id")))
    if card is None:
        return False
    named = match_option(options_of(card.payload), body.click)
    return [o.option_id for o in named] == [click.get("option_id")]


async def _new_turn(runtime: Runtime, session: SessionRecord, body: PostTurn) -> UserTurn:
    if body.text is not None:
        return runtime.new_turn(session, body.text)
    assert body.click is not None
    card = await _card_for(runtime, session, body.card)
    option = _option(options_of(card.payload), body.click)
    payload = card.payload if isinstance(card.payload, dict) else {}
    response = InteractionResponse(
        interaction_id=card.interaction_id,
        option_id=option.option_id,
        expected_revision=int(payload.get("expected_revision") or 0),
    )
    return runtime.new_turn(session, "", interaction_response=response)


async def _card_for(
    runtime: Runtime, session: SessionRecord, card_id: str | None
) -> InteractionRecord:
    store = runtime.store
    account, session_id = session.account_id, session.session_id
    if card_id is None:
        cards = await store.list_open_interactions(account, session_id=session_id)
        if not cards:
            raise NoOpenCard(
                f"session {session_id!r} has no open card to click",
                hint="send text instead, or name an earlier card with card",
            )
        return max(cards, key=lambda c: c.created_at)
    card = await store.get_interaction(account, card_id)
    owner = None if card is None else await store.get_turn(account, card.turn_id)
    if card is None or owner is None or owner.session_id != session_id:
        raise UnknownCard(
            f"session {session_id!r} has no card {card_id!r}",
            hint=f"GET /v1/sessions/{session_id}/card shows the open one",
        )
    return card


def _option(options: list[CardOption], label: str) -> CardOption:
    found = match_option(options, label)
    if len(found) == 1:
        return found[0]
    if found:
        ids = ", ".join(o.option_id for o in found)
        raise UnknownOption(
            f"several options of the card are labelled {label!r} (option ids: {ids})",
            hint="click by option id instead",
        )
    labels = ", ".join(o.label for o in options) or "none"
    raise UnknownOption(
        f"the card has no option labelled {label!r}; its options: {labels}",
        hint="click with one of those labels",
    )


def _unknown_session(session_id: str) -> UnknownSession:
    # The same words whether the id is unknown or another account's.
    return UnknownSession(
        f"there is no session {session_id!r}", hint="open one with POST /v1/sessions"
    )


__all__ = ["PostedTurn", "check_key", "check_request", "post_turn"]
