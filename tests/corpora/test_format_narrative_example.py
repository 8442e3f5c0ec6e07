"""Format conformance: the seed's NARRATIVE / EXAMPLE scenarios, over our own seed-format files.

Each test restates a scenario of the seed project's narrative/example test file on the corpora
in ``seed_format/`` (see ``seed_format_kit``), with the surface the seed's rules give, byte for
byte: headers of ``domains_subject_k`` (narrative) and ``domains_object_k`` (example) domains,
humanised connectives, sort-then-deduplicate, and corpus tags sorted and joined by " + ".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import seed_format_kit as kit

from turnframe.corpora import (
    CompositionLimits,
    GroundingSource,
    IntentTag,
    answer_question,
    classify_question,
    compose,
)


def _narrative(subject: str, *, cross_pack: bool = True, **limits: int) -> str | None:
    answer = compose(
        IntentTag.NARRATIVE,
        subject,
        kit.registry(cross_pack=cross_pack),
        limits=CompositionLimits(**limits) if limits else None,
    )
    return answer.surface if answer.grounding_source is GroundingSource.TEACHING else None


def _example(subject: str, **limits: int) -> str | None:
    answer = compose(
        IntentTag.EXAMPLE,
        subject,
        kit.registry(),
        limits=CompositionLimits(**limits) if limits else None,
    )
    return answer.surface if answer.grounding_source is GroundingSource.TEACHING else None


# -- intent classification --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Tell me about sun.",
        "Tell me about gardener",
        "Describe soil",
        "Describe meteorology.",
        "What can you say about harvest?",
        "What do you know about water?",
    ],
)
def test_narrative_phrasings_classify_as_narrative_with_a_subject(text: str) -> None:
    question = classify_question(text)
    assert question.intent is IntentTag.NARRATIVE
    assert question.subject


@pytest.mark.parametrize(
    "text",
    [
        "Give me an example of soil.",
        "Show me an instance of growth.",
        "Show an example of gardener.",
        "Example of bloom",
    ],
)
def test_example_phrasings_classify_as_example_with_a_subject(text: str) -> None:
    question = classify_question(text)
    assert question.intent is IntentTag.EXAMPLE
    assert question.subject


def test_what_can_you_say_about_is_a_narrative_not_a_definition() -> None:
    assert classify_question("What can you say about sun?").intent is IntentTag.NARRATIVE


# -- the narrative composer -------------------------------------------------------------------


def test_a_narrative_gathers_every_chain_rooted_on_its_subject() -> None:
    assert _narrative("soil") == (
        "soil — narrative-grounded (garden_chains_v1): garden.ground; earth.medium. "
        "soil feeds root (action.anchor); soil requires water (action.irrigate). "
        "No session evidence yet."
    )


def test_cause_and_verification_with_the_same_connective_and_object_give_one_clause() -> None:
    assert _narrative("sun") == (
        "sun — narrative-grounded (garden_chains_v1): garden.light; sky.body. "
        "sun warms soil (garden.ground). No session evidence yet."
    )


def test_a_narrative_shows_the_replacement_never_the_chain_it_superseded() -> None:
    assert _narrative("seed") == (
        "seed — narrative-grounded (garden_chains_v1): garden.origin; plant.embryo. "
        "seed becomes growth (garden.change). No session evidence yet."
    )


def test_a_subject_of_another_packs_corpus_is_tagged_with_every_corpus_it_draws_on() -> None:
    assert _narrative("gardener") == (
        "gardener — narrative-grounded (cross_pack_chains_v1 + roles_chains_v1): "
        "role.tender; labour.skilled. gardener precedes apprentice (role.learner); "
        "gardener tends compost (garden.feed). No session evidence yet."
    )
    assert _narrative("gardener", cross_pack=False) == (
        "gardener — narrative-grounded (roles_chains_v1): role.tender; labour.skilled. "
        "gardener precedes apprentice (role.learner). No session evidence yet."
    )


def test_a_subject_of_the_second_roles_corpus_is_tagged_with_it() -> None:
    assert _narrative("grower") == (
        "grower — narrative-grounded (roles_chains_v2): role.producer; garden.commercial. "
        "grower precedes picker (role.gatherer). No session evidence yet."
    )


def test_a_lines_own_domain_count_sets_the_header_of_its_narrative() -> None:
    assert _narrative("harvest") == (
        "harvest — narrative-grounded (cross_pack_chains_v1 + garden_chains_v1): "
        "garden.yield; season.autumn; labour.gather. harvest follows growth (garden.change); "
        "harvest requires gardener (role.tender). No session evidence yet."
    )


def test_an_unknown_subject_has_no_narrative_and_gets_the_oov_invitation() -> None:
    for subject in ("meteorology", "xyzunknown"):
        assert _narrative(subject) is None
        answer = compose(IntentTag.NARRATIVE, subject, kit.registry())
        assert answer.grounding_source is GroundingSource.OOV


def test_an_empty_subject_has_no_narrative_and_no_surface() -> None:
    for subject in ("", "   "):
        answer = compose(IntentTag.NARRATIVE, subject, kit.registry())
        assert (answer.grounding_source, answer.surface) == (GroundingSource.NONE, None)


def test_a_narrative_is_deterministic() -> None:
    assert _narrative("soil") == _narrative("soil")
    assert kit.registry().digest() == kit.load_corpora(kit.sources()).registry.digest()


def test_the_clause_cap_shortens_a_narrative_to_its_first_clause() -> None:
    full = _narrative("soil", max_clauses=8)
    capped = _narrative("soil", max_clauses=1)
    assert full is not None and capped is not None and len(capped) < len(full)
    assert capped == (
        "soil — narrative-grounded (garden_chains_v1): garden.ground; earth.medium. "
        "soil feeds root (action.anchor). No session evidence yet."
    )


# -- the example composer ---------------------------------------------------------------------


def test_an_example_inverts_chains_whose_object_is_the_subject() -> None:
    assert _example("soil") == (
        "soil — example-grounded (garden_chains_v1): garden.ground. "
        "Example: compost enriches soil; rain soaks soil; sun warms soil. "
        "No session evidence yet."
    )


def test_an_example_keeps_one_chain_per_subject_sorted_by_intent_then_subject() -> None:
    assert _example("growth") == (
        "growth — example-grounded (garden_chains_v1): garden.change. "
        "Example: harvest follows growth; seed becomes growth; water feeds growth. "
        "No session evidence yet."
    )


def test_an_example_humanises_its_connectives() -> None:
    assert _example("guild") == (
        "guild — example-grounded (roles_chains_v1): group.craft. "
        "Example: neighbour belongs to guild; elder requires guild; helper requires guild. "
        "No session evidence yet."
    )


def test_an_example_drawing_on_two_corpora_is_tagged_with_both() -> None:
    assert _example("gardener") == (
        "gardener — example-grounded (cross_pack_chains_v1 + roles_chains_v1): role.tender. "
        "Example: apprentice follows gardener; keeper grounds gardener; "
        "harvest requires gardener. No session evidence yet."
    )
    assert _example("compost") == (
        "compost — example-grounded (cross_pack_chains_v1): garden.feed. "
        "Example: gardener tends compost. No session evidence yet."
    )


def test_an_unknown_object_has_no_example() -> None:
    assert _example("meteorology") is None
    assert _example("xyzunknown") is None


def test_an_example_is_deterministic() -> None:
    assert _example("soil") == _example("soil")


def test_the_example_cap_shortens_an_example() -> None:
    capped, full = _example("soil", max_examples=1), _example("soil", max_examples=8)
    assert capped is not None and full is not None and len(capped) < len(full)
    assert full.endswith(
        "Example: compost enriches soil; rain soaks soil; sun warms soil; root grips soil; "
        "shade cools soil. No session evidence yet."
    )


# -- through the command line and the runtime -------------------------------------------------


@pytest.fixture(scope="module")
def chat_answers(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    """(code, text) of each answer of one scripted `turnframe chat` over the fixture files."""
    script = tmp_path_factory.mktemp("chat") / "turns.txt"
    script.write_text(
        "Tell me about soil.\nDescribe photosynthesis.\nGive me an example of soil.\n"
        "Example of photosynthesis\nGive me an example of guild.\n"
    )
    options: list[str | Path] = []
    for pack in kit.ALL_PACKS:
        options += ["--pack", pack]
    for chains in (*kit.IN_PACK_CHAINS, kit.CROSS_PACK_CHAINS):
        options += ["--chains", chains]
    command = [sys.executable, "-m", "turnframe", "chat", "--store", ":memory:", "--json"]
    result = subprocess.run(
        [*command, "--script", str(script), *map(str, options)],
        capture_output=True,
        text=True,
        check=True,
    )
    turns = [json.loads(line) for line in result.stdout.splitlines()]
    return [(b["code"], b["text"]) for turn in turns for b in turn["blocks"]]


def test_chat_answers_a_narrative_on_a_known_subject_from_the_named_corpora(
    chat_answers: list[tuple[str, str]],
) -> None:
    assert chat_answers[0] == ("turnframe.answer.knowledge", _narrative("soil"))


def test_chat_answers_a_narrative_on_an_unknown_subject_with_the_oov_invitation(
    chat_answers: list[tuple[str, str]],
) -> None:
    code, text = chat_answers[1]
    assert code == "turnframe.answer.unknown_subject"
    assert text.startswith("photosynthesis — no reviewed entry yet.")


def test_chat_answers_an_example_on_a_known_object_from_the_named_corpora(
    chat_answers: list[tuple[str, str]],
) -> None:
    assert chat_answers[2] == ("turnframe.answer.knowledge", _example("soil"))
    assert chat_answers[4] == ("turnframe.answer.knowledge", _example("guild"))


def test_chat_answers_an_example_on_an_unknown_object_with_the_oov_invitation(
    chat_answers: list[tuple[str, str]],
) -> None:
    assert chat_answers[3][0] == "turnframe.answer.unknown_subject"


def test_the_answers_are_the_same_as_from_the_registry_api() -> None:
    answer = answer_question("Tell me about soil.", kit.registry())
    assert answer.surface == _narrative("soil")
