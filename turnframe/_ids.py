"""Time-ordered row ids for records the store creates (sessions, turns, events).

Inserts in key order are several times faster than random ones, so ids sort by creation time:
48 bits of milliseconds, then 80 bits, as 32 hex characters (the UUIDv7 layout without the
version nibbles). Within one process ids are strictly increasing: the 80 bits start random in
each new millisecond and count up within it (and the millisecond never goes back, even if the
wall clock does). Ids that must be reproducible (command ids, idempotency keys) are derived by
:mod:`turnframe._hashing` instead.
"""

from __future__ import annotations

import os
import threading
import time

_LOW_BITS = 80
_LOW_LIMIT = 1 << _LOW_BITS
_lock = threading.Lock()
_last_millis = 0
_last_low = 0
# Random bytes are drawn from the OS a page at a time: one os.urandom call per id costs a
# system call that lets other threads take the GIL (a turn makes several ids).
_POOL_SIZE = 4096
_pool = b""
_pool_at = 0


def _random_low() -> int:
    global _pool, _pool_at
    if _pool_at + 10 > len(_pool):
        _pool, _pool_at = os.urandom(_POOL_SIZE), 0
    chunk = _pool[_pool_at : _pool_at + 10]
    _pool_at += 10
    return int.from_bytes(chunk, "big") >> 1  # room to count up


def _forget_pool() -> None:
    """A forked child draws its own bytes (it must not repeat its parent's)."""
    global _pool, _pool_at
    _pool, _pool_at = b"", 0


os.register_at_fork(after_in_child=_forget_pool)


def new_id(prefix: str = "") -> str:
    global _last_millis, _last_low
    with _lock:
        millis = time.time_ns() // 1_000_000
        if millis > _last_millis:
            low = _random_low()
        else:
            millis, low = _last_millis, _last_low + 1
            if low >= _LOW_LIMIT:  # a whole millisecond's worth used up: borrow the next one
                millis, low = millis + 1, 0
        _last_millis, _last_low = millis, low
    return f"{prefix}{millis:012x}{low:020x}"
