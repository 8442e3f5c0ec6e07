"""The one error only the PostgreSQL store raises; the rest are :mod:`turnframe.stores.errors`."""

from __future__ import annotations

from turnframe.stores.errors import StoreError


class AsyncioRequired(StoreError):
    """The PostgreSQL store was opened without a running asyncio loop (under trio, say):
    asyncpg runs on asyncio only."""

    code = "turnframe.store.asyncio_required"

    def __init__(self) -> None:
        super().__init__(
            "the PostgreSQL store runs on asyncio only (asyncpg), and no asyncio loop is running",
            hint="run this service on asyncio, or use SqliteStore, which runs on trio too",
        )
