"""Cards: persisted open, closed once by compare-and-swap; one open blocking card per case."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg

from turnframe._ids import new_id
from turnframe.stores.errors import AlreadyExists, BlockingCardOpen, NotFound, StatusConflict
from turnframe.stores.inputs import CardResolution, NewInteraction
from turnframe.stores.postgres import codec
from turnframe.stores.postgres.codec import dump_json, optional_json
from turnframe.stores.postgres.tx import Conn, where
from turnframe.stores.records import InteractionRecord, InteractionStatus

_OPEN = InteractionStatus.OPEN.value
_PREFIXED = ", ".join(f"i.{c.strip()}" for c in codec.INTERACTION_COLUMNS.split(","))
_ONE_BLOCKING = "one_open_blocking_card_per_case"


async def insert(
    conn: Conn,
    account_id: str,
    turn_id: str,
    cards: Sequence[NewInteraction],
    now: datetime,
) -> list[InteractionRecord]:
    """Insert open cards for a turn (the caller checked the turn exists)."""
    records = []
    for card in cards:
        iid = card.interaction_id or new_id("card_")
        if card.interaction_id is not None and await get(conn, account_id, iid) is not None:
            raise AlreadyExists("interaction", iid)
        if card.blocking and card.case_id is not None:
            await _refuse_second_blocking(conn, account_id, card.case_id)
        try:
            row = await conn.fetchrow(
                f"INSERT INTO interactions ({codec.INTERACTION_COLUMNS}) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, NULL) "
                f"RETURNING {codec.INTERACTION_COLUMNS}",
                account_id,
                iid,
                turn_id,
                card.case_id,
                card.blocking,
                _OPEN,
                dump_json(card.payload),
                now,
            )
        except asyncpg.exceptions.UniqueViolationError as exc:
            # The partial index, should another transaction open a blocking card meanwhile.
            if exc.constraint_name == _ONE_BLOCKING and card.case_id is not None:
                raise BlockingCardOpen(card.case_id) from exc
            raise AlreadyExists("interaction", iid) from exc
        assert row is not None
        records.append(codec.interaction(row))
    return records


async def _refuse_second_blocking(conn: Conn, account_id: str, case_id: str) -> None:
    found = await conn.fetchval(
        "SELECT 1 FROM interactions WHERE account_id = $1 AND case_id = $2 AND blocking "
        "AND status = $3",
        account_id,
        case_id,
        _OPEN,
    )
    if found is not None:
        raise BlockingCardOpen(case_id)


async def get(conn: Conn, account_id: str, interaction_id: str) -> InteractionRecord | None:
    row = await conn.fetchrow(
        f"SELECT {codec.INTERACTION_COLUMNS} FROM interactions WHERE account_id = $1 AND id = $2",
        account_id,
        interaction_id,
    )
    return None if row is None else codec.interaction(row)


async def of_turn(conn: Conn, account_id: str, turn_id: str) -> list[InteractionRecord]:
    rows = await conn.fetch(
        f"SELECT {codec.INTERACTION_COLUMNS} FROM interactions WHERE account_id = $1 "
        "AND turn_id = $2 ORDER BY pos",
        account_id,
        turn_id,
    )
    return [codec.interaction(r) for r in rows]


async def list_open(
    conn: Conn, account_id: str, session_id: str | None, case_id: str | None
) -> list[InteractionRecord]:
    sql, params = where(
        "i.account_id = $1", [account_id], **{"t.session_id": session_id, "i.case_id": case_id}
    )
    params.append(_OPEN)
    rows = await conn.fetch(
        f"SELECT {_PREFIXED} FROM interactions i JOIN turns t "
        f"ON t.account_id = i.account_id AND t.id = i.turn_id{sql} "
        f"AND i.status = ${len(params)} ORDER BY i.pos",
        *params,
    )
    return [codec.interaction(r) for r in rows]


async def resolve(
    conn: Conn, account_id: str, resolution: CardResolution, now: datetime
) -> InteractionRecord:
    iid = resolution.interaction_id
    row = await conn.fetchrow(
        "UPDATE interactions SET status = $1, resolution = $2, resolved_at = $3 "
        "WHERE account_id = $4 AND id = $5 AND status = $6 "
        f"RETURNING {codec.INTERACTION_COLUMNS}",
        resolution.status.value,
        optional_json(resolution.resolution),
        now,
        account_id,
        iid,
        _OPEN,
    )
    if row is not None:
        return codec.interaction(row)
    found = await get(conn, account_id, iid)
    if found is None:
        raise NotFound("interaction", iid)
    raise StatusConflict("interaction", iid, _OPEN, found.status.value)
