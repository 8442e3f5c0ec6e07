"""A trio service that embeds the Runtime: one TCP connection is one session, a JSON line a turn.

    python examples/trio_service.py               # serve, talk to it as a client once, exit
    python examples/trio_service.py --serve 7000  # keep serving on 127.0.0.1:7000

The protocol: the client's first line names its account, ``{"account": "anna"}`` (your real
authentication goes there); then each line is ``{"text": MESSAGE}`` or ``{"click": LABEL}``
and each answer is one line, the turn in the ``turnframe chat --json`` form. The Runtime lives
in the service's nursery: structured concurrency from the listener down to every actor.
"""

from __future__ import annotations

import functools
import json
import sys
from typing import Any

import trio

from turnframe import Runtime
from turnframe.examples import sample
from turnframe.pipeline.cards import match_option, options_of
from turnframe.pipeline.turn_view import TurnView
from turnframe.providers.rules import RulesProvider
from turnframe.response import TurnResponse
from turnframe.stores.records import SessionRecord

desk = sample("travel-desk")  # or your own turnframe.Workflow


async def seed_account(rt: Runtime, account: str) -> None:
    for seed in desk.seed():  # records to talk about, once per account (safe to run again)
        if await rt.store.get_case(account, seed.case_id(account)) is None:
            await rt.store.create_case(account_id=account, case=seed.new_case(account))


async def answer(rt: Runtime, session: SessionRecord, request: dict[str, Any]) -> TurnResponse:
    if "click" in request:  # a card option by its label: only ids reach the runtime
        account, session_id = session.account_id, session.session_id
        cards = await rt.store.list_open_interactions(account, session_id=session_id)
        if not cards:
            raise ValueError("there is no open card to click")
        card = max(cards, key=lambda c: c.created_at)
        [option] = match_option(options_of(card.payload), str(request["click"]))
        return await rt.respond(
            session=session,
            interaction_id=card.interaction_id,
            option_id=option.option_id,
            expected_revision=int(card.payload.get("expected_revision") or 0),
        )
    return await rt.handle_turn(rt.new_turn(session, str(request["text"])))


async def serve_connection(rt: Runtime, stream: trio.SocketStream) -> None:
    lines = _lines(stream)
    hello = json.loads(await lines.__anext__())
    account = str(hello["account"])
    await seed_account(rt, account)
    session = await rt.open_session(account_id=account)
    async for line in lines:
        try:
            response = await answer(rt, session, json.loads(line))
            reply: dict[str, Any] = TurnView.of(response).to_json()
        except (ValueError, KeyError) as error:  # a bad line is answered, never fatal
            reply = {"error": str(error)}
        await stream.send_all((json.dumps(reply, ensure_ascii=False) + "\n").encode())


async def _lines(stream: trio.SocketStream) -> Any:
    buffer = b""
    async for chunk in stream:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.decode()


async def client(port: int) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        lines = _lines(stream)
        await stream.send_all(b'{"account": "anna"}\n')
        for request in (
            {"text": "Add a note: window seat please."},
            {"text": "Rebook the return flight to March 20."},
            {"click": "confirm"},
        ):
            await stream.send_all((json.dumps(request) + "\n").encode())
            turn = json.loads(await lines.__anext__())
            print(json.dumps(request), "->", [(b["code"], b["text"]) for b in turn["blocks"]])


async def main(serve_port: int | None) -> None:
    async with (
        Runtime(
            workflows=[desk.workflow],
            store="trio-service.db",
            provider=RulesProvider(workflows=[desk.workflow]),
        ) as rt,
        trio.open_nursery() as nursery,
    ):

        async def handler(stream: trio.SocketStream) -> None:
            await serve_connection(rt, stream)

        serve = functools.partial(trio.serve_tcp, handler, serve_port or 0, host="127.0.0.1")
        listeners = await nursery.start(serve)
        port = listeners[0].socket.getsockname()[1]
        if serve_port is not None:
            print(f"serving on 127.0.0.1:{port}; Ctrl-C stops")
            return  # the nursery keeps serving
        await client(port)
        nursery.cancel_scope.cancel()  # the demo is over: stop listening, then the runtime


if __name__ == "__main__":
    port = int(sys.argv[2]) if sys.argv[1:2] == ["--serve"] else None
    trio.run(main, port)
