"""Every file of the phrasing corpus (tuned and the second to eighth corpora, with their
held-out parts) is well formed: JSON lines of the documented shape, seed data that exists, ids
unique across files, every category in both halves. Only the shape is read here, never how the
interpreter fares."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent.parent / "phrasings"


def test_every_phrasing_corpus_file_has_the_documented_shape_and_unique_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = importlib.util.spec_from_file_location("check_corpus", FOLDER / "check_corpus.py")
    assert spec is not None and spec.loader is not None
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    status = checker.main(FOLDER)
    printed = capsys.readouterr().out
    assert status == 0, printed
    # the later corpora are checked too
    for later in ("(second)", "(third)", "(fourth)", "(fifth)", "(sixth)", "(seventh)", "(eighth)"):
        assert later in printed
