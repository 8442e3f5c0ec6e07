"""Format conformance: files in the seed project's format load whole, with every oddity reported.

The fixture files in ``seed_format/`` carry what the seed's real files carry: lemmas defined
twice (the later line wins), a replacement line whose ``superseded_by`` names the chain it
retires, lines of an intent turnframe does not compose, per-line domain counts, extra manifest
and lexicon keys, key orders that change mid-file and a cross-pack file. Nothing is refused.
"""

from __future__ import annotations

import subprocess
import sys

import seed_format_kit as kit

from turnframe.corpora import CorpusRegistry, DropKind, GroundingSource, answer_question


def _reports() -> list[tuple[str, int, str, DropKind]]:
    return [
        (d.source.rsplit("/", 1)[-1], d.line, d.code.rsplit(".", 1)[-1], d.kind)
        for d in kit.loaded().reports
    ]


def test_every_fixture_file_loads_and_each_left_out_line_is_reported_with_its_reason() -> None:
    assert _reports() == [
        ("lexicon.jsonl", 2, "duplicate_lemma", DropKind.OVERRIDDEN),
        ("lexicon.jsonl", 3, "duplicate_lemma", DropKind.OVERRIDDEN),
        ("lexicon.jsonl", 5, "duplicate_lemma", DropKind.OVERRIDDEN),
        ("lexicon.jsonl", 9, "duplicate_lemma", DropKind.OVERRIDDEN),
        ("garden_chains_v1.jsonl", 8, "superseded", DropKind.RETIRED),
        ("garden_chains_v1.jsonl", 15, "unknown_intent", DropKind.UNSUPPORTED),
        ("garden_chains_v1.jsonl", 16, "unknown_intent", DropKind.UNSUPPORTED),
    ]
    assert kit.loaded().defects == ()


def test_each_teaching_file_is_bound_to_the_pack_holding_its_lemmas() -> None:
    bound = {c.corpus.corpus_id: c.corpus.pack_id for c in kit.loaded().corpora}
    assert bound == {
        "garden_chains_v1": "fx_core_garden_v1",
        "roles_chains_v1": "fx_core_roles_v1",
        "roles_chains_v2": "fx_core_roles_v2",
        "cross_pack_chains_v1": "fx_core_garden_v1",  # its lines name their own packs
    }
    active = {c.corpus.corpus_id: len(c.corpus.chains) for c in kit.loaded().corpora}
    assert active == {
        "garden_chains_v1": 13,
        "roles_chains_v1": 7,
        "roles_chains_v2": 3,
        "cross_pack_chains_v1": 3,
    }


def test_the_fixtures_register_strictly_because_no_reported_line_is_a_defect() -> None:
    registry = CorpusRegistry()
    for load in kit.loaded().packs:
        registry.register(pack=load, strict=True)
    for corpus in kit.loaded().corpora:
        pack = next(p for p in registry.packs if p.pack_id == corpus.corpus.pack_id)
        registry.register(pack=pack, corpus=corpus, strict=True)
    assert [c.corpus_id for c in registry.corpora][-1] == "cross_pack_chains_v1"


def test_the_later_line_for_a_lemma_is_the_one_a_surface_shows() -> None:
    answer = answer_question("What is water?", kit.registry())
    assert answer.surface == (
        "water — pack-grounded (fx_core_garden_v1): action.irrigate; garden.moisture; labour.daily."
    )


def test_the_first_named_pack_answers_for_a_lemma_two_packs_define() -> None:
    answer = answer_question("What is a neighbour?", kit.registry())
    assert answer.surface == (
        "neighbour — pack-grounded (fx_core_roles_v1): role.adjacent; village.member; help.nearby."
    )


def test_a_why_question_is_teaching_grounded_on_the_subjects_chain() -> None:
    answer = answer_question("Why does leaf exist?", kit.registry())
    assert (answer.grounding_source, answer.chain_ids, answer.corpus_ids) == (
        GroundingSource.TEACHING,
        ("cause_leaf_catches_sun",),
        ("garden_chains_v1",),
    )
    assert answer.surface == (
        "leaf — teaching-grounded (garden_chains_v1): garden.canopy; plant.organ.above. "
        "Cause: leaf catches sun (garden.light). No session evidence yet."
    )


def test_corpus_check_over_the_fixture_folder_lists_the_same_lines_and_exits_0() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "turnframe", "corpus", "check", str(kit.ROOT), "--strict"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert [line.rsplit("[", 1)[-1] for line in result.stdout.splitlines()] == [
        "turnframe.corpus.duplicate_lemma]",
    ] * 4 + [
        "turnframe.corpus.superseded]",
        "turnframe.corpus.unknown_intent]",
        "turnframe.corpus.unknown_intent]",
    ]
    assert result.stderr == (
        "4 pack(s), 24 entries; 4 teaching file(s), 26 active chains; "
        "0 defects, 2 skipped, 4 overridden, 1 retired\n"
    )
