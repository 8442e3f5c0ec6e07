from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpora_builders import chain, lexicon, make_pack

from turnframe.corpora import (
    CorpusRegistry,
    DropKind,
    DuplicateCorpusError,
    MalformedCorpusLineError,
    MissingCorpusIdError,
    PackManifest,
    corpus_from_records,
    default_registry,
    load_pack,
    pack_from_entries,
    parse_teaching,
)
from turnframe.corpora.loader import load_shipped

PACK = make_pack("p", "truth", "knowledge", "evidence", "light")


def _codes(text: str) -> list[tuple[int, str]]:
    load = parse_teaching(text, corpus_id="c", pack=PACK, source="c.jsonl")
    return [(d.line, d.code) for d in load.drops]


def _lines(*records: object) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


def test_a_line_that_is_not_json_is_dropped_with_its_file_and_line() -> None:
    load = parse_teaching(
        _lines(chain("a", "truth", "grounds", "knowledge"), "{not json"),
        corpus_id="c",
        pack=PACK,
        source="c.jsonl",
    )
    assert [c.chain_id for c in load.corpus.chains] == ["a"]
    assert str(load.drops[0]).startswith("c.jsonl:2: not valid JSON")
    assert load.drops[0].kind is DropKind.MALFORMED


def test_a_line_with_an_empty_field_is_dropped() -> None:
    text = _lines(chain("a", "truth", " ", "knowledge"))
    assert _codes(text) == [(1, "turnframe.corpus.missing_field")]


def test_a_line_with_an_unknown_intent_is_skipped_and_the_rest_of_the_file_loads() -> None:
    load = parse_teaching(
        _lines(
            chain("a", "truth", "grounds", "knowledge", intent="admissibility"),
            chain("b", "truth", "grounds", "knowledge"),
        ),
        corpus_id="c",
        pack=PACK,
    )
    assert [c.chain_id for c in load.corpus.chains] == ["b"]
    assert [(d.line, d.code, d.kind) for d in load.drops] == [
        (1, "turnframe.corpus.unknown_intent", DropKind.UNSUPPORTED)
    ]
    assert load.defects == ()


def test_a_chain_whose_subject_is_not_in_the_bound_pack_is_gated_out() -> None:
    load = parse_teaching(
        _lines(chain("a", "beauty", "grounds", "knowledge")), corpus_id="c", pack=PACK
    )
    assert load.corpus.chains == ()
    assert (load.drops[0].code, load.drops[0].kind) == (
        "turnframe.corpus.subject_not_in_pack",
        DropKind.GATED,
    )


def test_a_chain_whose_object_is_not_in_the_bound_pack_is_gated_out() -> None:
    text = _lines(chain("a", "truth", "grounds", "beauty"))
    assert _codes(text) == [(1, "turnframe.corpus.object_not_in_pack")]


def test_a_cross_pack_chain_loads_when_its_object_pack_is_given() -> None:
    kin = make_pack("kin", "mother")
    record = chain("a", "truth", "concerns", "mother", object_pack_id="kin")
    load = corpus_from_records([record], corpus_id="c", pack=PACK, packs={"kin": kin})
    assert [c.object_pack_id for c in load.corpus.chains] == ["kin"]


def test_a_cross_pack_chain_naming_an_unloaded_pack_is_gated_out() -> None:
    record = chain("a", "truth", "concerns", "mother", object_pack_id="kin")
    load = corpus_from_records([record], corpus_id="c", pack=PACK)
    assert [d.code for d in load.drops] == ["turnframe.corpus.unknown_pack"]


def test_a_later_line_reusing_a_chain_id_replaces_the_earlier_one() -> None:
    load = parse_teaching(
        _lines(
            chain("a", "truth", "grounds", "knowledge"), chain("a", "light", "reveals", "truth")
        ),
        corpus_id="c",
        pack=PACK,
    )
    assert [(c.chain_id, c.subject, c.line) for c in load.corpus.chains] == [("a", "light", 2)]
    assert [(d.line, d.code, d.kind) for d in load.drops] == [
        (1, "turnframe.corpus.duplicate_chain_id", DropKind.OVERRIDDEN)
    ]


