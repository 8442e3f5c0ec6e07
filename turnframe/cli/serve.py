"""``turnframe serve``: the HTTP API and the local inspector page over the sample desks.

It serves ``turnframe.http.create_app`` with uvicorn on ``--host``/``--port`` (``--port 0``
picks a free port; the first line on stdout says which). Turns are read by the offline
rule-based interpreter, as in ``chat``; a new session's account gets its desk's seed records.
On SIGTERM or SIGINT it drains (new turns are refused, event streams end, posted turns finish)
and exits 0. See docs/service.md.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from turnframe.cli.desk import (
    check_store_path,
    default_store,
    open_store,
    parse_clock,
    sample_runtime,
)
from turnframe.cli.errors import MissingExtra, UsageError
from turnframe.cli.options import add_store
from turnframe.clock import Clock
from turnframe.config import TurnframeConfig, load_config
from turnframe.examples import SAMPLE_WORKFLOWS, SampleWorkflow, sample
from turnframe.references import ReferenceBinding, parse_cli_references
from turnframe.runtime import Runtime
from turnframe.stores import Store
from turnframe.stores.records import SessionRecord


def add_serve_command(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the HTTP API and the inspector page (needs the [http] extra)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    add_store(serve)
    serve.add_argument(
        "--workflow",
        dest="workflows",
        action="append",
        metavar="NAME",
        help=f"a sample desk to serve (repeatable; default: all of {', '.join(SAMPLE_WORKFLOWS)})",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (8000; 0 picks a free one)")
    serve.add_argument(
        "--clock", metavar="ISO_DATETIME", help="fix every turn's clock (default: the real clock)"
    )
    serve.add_argument(
        "--reference",
        dest="references",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="bind reference material to a slot (repeatable; NAME= clears it)",
    )
    serve.add_argument(
        "--config", metavar="PATH", help="config file (default: ./turnframe.toml if present)"
    )
    serve.add_argument(
        "--no-inspector", action="store_true", help="serve the API only, without the page at /"
    )
    serve.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401

        import turnframe.http  # noqa: F401
    except ImportError as missing:
        raise MissingExtra(
            f"turnframe serve needs the http extra ({missing.name} is not installed)",
            hint="pip install 'turnframe[http]'",
        ) from None
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port", hint="give 0 to 65535")
    cwd = Path.cwd()
    desks = [sample(name) for name in dict.fromkeys(args.workflows or SAMPLE_WORKFLOWS)]
    location = args.store or default_store()
    check_store_path(location, must_exist=False)
    config = load_config(args.config, cwd=cwd)
    references = parse_cli_references(args.references, cwd=cwd)
    clock = parse_clock(args.clock)
    listener = _listen(args.host, args.port)
    host, port = listener.getsockname()[:2]
    names = ", ".join(d.name for d in desks)
    print(
        f"turnframe: serving {names} on http://{host}:{port}/ (inspector at /, API under /v1, "
        f"OpenAPI at /docs); store {location}; Ctrl-C stops",
        flush=True,
    )
    anyio.run(
        _serve,
        listener,
        location,
        desks,
        clock,
        config,
        references,
        not args.no_inspector,
        backend="asyncio",  # uvicorn runs on asyncio
    )
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """Bind before serving, so ``--port 0`` can say which port it got (clients that connect
    early wait in the backlog until the app has started)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP said outright: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose
    # proto is TCP; without it a kept-alive connection waits ~40 ms per response.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise UsageError(
            f"cannot listen on {host}:{port}: {error.strerror}",
            hint="choose another --port (or 0 for a free one)",
        ) from None
    listener.listen(128)
    return listener


def build_service_runtime(
    store: Store,
    desks: Sequence[SampleWorkflow],
    *,
    clock: Clock,
    config: TurnframeConfig | None = None,
    cli_references: Sequence[ReferenceBinding] = (),
    store_location: str | None = None,
) -> Runtime:
    """A runtime on the given sample desks, read by the offline rule-based interpreter."""
    return sample_runtime(
        store,
        desks,
        clock=clock,
        config=config,
        cli_references=cli_references,
        store_location=store_location,
    )


async def seed_new_account(runtime: Runtime, session: SessionRecord) -> None:
    """The first session of an account on a desk gets the desk's seed records (as ``chat``)."""
    desk = sample(session.workflow)
    await desk.seed_account(runtime.store, session.account_id, now=runtime.clock.now())


async def _serve(
    listener: socket.socket,
    location: str,
    desks: Sequence[SampleWorkflow],
    clock: Clock,
    config: TurnframeConfig,
    references: Sequence[ReferenceBinding],
    inspector: bool,
) -> None:
    from turnframe.http import HttpSettings, create_app
    from turnframe.http.server import serve

    async with open_store(location, must_exist=False) as store:
        runtime = build_service_runtime(
            store,
            desks,
            clock=clock,
            config=config,
            cli_references=references,
            store_location=location,
        )
        app = create_app(
            runtime,
            settings=HttpSettings(inspector=inspector),
            on_session_opened=seed_new_account,
        )
        await serve(app, listener)
    sys.stdout.flush()


__all__ = ["add_serve_command", "build_service_runtime", "run_serve", "seed_new_account"]
