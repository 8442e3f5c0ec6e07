"""What the provider chain does with a failure: retry, wait and retry, fall back, or stop.

Its own module so that the attempt record and the typed errors both depend on it and not on each
other.
"""

from __future__ import annotations

import enum


class Classification(enum.StrEnum):
    RETRY = "retry"
    RETRY_AFTER = "retry_after"
    FALLBACK = "fallback"
    FATAL = "fatal"
