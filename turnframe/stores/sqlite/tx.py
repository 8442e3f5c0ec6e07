"""Transaction bodies as plain synchronous functions, each run whole on the connection's thread.

A body never yields to the event loop, so no other task's statements can interleave with it on
the shared connection: the connection's single thread is the one writer. ``write`` wraps a body
in ``BEGIN IMMEDIATE … COMMIT`` and rolls back on any exception (including an injected fault
raised by the commit bundle's hook), so nothing partial is ever visible.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from turnframe.stores.errors import StoreTimeout
from turnframe.stores.sqlite.driver import WouldWait

T = TypeVar("T")

_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return (code is not None and (code & 0xFF) in _BUSY_CODES) or "locked" in str(exc)


def write(body: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
    """``body`` as one write transaction (lock taken up front, so it never upgrades mid-way)."""

    def transaction(conn: sqlite3.Connection) -> T:
        return run_write(conn, body)

    return transaction


def _begin_to_commit(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """``BEGIN IMMEDIATE``, the body, ``COMMIT``; rolled back whole on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = body(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def run_write(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``body`` now as one write transaction (what :func:`write` wraps)."""
    try:
        return _begin_to_commit(conn, body)
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise StoreTimeout(
                f"the database stayed locked; the transaction was rolled back ({exc})"
            ) from exc
        raise


def run_write_here(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """:func:`run_write` on the loop's thread, where the lock wait is off: a lock held by
    another connection raises :class:`WouldWait` with the transaction rolled back whole, so the
    same body can run again on the connection's thread."""
    try:
        return _begin_to_commit(conn, body)
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise WouldWait(str(exc)) from exc
        raise


def read_here(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """A read on the loop's thread: :class:`WouldWait` where :func:`read` would wait."""
    try:
        return body(conn)
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise WouldWait(str(exc)) from exc
        raise


def read(body: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
    """``body`` as a read. Read bodies issue a single SELECT, which SQLite runs as its own
    consistent snapshot, so they need no explicit transaction."""

    def transaction(conn: sqlite3.Connection) -> T:
        try:
            return body(conn)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise StoreTimeout(f"the database stayed locked ({exc})") from exc
            raise

    return transaction
