"""``--store``, read the same by every command: a SQLite path or a ``postgresql://`` URL.

``turnframe.db`` (or any path, or ``:memory:``) opens the SQLite store; ``postgresql://…`` (or
``postgres://…``) opens the PostgreSQL store, in the schema named by a ``schema`` query
parameter (``postgresql://host/db?schema=desk``; default ``turnframe``), which is not passed on
to the server. A database that exists but is not a turnframe store is refused with one line
(:class:`NotAStore`) and never migrated into one; nothing names a URL's password.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import attrs

from turnframe.cli.errors import BadStore, NotAStore, StoreNotFound
from turnframe.clock import Clock
from turnframe.errors import TurnframeError
from turnframe.stores import SqliteStore, Store

MEMORY = ":memory:"
_POSTGRES = ("postgresql://", "postgres://")


@attrs.frozen(kw_only=True)
class StoreLocation:
    """Where ``--store`` points: a SQLite ``path``, or a PostgreSQL ``dsn`` and ``schema``."""

    path: str | None = None
    dsn: str | None = None
    schema: str = "turnframe"

    @property
    def is_postgres(self) -> bool:
        return self.dsn is not None

    def display(self) -> str:
        """How messages name the store (a URL without its password)."""
        if self.dsn is None:
            return str(self.path)
        parts = urlsplit(self.dsn)
        host = parts.hostname or ""
        user = f"{parts.username}@" if parts.username else ""
        port = f":{parts.port}" if parts.port else ""
        return f"postgresql://{user}{host}{port}{parts.path} (schema {self.schema})"


def parse_store(text: str) -> StoreLocation:
    """Read ``--store``: a PostgreSQL URL, else a SQLite path (refused early when it cannot be
    one)."""
    if text.startswith(_POSTGRES):
        parts = urlsplit(text)
        query = parse_qsl(parts.query, keep_blank_values=True)
        schema = next((v for k, v in query if k == "schema"), "turnframe")
        rest = urlencode([(k, v) for k, v in query if k != "schema"])
        return StoreLocation(dsn=urlunsplit(parts._replace(query=rest)), schema=schema)
    return StoreLocation(path=text)


def without_password(location: str) -> str:
    """``--store`` as it may be shown (a resume command, a log): a URL loses its password."""
    if not location.startswith(_POSTGRES):
        return location
    parts = urlsplit(location)
    if parts.password is None:
        return location
    host = parts.hostname or ""
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{host}{port}"))


def check_store_path(location: str, *, must_exist: bool) -> None:
    """Refuse a store path that cannot be a SQLite file before anything opens it (a URL is
    checked when it is opened)."""
    if location == MEMORY or location.startswith(_POSTGRES):
        return
    path = Path(location)
    if path.is_dir():
        raise BadStore(
            f"store {location!r} is a directory", hint="give --store the path of a .db file"
        )
    if must_exist and not path.exists():
        raise StoreNotFound(
            f"there is no store at {location!r}",
            hint="run `turnframe chat` first, or give --store the path it used",
        )
    parent = path.parent
    if not parent.is_dir():
        raise BadStore(
            f"cannot create store {location!r}: folder {str(parent)!r} does not exist",
            hint="create the folder first, or give --store another path",
        )


def _sqlite_tables(path: str) -> set[str] | None:
    """The tables of an existing SQLite file (None: no file, or an empty one)."""
    file = Path(path)
    if not file.exists() or file.stat().st_size == 0:
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{file}?mode=ro", uri=True)) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        raise BadStore(
            f"cannot open store {path!r}: {exc}",
            hint="give --store a turnframe SQLite file, or a new path to create one",
        ) from None
    return {str(r[0]) for r in rows}


def _refuse_foreign(display: str, tables: set[str] | None) -> None:
    if tables and "schema_version" not in tables:
        raise NotAStore(
            f"{display} is not a turnframe store (it holds other tables); nothing was changed",
            hint="give --store a turnframe store, or a new path or schema to create one",
        )


async def _postgres_tables(location: StoreLocation) -> set[str] | None:
    import asyncpg  # the [postgres] extra

    assert location.dsn is not None
    try:
        conn = await asyncpg.connect(location.dsn)
    except (OSError, asyncpg.PostgresError) as exc:
        raise BadStore(
            f"cannot connect to {location.display()}: {exc}",
            hint="check the URL, and that the server is running",
        ) from None
    try:
        rows = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = $1", location.schema
        )
        exists = await conn.fetchval(
            "SELECT 1 FROM pg_namespace WHERE nspname = $1", location.schema
        )
    finally:
        await conn.close()
    return None if exists is None else {str(r[0]) for r in rows}


@contextlib.asynccontextmanager
async def open_store(
    location: str | StoreLocation, *, must_exist: bool, clock: Clock | None = None
) -> AsyncIterator[Store]:
    """The store at ``location`` (``--store``), created and migrated when new; a missing store
    when it ``must_exist``, or a database that is not a turnframe store, is a typed error."""
    where = parse_store(location) if isinstance(location, str) else location
    async with contextlib.AsyncExitStack() as stack:
        if where.dsn is not None:
            from turnframe.stores.postgres import PostgresStore

            tables = await _postgres_tables(where)
            if must_exist and not tables:
                raise StoreNotFound(
                    f"there is no store at {where.display()}",
                    hint="start a worker or `turnframe chat` on it first, or check the schema",
                )
            _refuse_foreign(where.display(), tables)
            try:
                store: Store = await stack.enter_async_context(
                    PostgresStore.open(where.dsn, schema=where.schema, clock=clock)
                )
            except TurnframeError:
                raise
            except Exception as exc:  # asyncpg's own errors: one line, no traceback
                raise BadStore(
                    f"cannot open {where.display()}: {exc}", hint="check the URL and the schema"
                ) from None
        else:
            path = str(where.path)
            check_store_path(path, must_exist=must_exist)
            if path != MEMORY:
                _refuse_foreign(repr(path), _sqlite_tables(path))
            try:
                store = await stack.enter_async_context(SqliteStore.open(path, clock=clock))
            except sqlite3.DatabaseError as exc:
                raise BadStore(
                    f"cannot open store {path!r}: {exc}",
                    hint="give --store a turnframe SQLite file, or a new path to create one",
                ) from None
        yield store


__all__ = ["StoreLocation", "check_store_path", "open_store", "parse_store", "without_password"]
