"""Lone surrogates are found wherever they hide, whether or not the fast check can say so."""

from __future__ import annotations

from turnframe._strict import non_text_paths


def test_data_that_is_all_text_has_no_non_text_paths() -> None:
    assert non_text_paths({"acts": [{"kind": "chitchat", "text": "héllo ✓"}], "n": 1.5}) == []


def test_a_lone_surrogate_in_a_value_or_a_key_is_found_at_its_path() -> None:
    data = {"acts": [{"text": "ok"}, {"text": "bad \ud800"}], "k\udfff": 1}
    assert non_text_paths(data) == [("(key)",), ("acts", 1, "text")]


def test_data_the_json_encoder_cannot_write_is_still_walked() -> None:
    assert non_text_paths({"when": object(), "text": ["\ud800"]}) == [("text", 0)]
    assert non_text_paths({"when": object(), "text": ["fine"]}) == []


def test_deeply_nested_data_is_walked_without_exhausting_the_stack() -> None:
    data: object = "\ud800"
    for _ in range(5000):
        data = [data]
    assert non_text_paths(data) == [(0,) * 5000]
