"""Codes are stable dotted names, kept in one place, and documented."""

from __future__ import annotations

import re
from pathlib import Path

from turnframe.narration import codes

DOC = Path(__file__).resolve().parents[2] / "docs" / "responses.md"


def test_every_block_code_is_a_stable_dotted_turnframe_name() -> None:
    assert all(re.fullmatch(r"turnframe(\.[a-z_]+){2}", c) for c in codes.BLOCK_CODES)


def test_the_notice_codes_include_the_ones_the_pipeline_promises() -> None:
    promised = {
        "kept_unchanged",
        "superseded",
        "rejected",
        "blocked_by_constraint",
        "needs_clarification",
        "awaiting_confirmation",
        "verification_in_progress",
        "command_failed",
        "not_understood",
        "plan_rejected",
        "interpretation_failed",
        "card_stale",
        "already_done",
    }
    assert {f"turnframe.notice.{name}" for name in promised} <= codes.NOTICE_CODES


def test_every_block_code_is_documented_in_responses_md() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert sorted(c for c in codes.BLOCK_CODES if f"`{c}`" not in text) == []
