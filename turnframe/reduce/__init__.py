"""The pure whole-turn reducer and the data it is given.

This package imports no I/O library (no anyio, aiosqlite, httpx); a test keeps it that way.
"""

from __future__ import annotations

from turnframe.reduce.context import ReductionContext, ResolutionOutcome, TargetResolution
from turnframe.reduce.reducer import ReducerInvariantError, reduce

__all__ = [
    "ReducerInvariantError",
    "ReductionContext",
    "ResolutionOutcome",
    "TargetResolution",
    "reduce",
]
