"""``turnframe worker`` and ``turnframe submit``: serve the store's turn inbox, and add to it.

``turnframe worker --store URL [--workflow W ...] [--concurrency N] [--once]`` claims sessions
with pending turns, serves them through the pipeline (the offline rule-based interpreter, as
``chat``), and writes one JSON line per turn on stderr (ids, phase, timing; the user's text only
with ``--log-text``). SIGTERM or SIGINT drains: it stops claiming, finishes the turn each
session is on, hands the sessions back, and exits 0 (a second signal cancels what is left).
``--once`` serves what is pending and exits (cron, tests). See docs/workers.md.

``turnframe submit --store URL --workflow W [--account A] [--session ID] [--wait] TEXT`` puts one
turn in the inbox and prints ``{"session_id", "turn_id"}``; without ``--session`` it opens a new
session (a new account gets the desk's seed records, as ``chat``). With ``--wait`` it prints the
delivered turn in the ``chat --json`` form instead.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Sequence
from typing import Any

import anyio

from turnframe._ids import new_id
from turnframe.cli.conversation import turn_json
from turnframe.cli.desk import DEFAULT_ACCOUNT, default_store, parse_clock, sample_runtime
from turnframe.cli.options import add_store
from turnframe.cli.store_url import check_store_path, open_store
from turnframe.clock import Clock, SystemClock
from turnframe.examples import SAMPLE_WORKFLOWS, SampleWorkflow, sample
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.runtime.worker import Worker, WorkerSettings, draining_on_signals
from turnframe.stores import Store


def add_worker_commands(commands: Any) -> None:
    doc = (__doc__ or "").split("\n\n")
    worker = commands.add_parser(
        "worker",
        help="serve the turns submitted to a store (many may share one)",
        description=doc[1] if len(doc) > 1 else None,
    )
    add_store(worker)
    _add_workflows(worker, "a sample desk to serve")
    worker.add_argument(
        "--concurrency", type=int, default=16, metavar="N", help="sessions served at once (16)"
    )
    worker.add_argument("--once", action="store_true", help="serve what is pending, then exit")
    worker.add_argument(
        "--lease-seconds",
        type=float,
        default=30.0,
        metavar="S",
        help="how long a session's lease lasts before another worker may take it over (30)",
    )
    worker.add_argument(
        "--grace",
        type=float,
        default=30.0,
        metavar="S",
        help="on SIGTERM/SIGINT, how long turns in flight may finish (30)",
    )
    worker.add_argument(
        "--worker-id", metavar="NAME", help="prefix of this worker's id (default: host name)"
    )
    worker.add_argument(
        "--log-text", action="store_true", help="put the user's text in the per-turn log lines"
    )
    worker.set_defaults(handler=run_worker)

    submit = commands.add_parser(
        "submit",
        help="put one turn in a store's inbox (a worker serves it)",
        description=doc[2] if len(doc) > 2 else None,
    )
    add_store(submit)
    submit.add_argument(
        "--workflow",
        required=True,
        metavar="NAME",
        help=f"the sample desk ({', '.join(SAMPLE_WORKFLOWS)})",
    )
    submit.add_argument("--account", default=DEFAULT_ACCOUNT, metavar="ID", help="the account")
    submit.add_argument("--session", metavar="ID", help="the session (default: a new one)")
    submit.add_argument(
        "--client-turn-id",
        metavar="ID",
        help="your id for this turn: submitting it again is one turn",
    )
    submit.add_argument("--wait", action="store_true", help="wait and print the delivered turn")
    submit.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="how long --wait waits (60)"
    )
    submit.add_argument(
        "--clock", metavar="ISO_DATETIME", help="the turn's clock (default: the real clock)"
    )
    submit.add_argument("text", metavar="TEXT", help="what the user says")
    submit.set_defaults(handler=run_submit)


def _add_workflows(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--workflow",
        dest="workflows",
        action="append",
        metavar="NAME",
        help=f"{what} (repeatable; default: all of {', '.join(SAMPLE_WORKFLOWS)})",
    )


def desks_runtime(
    store: Store,
    desks: Sequence[SampleWorkflow],
    *,
    clock: Clock,
    lease_seconds: float,
    worker_id: str,
    store_location: str | None = None,
) -> Runtime:
    """A runtime on the sample ``desks`` that leases sessions and serves no orphan itself
    (``store_location``: the ``--store`` recall's resume handles name)."""
    return sample_runtime(
        store,
        desks,
        clock=clock,
        settings=RuntimeSettings(
            session_lease_seconds=lease_seconds,
            worker_id=worker_id,
            serve_orphans=False,
            session_idle_seconds=None,  # the worker stops each session when it hands it back
        ),
        store_location=store_location,
    )


def run_worker(args: argparse.Namespace) -> int:
    desks = [sample(name) for name in dict.fromkeys(args.workflows or SAMPLE_WORKFLOWS)]
    location = args.store or default_store()
    check_store_path(location, must_exist=False)
    settings = WorkerSettings(
        concurrency=args.concurrency, grace_seconds=args.grace, log_text=args.log_text
    )
    prefix = args.worker_id or socket.gethostname()
    worker_id = f"{prefix}-{os.getpid()}-{new_id('')[-6:]}"
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("turnframe.worker")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    # A signal before the worker listens for it (while it starts) drains it as soon as it runs.
    early: list[int] = []
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda received, _frame: early.append(received))
    counters = anyio.run(
        _work,
        location,
        desks,
        settings,
        args.lease_seconds,
        worker_id,
        args.once,
        early,
        backend="asyncio",
    )
    print(
        json.dumps({"event": "stopped", "worker": worker_id, **counters}),
        file=sys.stderr,
        flush=True,
    )
    return 0


