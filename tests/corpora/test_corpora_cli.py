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


def test_corpus_check_lists_each_left_out_line_with_its_reason_and_exits_0(
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
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        f"{corpus}:2: not valid JSON: Expecting value [turnframe.corpus.malformed_line]",
        f"{corpus}:3: intent 'because' is not composed here (known: cause, verification); "
        "line skipped [turnframe.corpus.unknown_intent]",
        f"{corpus}:4: subject 'beauty' is not in pack 'p' [turnframe.corpus.subject_not_in_pack]",
        f"{corpus}:5: field 'connective' is missing or not a non-empty string "
        "[turnframe.corpus.missing_field]",
    ]
    assert "1 active chains; 3 defects, 1 skipped, 0 overridden, 0 retired" in result.stderr
    assert _check(corpus, "--strict").returncode == 1


def test_corpus_check_lists_retired_chains_without_failing(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth", "knowledge", "evidence")
    corpus = _corpus(
        tmp_path / "c.jsonl",
        chain("old", "truth", "implies", "evidence"),
        chain("new", "truth", "requires", "evidence", superseded_by="old"),
    )
    result = _check(corpus, "--pack", pack, "--strict")
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        f"{corpus}:1: chain 'old' retired: superseded by 'new' (line 2) "
        "[turnframe.corpus.superseded]"
    ]


def test_corpus_check_without_any_pack_says_how_to_give_one(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", chain("a", "truth", "grounds", "knowledge"))
    result = _check(corpus)
    assert result.returncode == 2
    assert "pass --pack DIR or write c.manifest.json" in result.stderr


def test_corpus_check_of_a_file_that_cannot_be_read_exits_2(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth")
    result = _check("--pack", pack, "--chains", tmp_path / "missing.jsonl")
    assert result.returncode == 2
    assert result.stderr.startswith("turnframe: turnframe.corpus.unreadable: ")
    as_json = _check("--pack", pack, "--chains", tmp_path / "missing.jsonl", "--json")
    assert json.loads(as_json.stdout)["error"]["code"] == "turnframe.corpus.unreadable"


def test_corpus_check_on_a_pack_folder_lists_its_overridden_lexicon_lines(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth", "truth")
    result = _check(pack)
    assert (result.returncode, result.stdout) == (
        0,
        f"{pack / 'lexicon.jsonl'}:1: lemma 'truth' is redefined on line 2, which wins "
        "[turnframe.corpus.duplicate_lemma]\n",
    )


def test_corpus_check_binds_each_teaching_file_to_the_pack_holding_its_lemmas(
    tmp_path: Path,
) -> None:
    words = _pack(tmp_path / "packs" / "words", "truth", "knowledge")
    kin = _pack(tmp_path / "packs" / "kin", "mother", "daughter")
    _corpus(
        tmp_path / "teaching" / "kin_chains.jsonl", chain("k", "mother", "precedes", "daughter")
    )
    _corpus(
        tmp_path / "teaching" / "word_chains.jsonl", chain("w", "truth", "grounds", "knowledge")
    )
    result = _check(tmp_path, "--json")
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert [p["pack_id"] for p in report["packs"]] == [kin.name, words.name]
    assert [(c["corpus_id"], c["pack_id"], c["active_chains"]) for c in report["corpora"]] == [
        ("kin_chains", "kin", 1),
        ("word_chains", "words", 1),
    ]
    assert report["reports"] == []
    assert report["counts"] == {"defects": 0, "skipped": 0, "overridden": 0, "retired": 0}


def test_corpus_check_json_lists_every_report_with_its_kind(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth", "knowledge", "truth")
    corpus = _corpus(
        tmp_path / "c.jsonl",
        chain("a", "truth", "grounds", "knowledge", intent="admissibility"),
        chain("b", "truth", "grounds", "knowledge"),
    )
    report = json.loads(_check("--pack", pack, "--chains", corpus, "--json").stdout)
    assert [(r["line"], r["kind"], r["defect"]) for r in report["reports"]] == [
        (1, "overridden", False),
        (1, "unsupported", False),
    ]
    assert report["ok"] is True


def test_corpus_check_reads_the_corpora_of_the_config_file(tmp_path: Path) -> None:
    _pack(tmp_path / "packs" / "p", "truth", "knowledge")
    _corpus(tmp_path / "c.jsonl", chain("a", "truth", "grounds", "beauty"))
    (tmp_path / "turnframe.toml").write_text(
        '[corpora]\npacks = ["packs/p"]\nchains = [{ path = "c.jsonl", pack = "p" }]\n'
    )
    result = _check("--config", tmp_path / "turnframe.toml")
    assert result.returncode == 0
    assert result.stdout.endswith(
        "c.jsonl:1: object 'beauty' is not in pack 'p' [turnframe.corpus.object_not_in_pack]\n"
    )


def test_corpus_check_passes_the_shipped_corpora() -> None:
    teaching = Path(str(shipped_data() / "teaching"))
    results = [
        _check(teaching / f"{name}.jsonl", "--strict")
        for name in ("cognition_chains_v1", "relations_chains_v2")
    ]
    assert [r.returncode for r in results] == [0, 0]
    assert _check("--strict").returncode == 0


def test_corpus_check_of_a_packs_lexicon_file_checks_its_pack(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "p", "truth", "truth")
    assert _check(pack / "lexicon.jsonl").stdout == _check(pack).stdout != ""
