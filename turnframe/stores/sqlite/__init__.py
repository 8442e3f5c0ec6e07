"""The embedded default store: SQLite (WAL) through aiosqlite on asyncio, worker threads on trio."""

from __future__ import annotations

from turnframe.stores.sqlite.schema import LATEST_VERSION
from turnframe.stores.sqlite.store import SqliteStore

__all__ = ["LATEST_VERSION", "SqliteStore"]
