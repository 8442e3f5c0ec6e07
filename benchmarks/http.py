"""Turns through the HTTP API against the same turns through the Runtime directly, in one run.

Both sides do the same work (the ratio's baseline is measured in the same run): a
:class:`~turnframe.runtime.Runtime` over ``TRIP_WORKFLOW`` on a fresh SQLite file, the
pipeline benchmark's instant :class:`BenchProvider` (each turn sets the ``note`` of its
session's own case, so every turn commits), one account and case per session, sessions running
concurrently, each one turn at a time, one untimed warm-up turn per session. The *direct* side
calls ``Runtime.handle_turn``; the *asgi* side POSTs each turn (with an ``Idempotency-Key``) to
``turnframe.http.create_app`` through httpx's in-process ASGI transport (FastAPI, body checks,
the key lookup, JSON both ways); the *uvicorn* side sends the same requests to a real uvicorn on
127.0.0.1 in the same process and event loop (adding HTTP parsing and the loopback socket).

Prints turns/s per side and the ratio http/direct at each level; each figure is the best of
alternating rounds (direct, asgi, uvicorn), so every side gets the machine's good moments.
``--quick --json`` finishes well within 60 s and prints one JSON object as the last line.

    python benchmarks/http.py [--quick] [--json] [--turns N] [--rounds R]
"""

from __future__ import annotations

import sys
from pathlib import Path

# This script is named http.py: the standard library's ``http`` must not resolve to it, so its
# folder moves from the front of the import path to the end (``pipeline`` comes from there).
sys.path.pop(0)
sys.path.append(str(Path(__file__).resolve().parent))

import argparse
import contextlib
import json
import socket
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import anyio
import httpx
import uvicorn
from pipeline import BenchProvider, _run_sessions, turn_text

from turnframe._converter import converter
from turnframe.http import create_app
from turnframe.runtime import Runtime
from turnframe.stores import SqliteStore
from turnframe.stores.inputs import NewCase
from turnframe.stores.records import SessionRecord
from turnframe.telemetry import Telemetry
from turnframe.testing import TRIP, TRIP_WORKFLOW, TURN_CLOCK, TripRequest

LEVELS = (1, 16)
SIDES = ("direct", "asgi", "uvicorn")
TurnFn = Callable[[int, int], Awaitable[None]]


@contextlib.asynccontextmanager
async def runtime_with_sessions(
    path: Path, sessions: int
) -> AsyncIterator[tuple[Runtime, list[tuple[SessionRecord, str]]]]:
    state = converter.unstructure(TripRequest(destination="Lisbon"), unstructure_as=TripRequest)
    async with SqliteStore.open(path) as store:
        runtime = Runtime(
            workflows=[TRIP_WORKFLOW],
            store=store,
            provider=BenchProvider(),
            telemetry=Telemetry.disabled(),  # the same on both sides; measured elsewhere
        )
        async with runtime:
            opened = []
            for s in range(sessions):
                account, label = f"bench-{s}", f"Trip {s}"
                case = NewCase(workflow=TRIP, label=label, state=state, revision=1)
                await store.create_case(account_id=account, case=case)
                opened.append((await runtime.open_session(account_id=account), label))
            yield runtime, opened


async def _timed(sessions: int, turns: int, turn: TurnFn) -> float:
    async with anyio.create_task_group() as tg:  # warm-up: each session's actor starts
        for s in range(sessions):
            tg.start_soon(turn, s, 10**6)
    rate, _ = await _run_sessions(sessions, turns, turn)
    return rate


async def bench_direct(path: Path, sessions: int, turns: int) -> float:
    async with runtime_with_sessions(path, sessions) as (rt, opened):

        async def turn(s: int, n: int) -> None:
            session, label = opened[s]
            response = await rt.handle_turn(
                rt.new_turn(session, turn_text(label, n), at=TURN_CLOCK)
            )
            if not response.events:
                raise AssertionError(f"turn {n} of session {s} did not commit")

        return await _timed(sessions, turns, turn)


def _http_turn(client: httpx.AsyncClient, opened: list[tuple[SessionRecord, str]]) -> TurnFn:
    async def turn(s: int, n: int) -> None:
        session, label = opened[s]
        answer = await client.post(
            f"/v1/sessions/{session.session_id}/turns",
            json={"text": turn_text(label, n)},
            headers={
                "X-Turnframe-Account": session.account_id,
                "Idempotency-Key": f"turn-{n}",
            },
        )
        if answer.status_code != 200 or not answer.json()["events"]:
            raise AssertionError(f"turn {n} of session {s}: {answer.status_code} {answer.text}")

    return turn


async def bench_asgi(path: Path, sessions: int, turns: int) -> float:
    async with runtime_with_sessions(path, sessions) as (rt, opened):
        app = create_app(rt)  # the runtime already runs: the lifespan leaves it running
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://bench") as client,
        ):
            return await _timed(sessions, turns, _http_turn(client, opened))


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def bench_uvicorn(path: Path, sessions: int, turns: int) -> float:
    async with runtime_with_sessions(path, sessions) as (rt, opened):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        server = _Server(uvicorn.Config(create_app(rt), log_level="warning", lifespan="on"))
        limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [listener])
            await _started(server)
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60
            ) as client:
                rate = await _timed(sessions, turns, _http_turn(client, opened))
            server.should_exit = True
        return rate


async def _started(server: uvicorn.Server) -> None:
    while not server.started:  # uvicorn offers no event to wait on  # noqa: ASYNC110
        await anyio.sleep(0.01)


BENCHES = {"direct": bench_direct, "asgi": bench_asgi, "uvicorn": bench_uvicorn}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    result: dict[str, Any] = {"turns": args.turns, "rounds": args.rounds}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for sessions in LEVELS:
            best = dict.fromkeys(SIDES, 0.0)
            for r in range(args.rounds):
                for side in SIDES:
                    path = tmp / f"{side}-{sessions}-{r}.db"
                    best[side] = max(best[side], await BENCHES[side](path, sessions, args.turns))
            for side in SIDES:
                result[f"turns_per_s_{side}_{sessions}"] = round(best[side], 1)
            for side in ("asgi", "uvicorn"):
                result[f"ratio_{side}_{sessions}"] = round(best[side] / best["direct"], 3)
            if not args.json:
                print(
                    f"{sessions:>3} sessions: direct {best['direct']:8.1f} turns/s · "
                    f"asgi {best['asgi']:8.1f} ({best['asgi'] / best['direct']:.2f}x) · "
                    f"uvicorn {best['uvicorn']:8.1f} ({best['uvicorn'] / best['direct']:.2f}x)"
                )
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def cli() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns and rounds (< 60 s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--turns", type=int, default=None, help="timed turns per side and level")
    parser.add_argument("--rounds", type=int, default=None, help="alternating rounds per level")
    args = parser.parse_args()
    args.turns = args.turns or (96 if args.quick else 480)
    args.rounds = args.rounds or (2 if args.quick else 3)
    result = anyio.run(main, args)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(cli())
