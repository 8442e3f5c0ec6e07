from __future__ import annotations

from corpora_builders import chain, make_pack, registry_of

from turnframe.corpora import (
    CompositionLimits,
    CorpusRegistry,
    GroundingSource,
    IntentTag,
    PackManifest,
    ThreadContext,
    answer_question,
    compose,
    default_registry,
    pack_from_entries,
    summarise_turn,
)
from turnframe.testing.seed_surfaces import KNOWLEDGE, LIGHT, MOTHER, TRUTH


def _after_light_cause(registry: CorpusRegistry, *, anaphora: bool) -> str | None:
    thread = ThreadContext()
    first = answer_question(
        "Why does light reveal truth?", registry, thread=thread, anaphora=anaphora, turn_index=0
    )
    thread = thread.push(summarise_turn(0, [first]))
    second = answer_question(
        "What is light?", registry, thread=thread, anaphora=anaphora, turn_index=1
    )
    assert second.grounding_source is GroundingSource.PACK
    return second.surface


def test_tell_me_about_truth_reproduces_the_seed_surface(shipped: CorpusRegistry) -> None:
    answer = answer_question("Tell me about truth.", shipped)
    assert (answer.surface, answer.grounding_source) == (TRUTH, GroundingSource.TEACHING)


def test_an_example_of_knowledge_reproduces_the_seed_surface(shipped: CorpusRegistry) -> None:
    answer = answer_question("Give me an example of knowledge.", shipped)
    assert (answer.surface, answer.grounding_source) == (KNOWLEDGE, GroundingSource.TEACHING)


def test_tell_me_about_mother_reproduces_the_seed_surface(shipped: CorpusRegistry) -> None:
    answer = answer_question("Tell me about mother.", shipped)
    assert (answer.surface, answer.grounding_source) == (MOTHER, GroundingSource.TEACHING)


def test_what_is_light_after_a_teaching_turn_recalls_its_chain_with_anaphora_on(
    shipped: CorpusRegistry,
) -> None:
    expected = "(Recalling turn 0: chain cause_light_reveals_truth.) " + LIGHT
    assert _after_light_cause(shipped, anaphora=True) == expected


def test_what_is_light_after_a_teaching_turn_has_no_prefix_with_anaphora_off(
    shipped: CorpusRegistry,
) -> None:
    assert _after_light_cause(shipped, anaphora=False) == LIGHT


def test_a_why_question_is_answered_from_its_teaching_chain(shipped: CorpusRegistry) -> None:
    answer = answer_question("Why does light reveal truth?", shipped)
    assert answer.surface == (
        "light — teaching-grounded (cognition_chains_v1): cognition.illumination; logos.core. "
        "Cause: light reveals truth (cognition.truth). No session evidence yet."
    )
    assert (answer.corpus_ids, answer.chain_ids) == (
        ("cognition_chains_v1",),
        ("cause_light_reveals_truth",),
    )


def test_a_yes_no_question_is_answered_from_its_verification_chain(
    shipped: CorpusRegistry,
) -> None:
    answer = answer_question("Does truth require evidence?", shipped)
    assert answer.surface is not None
    assert "Verification: truth requires evidence (cognition.evidence)." in answer.surface


def test_a_why_question_is_answered_from_the_subjects_chain_whatever_else_it_says(
    shipped: CorpusRegistry,
) -> None:
    for text in ("Why does light exist?", "Why does light cast shadows?"):
        answer = answer_question(text, shipped)
        assert (answer.grounding_source, answer.chain_ids) == (
            GroundingSource.TEACHING,
            ("cause_light_reveals_truth",),
        )


def test_a_why_question_about_a_subject_without_a_chain_is_pack_grounded() -> None:
    registry = CorpusRegistry()
    registry.register(pack=make_pack("p", "x"))
    assert compose(IntentTag.CAUSE, "x exist", registry).surface == (
        "x — pack-grounded (p): p.x; p.core."
    )


def test_a_narrative_collapses_chains_with_the_same_connective_and_object() -> None:
    pack = make_pack("p", "x", "y")
    registry = registry_of(
        (pack, "first", [chain("a", "x", "needs", "y")]),
        (pack, "second", [chain("b", "x", "needs", "y", intent="verification")]),
    )
    answer = compose(IntentTag.NARRATIVE, "x", registry)
    assert (answer.chain_ids, answer.corpus_ids) == (("a",), ("first",))


def test_a_narrative_shows_at_most_four_clauses_sorted_by_intent_connective_object() -> None:
    pack = make_pack("p", "x", "a", "b", "c", "d", "e")
    records = [
        chain("1", "x", "needs", "e", intent="verification"),
        chain("2", "x", "needs", "b"),
        chain("3", "x", "allows", "d"),
        chain("4", "x", "needs", "a"),
        chain("5", "x", "needs", "c"),
    ]
    answer = compose(IntentTag.NARRATIVE, "x", registry_of((pack, "c", records)))
    assert answer.chain_ids == ("3", "4", "2", "5")


