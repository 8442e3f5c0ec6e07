"""turnframe: models propose meaning, a pure reducer decides effects, committed events decide
claims, supervised actors keep it running."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
