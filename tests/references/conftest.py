"""Fixtures for reference-material tests: a travel-desk-like slot set, files under tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnframe.references import ReferenceSlot

GLOSSARY = ReferenceSlot(
    name="glossary",
    description="Desk terms and aliases",
    media_types=("text/markdown", "text/plain"),
)
PROFILE = ReferenceSlot(name="profile", description="The traveller's profile", required=True)
ROSTER = ReferenceSlot(name="roster", description="Travellers on the trip", multiple=True)


@pytest.fixture
def slots() -> tuple[ReferenceSlot, ...]:
    """glossary (optional, markdown or text), profile (required), roster (optional, multiple)."""
    return (GLOSSARY, PROFILE, ROSTER)


@pytest.fixture
def glossary_slot() -> ReferenceSlot:
    return GLOSSARY


@pytest.fixture
def profile_slot() -> ReferenceSlot:
    return PROFILE


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A working directory with a few reference files in it."""
    (tmp_path / "glossary.md").write_text("the usual hotel = Hotel Almirante\n", encoding="utf-8")
    (tmp_path / "profile.txt").write_text("Ana Reis, prefers window seats\n", encoding="utf-8")
    (tmp_path / "alt-profile.txt").write_text("Rui Costa, aisle\n", encoding="utf-8")
    return tmp_path
