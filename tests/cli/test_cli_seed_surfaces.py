"""The seed's live verification, byte for byte, through ``turnframe chat --script --json``."""

from __future__ import annotations

from pathlib import Path

from cli_kit import chat_json

from turnframe.testing.seed_surfaces import KNOWLEDGE, LIGHT, MOTHER, TRUTH


def _answers(turns: list[dict[str, object]]) -> list[str]:
    out = []
    for turn in turns:
        blocks = turn["blocks"]
        assert isinstance(blocks, list)
        out.append(next(b["text"] for b in blocks if b["kind"] == "answer"))
    return out


def test_the_shipped_corpora_answer_the_seed_questions_byte_for_byte(tmp_path: Path) -> None:
    turns = chat_json(
        tmp_path,
        "Tell me about truth.",
        "Give me an example of knowledge.",
        "Tell me about mother.",
    )
    assert _answers(turns) == [TRUTH, KNOWLEDGE, MOTHER]


def test_what_is_light_after_a_cause_turn_recalls_the_chain_only_with_anaphora_on(
    tmp_path: Path,
) -> None:
    lines = ("Why does light reveal truth?", "What is light?")
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    on = _answers(chat_json(tmp_path / "on", *lines, extra=("--anaphora",)))[1]
    off = _answers(chat_json(tmp_path / "off", *lines))[1]
    assert on == "(Recalling turn 0: chain cause_light_reveals_truth.) " + LIGHT
    assert off == LIGHT
