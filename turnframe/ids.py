"""Time-ordered row ids for records the store creates (sessions, turns, events).

Inserts in key order are several times faster than random ones, so ids sort by creation time:
48 bits of milliseconds, then 80 random bits, as 32 hex characters (the UUIDv7 layout without
the version nibbles). Ids that must be reproducible (command ids, idempotency keys) are derived
by :mod:`turnframe.hashing` instead.
"""

from __future__ import annotations

import os
import time


def new_id(prefix: str = "") -> str:
    millis = time.time_ns() // 1_000_000
    return f"{prefix}{millis:012x}{os.urandom(10).hex()}"
