"""Running the app with uvicorn on a socket: a signal drains the service, then the server stops.

The first SIGTERM or SIGINT begins the drain (new turns are refused, open event streams end, so
the server can close its connections) and asks uvicorn to stop; the app's lifespan then waits
for posted turns and stops the Runtime. A second signal stops at once. uvicorn's own signal
handling is left out: it re-raises the signal after shutdown, so the process would not exit 0.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Iterator

import anyio
import uvicorn
from fastapi import FastAPI

from turnframe.http.service import HttpService


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(app: FastAPI, listener: socket.socket, *, log_level: str = "warning") -> None:
    """Serve ``app`` (made by ``create_app``) on ``listener`` until a signal drains it.
    uvicorn runs on asyncio: run this with ``anyio.run(..., backend="asyncio")``."""
    server = _Server(uvicorn.Config(app, log_level=log_level, lifespan="on"))
    service: HttpService = app.state.turnframe
    async with anyio.create_task_group() as tg:
        tg.start_soon(_drain_on_signal, server, service)
        await server.serve(sockets=[listener])
        tg.cancel_scope.cancel()


async def _drain_on_signal(server: uvicorn.Server, service: HttpService) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            if server.should_exit:
                server.force_exit = True
            service.begin_drain()
            server.should_exit = True


__all__ = ["serve"]
