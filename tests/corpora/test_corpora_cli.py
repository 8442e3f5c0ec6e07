from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from corpora_builders import chain, lexicon

from turnframe.corpora.loader import shipped_data


def _check(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turnframe", "corpus", "check", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def _pack(folder: Path, *lemmas: str) -> Path:
    folder.mkdir(parents=True)
    manifest = {"pack_id": folder.name, "language": "en", "version": "1"}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    lines = [json.dumps(e) for e in lexicon(*lemmas)]
    (folder / "lexicon.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def _corpus(path: Path, *lines: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n")
    return path


def test_corpus_check_lists_each_malformed_and_gated_line_with_its_reason(
    tmp_path: Path,
) -> None:
    _pack(tmp_path / "packs" / "p", "truth", "knowledge")
    corpus = _corpus(
        tmp_path / "teaching" / "c.jsonl",
        chain("a", "truth", "grounds", "knowledge"),
        '{"chain_id": "b", "subject": ',
        chain("c", "truth", "grounds", "knowledge", intent="because"),
        chain("d", "beauty", "grounds", "knowledge"),
        chain("e", "truth", "", "knowledge"),
    )
    (tmp_path / "teaching" / "c.manifest.json").write_text(
        json.dumps({"corpus_id": "c", "pack_id": "p", "pack_path": "../packs/p"})
    )
    result = _check(corpus)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{corpus}:2: not valid JSON: Expecting value [turnframe.corpus.malformed_line]",
        f"{corpus}:3: intent 'because' is not composed here (known: cause, verification); "
        "line skipped [turnframe.corpus.unknown_intent]",
        f"{corpus}:4: subject 'beauty' is not in pack 'p' [turnframe.corpus.subject_not_in_pack]",
        f"{corpus}:5: field 'connective' is missing or not a non-empty string "
        "[turnframe.corpus.missing_field]",
    ]


def test_corpus_check_lists_retired_chains_without_failing(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth", "knowledge", "evidence")
    corpus = _corpus(
        tmp_path / "c.jsonl",
        chain("old", "truth", "implies", "evidence"),
        chain("new", "truth", "requires", "evidence", superseded_by="old"),
    )
    result = _check(corpus, "--pack", pack)
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        f"{corpus}:1: chain 'old' retired: superseded by 'new' (line 2) "
        "[turnframe.corpus.superseded]"
    ]


def test_corpus_check_without_a_pack_or_manifest_says_how_to_give_one(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", chain("a", "truth", "grounds", "knowledge"))
    result = _check(corpus)
    assert result.returncode == 2
    assert "pass --pack DIR or write c.manifest.json" in result.stderr


def test_corpus_check_on_a_pack_folder_lists_its_overridden_lexicon_lines(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth", "truth")
    result = _check(pack)
    assert (result.returncode, result.stdout) == (
        0,
        f"{pack / 'lexicon.jsonl'}:1: lemma 'truth' is redefined on line 2, which wins "
        "[turnframe.corpus.duplicate_lemma]\n",
    )


def test_corpus_check_passes_the_shipped_corpora() -> None:
    teaching = Path(str(shipped_data() / "teaching"))
    results = [
        _check(teaching / f"{name}.jsonl")
        for name in ("cognition_chains_v1", "relations_chains_v2")
    ]
    assert [r.returncode for r in results] == [0, 0]
