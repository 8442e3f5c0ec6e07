"""What the recall stage is told: its budget and how it writes resume handles."""

from __future__ import annotations

import attrs

from turnframe.recall.state import MAX_ATTEMPTS


@attrs.frozen(kw_only=True)
class RecallSettings:
    """``max_attempts``: round trips (answers and corrections) before AttemptsExhausted.
    ``adjacent``: how many runner-up candidates a presentation names (each grounded in its own
    record). ``store_location``: the store path resume handles name (default: the store's own
    location when it has one, else ``turnframe.db``). ``index_on_idle``: write a session's
    index entry when its actor stops (idle, or the runtime stops)."""

    max_attempts: int = MAX_ATTEMPTS
    adjacent: int = 2
    find_limit: int = 16
    store_location: str | None = None
    index_on_idle: bool = True


__all__ = ["RecallSettings"]
