"""``LISTEN`` on a pooled connection of its own, for as long as a block runs.

The pool skips asyncpg's reset query on release (the store sets no session state), so the
connection is given back only after ``UNLISTEN *``: a connection that still listens must not
serve store calls. A connection that cannot ``UNLISTEN`` (it was lost) is terminated instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio


@asynccontextmanager
async def listening(
    pool: Any, channel: str, callback: Callable[[str], None]
) -> AsyncIterator[None]:
    conn = await pool.acquire()

    def relay(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
        callback(payload)

    try:
        await conn.add_listener(channel, relay)
        try:
            yield
        finally:
            with anyio.CancelScope(shield=True):
                await conn.remove_listener(channel, relay)
                await conn.execute("UNLISTEN *")
    except BaseException:
        conn.terminate()
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await pool.release(conn)
