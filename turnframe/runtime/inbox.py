"""The durable turn inbox as a runtime sees it: submit a turn now, wait for it later.

``Runtime.submit`` writes the turn durably (a turn in phase ``received``, the store's inbox) and
returns its id at once; any worker holding the session serves it, in the session's order
(``turnframe worker``, ADR 0018). ``Runtime.wait`` returns the turn's response once it ended.
A client turn id is the turn's idempotency key (the one the HTTP API stores for its
``Idempotency-Key``): submitting the same client turn id twice is one turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from turnframe._converter import converter
from turnframe._strict import non_text_paths, storable_text
from turnframe.errors import TurnframeError
from turnframe.messages import InteractionResponse, UserTurn
from turnframe.pipeline.reports import committed_event
from turnframe.response import Block, TurnResponse
from turnframe.results import PlannedActResult, ReductionPlan
from turnframe.runtime.settings import UnknownSession
from turnframe.stores.protocol import Store
from turnframe.stores.records import TurnRecord

if TYPE_CHECKING:
    from turnframe.runtime.runtime import Runtime

#: How often ``wait`` looks at the store: from the first pause, doubling up to the longest.
FIRST_PAUSE = 0.005
LONGEST_PAUSE = 0.25


class ClientTurnIdReused(TurnframeError):
    """A client turn id already names another turn of this session with different content."""

    code = "turnframe.inbox.client_turn_id_reused"


class TurnNotDelivered(TurnframeError):
    """The turn did not end within the wait's timeout (it is still in the inbox or served)."""

    code = "turnframe.inbox.not_delivered"


class UnknownTurn(TurnframeError):
    code = "turnframe.inbox.unknown_turn"


async def submit(
    runtime: Runtime,
    session_id: str,
    message: str | InteractionResponse,
    *,
    account: str,
    client_turn_id: str | None = None,
    text: str = "",
) -> str:
    store = runtime.store
    session = await store.get_session(account, session_id)
    if session is None:
        raise UnknownSession(
            f"session {session_id!r} does not exist",
            hint="open it with Runtime.open_session() first",
        )
    if isinstance(message, InteractionResponse):
        turn = runtime.new_turn(session, text, interaction_response=message)
    else:
        turn = runtime.new_turn(session, message)
    payload = converter.unstructure(turn)
    not_text = non_text_paths(payload)
    if not_text:
        where = ", ".join(".".join(map(str, p)) for p in not_text[:3])
        raise TurnframeError(
            f"{storable_text(where)} holds a lone surrogate, which is not text; "
            "nothing was recorded",
            hint="decode the user's bytes as UTF-8 before submitting the turn",
        )
    record = await store.submit_turn(
        account_id=account,
        session_id=session_id,
        payload=payload,
        turn_id=turn.turn_id,
        idempotency_key=client_turn_id,
    )
    if record.turn_id != turn.turn_id and not _same_request(record, turn):
        raise ClientTurnIdReused(
            f"client turn id {client_turn_id!r} already names turn {record.turn_id!r} of this "
            "session, which says something else",
            hint="use a new client turn id for a new turn",
        )
    return record.turn_id


def _same_request(record: TurnRecord, turn: UserTurn) -> bool:
    payload = record.payload if isinstance(record.payload, dict) else {}
    click = turn.interaction_response
    return payload.get("text") == turn.text and payload.get("interaction_response") == (
        None if click is None else converter.unstructure(click)
    )


async def wait(
    store: Store,
    turn_id: str,
    *,
    account: str,
    timeout: float,  # noqa: ASYNC109 (the issue's API)
) -> TurnResponse:
    pause = FIRST_PAUSE
    with anyio.move_on_after(timeout):
        while True:
            record = await store.get_turn(account, turn_id)
            if record is None:
                raise UnknownTurn(
                    f"no turn {turn_id!r} in this account",
                    hint="wait for the id Runtime.submit returned",
                )
            if record.phase.is_terminal:
                return await response_of(store, record)
            await anyio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
    raise TurnNotDelivered(
        f"turn {turn_id!r} did not end within {timeout:g}s",
        hint="is a worker serving this store (`turnframe worker`)? wait again later",
    )


async def response_of(store: Store, record: TurnRecord) -> TurnResponse:
    """The ended turn's response as stored: its blocks, act results and committed events."""
    stored = await store.get_assistant_turn(record.account_id, record.turn_id)
    blocks = () if stored is None else tuple(converter.structure(b, Block) for b in stored.blocks)
    results: tuple[PlannedActResult, ...] = ()
    if record.reduction:
        reduction = converter.structure(record.reduction, ReductionPlan)
        outcome = reduction.interaction_outcome
        results = tuple(reduction.results) + (outcome.results if outcome is not None else ())
    events = await store.list_events(record.account_id, turn_id=record.turn_id)
    return TurnResponse(
        session_id=record.session_id,
        turn_id=record.turn_id,
        phase=record.phase,
        blocks=blocks,
        results=results,
        events=tuple(committed_event(e) for e in events),
    )


__all__ = ["ClientTurnIdReused", "TurnNotDelivered", "UnknownTurn", "submit", "wait"]