def test_the_replacement_line_names_the_chain_it_retires_in_superseded_by() -> None:
    load = parse_teaching(
        _lines(
            chain("old", "truth", "implies", "evidence"),
            chain("new", "truth", "requires", "evidence", superseded_by="old"),
        ),
        corpus_id="c",
        pack=PACK,
        source="c.jsonl",
    )
    assert [c.chain_id for c in load.corpus.chains] == ["new"]
    assert [(d.line, d.code, d.kind) for d in load.drops] == [
        (1, "turnframe.corpus.superseded", DropKind.RETIRED)
    ]
    assert load.drops[0].reason == "chain 'old' retired: superseded by 'new' (line 2)"


def test_a_bare_retirement_record_retires_the_chain_it_names() -> None:
    load = parse_teaching(
        _lines(chain("old", "truth", "implies", "evidence"), {"superseded_by": "old"}),
        corpus_id="c",
        pack=PACK,
    )
    assert load.corpus.chains == ()
    assert [d.code for d in load.drops] == ["turnframe.corpus.superseded"]


def test_a_line_that_does_not_load_still_retires_the_chain_it_names() -> None:
    load = parse_teaching(
        _lines(
            chain("old", "truth", "implies", "evidence"),
            chain("new", "truth", "requires", "beauty", superseded_by="old"),
        ),
        corpus_id="c",
        pack=PACK,
    )
    assert load.corpus.chains == ()
    assert [d.code for d in load.drops] == [
        "turnframe.corpus.superseded",
        "turnframe.corpus.object_not_in_pack",
    ]


def test_superseded_by_naming_no_chain_retires_nothing_and_is_a_defect() -> None:
    text = _lines(chain("new", "truth", "requires", "evidence", superseded_by="nope"))
    load = parse_teaching(text, corpus_id="c", pack=PACK)
    assert [c.chain_id for c in load.corpus.chains] == ["new"]
    assert [d.code for d in load.defects] == ["turnframe.corpus.unknown_retired_chain"]


def test_a_chain_naming_itself_in_superseded_by_retires_itself_and_is_a_defect() -> None:
    text = _lines(chain("a", "truth", "grounds", "knowledge", superseded_by="a"))
    assert _codes(text) == [(1, "turnframe.corpus.self_supersession")]
    assert parse_teaching(text, corpus_id="c", pack=PACK).corpus.chains == ()


def test_chain_id_and_provenance_are_optional_as_in_the_seed_format() -> None:
    record = {"subject": "truth", "intent": "cause", "connective": "grounds", "object": "knowledge"}
    [loaded] = corpus_from_records([record], corpus_id="c", pack=PACK).corpus.chains
    assert (loaded.chain_id, loaded.provenance) == ("truth_cause", "")


def test_a_line_may_carry_its_own_domain_counts() -> None:
    record = chain("a", "truth", "grounds", "knowledge", domains_subject_k=1, domains_object_k="2")
    [loaded] = corpus_from_records([record], corpus_id="c", pack=PACK).corpus.chains
    assert (loaded.domains_subject_k, loaded.domains_object_k) == (1, 2)


def test_a_domain_count_that_is_not_a_whole_number_drops_the_line() -> None:
    text = _lines(chain("a", "truth", "grounds", "knowledge", domains_subject_k="two"))
    assert _codes(text) == [(1, "turnframe.corpus.invalid_field")]


def test_blank_lines_are_not_drops() -> None:
    text = "\n\n" + json.dumps(chain("a", "truth", "grounds", "knowledge")) + "\n\n"
    assert _codes(text) == []


def test_a_line_separator_inside_a_json_string_does_not_split_the_line() -> None:
    record = chain("a", "truth", "grounds", "knowledge", provenance="review\u2028two")
    text = json.dumps(record, ensure_ascii=False) + "\r\n" + json.dumps(chain("b", "x", "y", "z"))
    assert _codes(text) == [(2, "turnframe.corpus.subject_not_in_pack")]


def test_unknown_keys_in_a_chain_line_are_ignored_so_seed_corpora_load() -> None:
    record = {**chain("a", "truth", "grounds", "knowledge"), "reviewer": "shay"}
    load = corpus_from_records([record], corpus_id="c", pack=PACK)
    assert load.drops == ()


def test_a_later_lexicon_entry_for_a_lemma_wins_and_the_earlier_is_reported() -> None:
    entries = [*lexicon("truth"), {**lexicon("truth")[0], "semantic_domains": ["other"]}]
    load = pack_from_entries(PackManifest(pack_id="p", language="en", version="1"), entries)
    assert load.pack.entries["truth"].semantic_domains == ("other",)
    assert [(d.line, d.code, d.kind) for d in load.drops] == [
        (1, "turnframe.corpus.duplicate_lemma", DropKind.OVERRIDDEN)
    ]
    assert load.drops[0].reason == "lemma 'truth' is redefined on line 2, which wins"


