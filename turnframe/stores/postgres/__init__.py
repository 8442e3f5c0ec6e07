"""The shared-database store: PostgreSQL through an asyncpg pool (asyncio only).

Import it from here; ``turnframe.stores`` does not, so asyncpg stays an optional dependency
(the ``postgres`` extra).
"""

from __future__ import annotations

from turnframe.stores.postgres.errors import AsyncioRequired
from turnframe.stores.postgres.schema import LATEST_VERSION
from turnframe.stores.postgres.store import PostgresStore

__all__ = ["LATEST_VERSION", "AsyncioRequired", "PostgresStore"]