async def _work(
    location: str,
    desks: Sequence[SampleWorkflow],
    settings: WorkerSettings,
    lease_seconds: float,
    worker_id: str,
    once: bool,
    early: list[int],
) -> dict[str, int]:
    async with open_store(location, must_exist=False) as store:
        runtime = desks_runtime(
            store,
            desks,
            clock=SystemClock(),
            lease_seconds=lease_seconds,
            worker_id=worker_id,
            store_location=location,
        )
        async with runtime:
            worker = Worker(runtime, settings)
            print(
                json.dumps({"event": "started", "worker": worker_id}), file=sys.stderr, flush=True
            )
            async with draining_on_signals(worker):
                if early:
                    worker.drain()
                counters = await worker.run(once=once)
    return counters.as_dict()


def run_submit(args: argparse.Namespace) -> int:
    desk = sample(args.workflow)
    location = args.store or default_store()
    check_store_path(location, must_exist=False)
    clock = parse_clock(args.clock)
    printed = anyio.run(_submit, location, desk, clock, args, backend="asyncio")
    print(json.dumps(printed, ensure_ascii=False))
    return 0


async def _submit(
    location: str, desk: SampleWorkflow, clock: Clock, args: argparse.Namespace
) -> dict[str, Any]:
    async with open_store(location, must_exist=False, clock=clock) as store:
        runtime = desks_runtime(
            store,
            [desk],
            clock=clock,
            lease_seconds=30.0,
            worker_id=new_id("submit-"),
            store_location=location,
        )
        async with runtime:
            session = await runtime.open_session(
                account_id=args.account, workflow=desk.name, session_id=args.session
            )
            await desk.seed_account(store, args.account, now=clock.now())
            turn_id = await runtime.submit(
                session.session_id,
                args.text,
                account=args.account,
                client_turn_id=args.client_turn_id,
            )
            if not args.wait:
                return {"session_id": session.session_id, "turn_id": turn_id}
            response = await runtime.wait(turn_id, account=args.account, timeout=args.timeout)
            return turn_json(response)


__all__ = ["add_worker_commands", "desks_runtime", "run_submit", "run_worker"]