def test_a_lexicon_entry_needs_only_a_lemma_and_its_domains() -> None:
    entries = [
        {"lemma": "truth", "semantic_domains": ["t"]},
        {"surface": "light", "semantic_domains": ["l"]},
    ]
    load = pack_from_entries(PackManifest(pack_id="p", language="en", version="1"), entries)
    assert [(e.lemma, e.surface, e.pos) for e in load.pack.entries.values()] == [
        ("truth", "truth", ""),
        ("light", "light", ""),
    ]


def test_a_lexicon_entry_without_domains_is_dropped() -> None:
    entries = [{"lemma": "truth", "surface": "truth", "pos": "noun", "semantic_domains": []}]
    load = pack_from_entries(PackManifest(pack_id="p", language="en", version="1"), entries)
    assert [d.code for d in load.drops] == ["turnframe.corpus.missing_field"]


def test_registration_reports_every_drop() -> None:
    registry = CorpusRegistry()
    report = registry.register(
        pack=PACK,
        corpus=[chain("a", "truth", "grounds", "knowledge"), chain("b", "beauty", "x", "truth")],
        corpus_id="c",
    )
    assert (report.active_chains, [d.line for d in report.defects]) == (1, [2])


def test_strict_registration_raises_on_a_gated_line_and_registers_nothing() -> None:
    registry = CorpusRegistry()
    with pytest.raises(MalformedCorpusLineError) as raised:
        registry.register(
            pack=PACK, corpus=[chain("b", "beauty", "x", "truth")], corpus_id="c", strict=True
        )
    assert raised.value.code == "turnframe.corpus.malformed_line"
    assert "<c>:1: subject 'beauty' is not in pack 'p'" in str(raised.value)
    assert registry.packs == () and registry.corpora == ()


def test_registering_a_corpus_id_twice_is_refused() -> None:
    registry = CorpusRegistry()
    registry.register(pack=PACK, corpus=[], corpus_id="c")
    with pytest.raises(DuplicateCorpusError):
        registry.register(pack=PACK, corpus=[], corpus_id="c")


def test_in_memory_records_need_a_corpus_id() -> None:
    with pytest.raises(MissingCorpusIdError):
        CorpusRegistry().register(pack=PACK, corpus=[chain("a", "truth", "grounds", "knowledge")])


def test_a_pack_folder_and_corpus_file_register_under_the_corpus_manifest_id(
    tmp_path: Path,
) -> None:
    pack_dir = tmp_path / "pack"
    pack_dir.mkdir()
    (pack_dir / "manifest.json").write_text(
        json.dumps({"pack_id": "p", "language": "en", "version": "1"})
    )
    (pack_dir / "lexicon.jsonl").write_text(_lines(*lexicon("truth", "knowledge")))
    corpus_file = tmp_path / "policy.jsonl"
    corpus_file.write_text(_lines(chain("a", "truth", "grounds", "knowledge")))
    (tmp_path / "policy.manifest.json").write_text(json.dumps({"corpus_id": "policy_v1"}))
    report = CorpusRegistry().register(pack=pack_dir, corpus=corpus_file)
    assert (report.pack_id, report.corpus_id, report.active_chains) == ("p", "policy_v1", 1)


def test_a_pack_folder_loads_from_its_manifest_and_lexicon(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(
        json.dumps({"pack_id": "p2", "language": "en", "version": 3})
    )
    (tmp_path / "lexicon.jsonl").write_text(_lines(*lexicon("truth")))
    load = load_pack(tmp_path)
    assert (load.pack.manifest.version, list(load.pack.entries)) == ("3", ["truth"])


def test_the_shipped_corpora_load_with_no_defects() -> None:
    registry = CorpusRegistry()
    for pack_load, corpus_load in load_shipped():
        report = registry.register(pack=pack_load, corpus=corpus_load)
        assert report.defects == ()
    assert [c.corpus_id for c in registry.corpora] == ["cognition_chains_v1", "relations_chains_v2"]


def test_the_default_registry_without_shipped_corpora_is_empty() -> None:
    registry = default_registry(include_shipped=False)
    assert (registry.packs, registry.corpora) == ((), ())