def test_the_narrative_clause_cap_is_configurable() -> None:
    pack = make_pack("p", "x", "a", "b")
    records = [chain("1", "x", "needs", "a"), chain("2", "x", "needs", "b")]
    registry = registry_of((pack, "c", records))
    answer = compose(IntentTag.NARRATIVE, "x", registry, limits=CompositionLimits(max_clauses=1))
    assert answer.surface == (
        "x — narrative-grounded (c): p.x; p.core. x needs a (p.a). No session evidence yet."
    )


def test_a_narrative_across_corpora_tags_them_sorted_and_joined_with_a_plus() -> None:
    pack = make_pack("p", "x", "a", "b")
    registry = registry_of(
        (pack, "zulu", [chain("1", "x", "needs", "b")]),
        (pack, "alpha", [chain("2", "x", "allows", "a")]),
    )
    answer = compose(IntentTag.NARRATIVE, "x", registry)
    assert answer.corpus_ids == ("alpha", "zulu")
    assert answer.surface is not None and "(alpha + zulu)" in answer.surface


def test_examples_keep_the_first_chain_per_subject_in_sort_order_at_most_three() -> None:
    pack = make_pack("p", "x", "a", "b", "c", "d")
    records = [
        chain("1", "d", "needs", "x"),
        chain("2", "b", "needs", "x"),
        chain("3", "b", "allows", "x"),
        chain("4", "a", "needs", "x", intent="verification"),
        chain("5", "c", "needs", "x"),
    ]
    answer = compose(IntentTag.EXAMPLE, "x", registry_of((pack, "c", records)))
    assert answer.surface == (
        "x — example-grounded (c): p.x. "
        "Example: b allows x; c needs x; d needs x. No session evidence yet."
    )


def test_the_earlier_corpus_wins_a_subject_intent_collision() -> None:
    pack = make_pack("p", "x", "a", "b")
    registry = registry_of(
        (pack, "first", [chain("1", "x", "needs", "a")]),
        (pack, "second", [chain("2", "x", "needs", "b")]),
    )
    assert compose(IntentTag.CAUSE, "x need b", registry).chain_ids == ("1",)
    assert compose(IntentTag.CAUSE, "x", registry).chain_ids == ("1",)


def test_a_definition_uses_the_first_registered_pack_that_has_the_lemma() -> None:
    registry = CorpusRegistry()
    registry.register(pack=make_pack("first", "x"))
    registry.register(pack=make_pack("second", "x"))
    answer = compose(IntentTag.DEFINITION, "x", registry)
    assert answer.surface == "x — pack-grounded (first): first.x; first.core."


def test_an_unknown_subject_gets_the_oov_invitation(shipped: CorpusRegistry) -> None:
    answer = answer_question("Tell me about frobnication.", shipped)
    assert answer.grounding_source is GroundingSource.OOV
    assert answer.surface == (
        "frobnication — no reviewed entry yet. "
        "Tell me what frobnication means and it can be reviewed into a pack."
    )


def test_an_unknown_example_subject_also_gets_the_oov_invitation(
    shipped: CorpusRegistry,
) -> None:
    answer = answer_question("Give me an example of frobnication.", shipped)
    assert answer.grounding_source is GroundingSource.OOV


def test_an_empty_subject_gives_no_surface(shipped: CorpusRegistry) -> None:
    answer = answer_question("Tell me about?", shipped)
    assert (answer.surface, answer.grounding_source) == (None, GroundingSource.NONE)


def test_a_recall_question_is_not_answered_from_corpora(shipped: CorpusRegistry) -> None:
    answer = answer_question("Do you remember truth?", shipped)
    assert (answer.surface, answer.grounding_source) == (None, GroundingSource.NONE)


def test_a_known_subject_with_no_chains_gets_the_pack_surface_for_a_narrative() -> None:
    registry = CorpusRegistry()
    registry.register(pack=make_pack("p", "x"))
    answer = compose(IntentTag.NARRATIVE, "x", registry)
    assert (answer.grounding_source, answer.surface) == (
        GroundingSource.PACK,
        "x — pack-grounded (p): p.x; p.core.",
    )


def test_the_same_inputs_give_the_same_bytes() -> None:
    questions = ["Tell me about truth.", "Give me an example of knowledge.", "What is light?"]
    first = [answer_question(q, default_registry()) for q in questions]
    second = [answer_question(q, default_registry()) for q in questions]
    assert first == second
    assert default_registry().digest() == default_registry().digest()


def test_a_workflow_registered_policy_corpus_answers_about_its_subject() -> None:
    registry = default_registry()
    pack = pack_from_entries(
        PackManifest(pack_id="policy_pack_v1", language="en", version="1"),
        [
            {
                "lemma": "refund",
                "surface": "refunds",
                "pos": "noun",
                "semantic_domains": ["policy.refund", "commerce.payment"],
            },
            {
                "lemma": "receipt",
                "surface": "receipts",
                "pos": "noun",
                "semantic_domains": ["policy.proof_of_purchase"],
            },
        ],
    )
    report = registry.register(
        pack=pack,
        corpus=[chain("refund_requires_receipt", "refund", "requires", "receipt")],
        corpus_id="policy_chains_v1",
    )
    assert report.defects == ()
    answer = answer_question("Tell me about refunds.", registry)
    assert answer.surface == (
        "refund — narrative-grounded (policy_chains_v1): policy.refund; commerce.payment. "
        "refund requires receipt (policy.proof_of_purchase). No session evidence yet."
    )
