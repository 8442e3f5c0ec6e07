"""The one lookup form for lemmas and subjects, shared by packs, chains, indexes and the thread."""

from __future__ import annotations


def normalise_key(text: str) -> str:
    """Case-folded, whitespace collapsed: "  Fare  Difference" → "fare difference"."""
    return " ".join(text.casefold().split())
