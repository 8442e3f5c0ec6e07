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


def new_id(prefix: str = "") -> str:
    global _last_millis, _last_low
    with _lock:
        millis = time.time_ns() // 1_000_000
        if millis > _last_millis:
            low = int.from_bytes(os.urandom(10), "big") >> 1  # room to count up
        else:
            millis, low = _last_millis, _last_low + 1
            if low >= _LOW_LIMIT:  # a whole millisecond's worth used up: borrow the next one
                millis, low = millis + 1, 0
        _last_millis, _last_low = millis, low
    return f"{prefix}{millis:012x}{low:020x}"
