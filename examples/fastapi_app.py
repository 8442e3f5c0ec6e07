"""An existing FastAPI service that mounts turnframe's HTTP API at /agent, behind its own auth.

    pip install 'turnframe[http]'
    uvicorn examples.fastapi_app:app   # serve it: the agent's API at /agent/v1, docs at /agent/docs
    python examples/fastapi_app.py     # or: a short conversation in process, then exit

The service decides who is calling (here a bearer token looked up in a dict: put your real auth
there); turnframe acts for the account that dependency returns, and another account's ids
answer exactly like unknown ids. The Runtime starts and drains with the service's lifespan.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
import httpx
from fastapi import FastAPI, Header, HTTPException

from turnframe import Runtime
from turnframe.examples import sample
from turnframe.http import create_app
from turnframe.providers.rules import RulesProvider
from turnframe.stores.records import SessionRecord

TOKENS = {"token-anna": "anna", "token-ben": "ben"}  # your service's own accounts


def current_account(authorization: Annotated[str | None, Header()] = None) -> str:
    """The service's own auth: the account behind the bearer token, or 401."""
    account = TOKENS.get((authorization or "").removeprefix("Bearer "))
    if account is None:
        raise HTTPException(401, "unknown or missing bearer token", {"WWW-Authenticate": "Bearer"})
    return account


desk = sample("travel-desk")  # or your own turnframe.Workflow
runtime = Runtime(
    workflows=[desk.workflow],
    store="agent.db",
    provider=RulesProvider(workflows=[desk.workflow]),  # offline; or an OpenAI/Anthropic provider
)


async def give_new_accounts_a_trip(rt: Runtime, session: SessionRecord) -> None:
    """Records to talk about: the sample trip, once per account (safe to run again)."""
    for seed in desk.seed():
        if await rt.store.get_case(session.account_id, seed.case_id(session.account_id)) is None:
            await rt.store.create_case(
                account_id=session.account_id, case=seed.new_case(session.account_id)
            )


agent = create_app(runtime, account=current_account, on_session_opened=give_new_accounts_a_trip)


@contextlib.asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    async with agent.router.lifespan_context(agent):  # Starlette runs no mounted app's lifespan
        yield


app = FastAPI(title="Acme travel", lifespan=lifespan)
app.mount("/agent", agent)


@app.get("/")
def home() -> dict[str, str]:
    return {"service": "acme travel", "agent": "/agent/v1", "agent docs": "/agent/docs"}


async def main() -> None:
    transport = httpx.ASGITransport(app=app)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=transport, base_url="http://acme") as client,
    ):
        anna = {"Authorization": "Bearer token-anna"}
        opened = await client.post("/agent/v1/sessions", json={}, headers=anna)
        session_id = opened.json()["session_id"]
        for text in ("Add a note: aisle seat please.", "Rebook the return flight to March 20."):
            turn = await client.post(
                f"/agent/v1/sessions/{session_id}/turns",
                json={"text": text},
                headers={**anna, "Idempotency-Key": str(uuid.uuid4())},
            )
            for block in turn.json()["blocks"]:
                print(block["kind"], block["code"], block["text"])
        card = (await client.get(f"/agent/v1/sessions/{session_id}/card", headers=anna)).json()
        print("card options:", [o["label"] for o in card["card"]["options"]])
        clicked = await client.post(
            f"/agent/v1/sessions/{session_id}/turns",
            json={"click": "confirm", "card": card["card"]["interaction_id"]},
            headers={**anna, "Idempotency-Key": str(uuid.uuid4())},
        )
        print(clicked.json()["blocks"][0]["code"], clicked.json()["blocks"][0]["text"])
        ben = {"Authorization": "Bearer token-ben"}
        foreign = await client.get(f"/agent/v1/sessions/{session_id}/turns", headers=ben)
        print("ben reads anna's session:", foreign.status_code, foreign.json()["error"]["code"])
        nobody = await client.get("/agent/v1/sessions")
        print("no token:", nobody.status_code, nobody.json()["error"]["code"])


if __name__ == "__main__":
    anyio.run(main)
