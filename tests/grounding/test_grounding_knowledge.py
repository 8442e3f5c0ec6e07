"""Knowledge questions through ``ground``: the reviewed-corpora surfaces come out byte for byte."""

from __future__ import annotations

from grounding_kit import SHIPPED, ask

from turnframe.corpora import GroundingSource, IntentTag, ThreadContext
from turnframe.grounding import (
    ANSWER_KNOWLEDGE,
    ANSWER_NO_SOURCE,
    ANSWER_RECALL_UNSUPPORTED,
    ANSWER_UNKNOWN_SUBJECT,
    summarise_for_thread,
)
from turnframe.testing.seed_surfaces import KNOWLEDGE, LIGHT, MOTHER, RECALLING_LIGHT_CAUSE, TRUTH

RECALLING = RECALLING_LIGHT_CAUSE


def _light_after_cause(*, anaphora: bool) -> str:
    first = ask("Why does light reveal truth?", thread=ThreadContext(), anaphora=anaphora)
    summary = summarise_for_thread(0, [first])
    assert summary is not None
    thread = ThreadContext().push(summary)
    second = ask("What is light?", thread=thread, anaphora=anaphora, turn_index=1)
    return second.text


def test_tell_me_about_truth_gives_the_seed_surface_byte_for_byte() -> None:
    answer = ask("Tell me about truth.")
    assert (answer.code, answer.text) == (ANSWER_KNOWLEDGE, TRUTH)


def test_an_example_of_knowledge_gives_the_seed_surface_byte_for_byte() -> None:
    assert ask("Give me an example of knowledge.").text == KNOWLEDGE


def test_tell_me_about_mother_gives_the_seed_surface_byte_for_byte() -> None:
    assert ask("Tell me about mother.").text == MOTHER


def test_what_is_light_after_a_cause_turn_recalls_it_with_anaphora_on() -> None:
    assert _light_after_cause(anaphora=True) == RECALLING + LIGHT


def test_what_is_light_after_a_cause_turn_has_no_prefix_with_anaphora_off() -> None:
    assert _light_after_cause(anaphora=False) == LIGHT


def test_the_question_is_the_acts_evidence_not_the_whole_turn() -> None:
    text = "Set the note to hi. Tell me about truth."
    assert ask(text, fragment="Tell me about truth.").text == TRUTH


def test_a_knowledge_answer_carries_its_corpus_and_chain_provenance() -> None:
    answer = ask("Tell me about truth.")
    assert answer.grounding_source is GroundingSource.TEACHING
    assert answer.provenance.corpus_ids == ("cognition_chains_v1",)
    assert answer.provenance.chain_ids and answer.provenance.case_id is None
    assert (answer.intent, answer.subject) == (IntentTag.NARRATIVE, "truth")


def test_a_recalled_turn_is_recorded_on_the_answer() -> None:
    first = ask("Why does light reveal truth?")
    summary = summarise_for_thread(0, [first])
    assert summary is not None
    second = ask(
        "What is light?", thread=ThreadContext().push(summary), anaphora=True, turn_index=1
    )
    assert second.recalled_turn == 0


def test_an_unknown_subject_gets_the_oov_invitation() -> None:
    answer = ask("What is a zorbel?")
    assert answer.code == ANSWER_UNKNOWN_SUBJECT
    assert answer.grounding_source is GroundingSource.OOV
    assert answer.text.startswith("zorbel — no reviewed entry yet.")


def test_an_unsupported_question_says_there_is_no_source_and_names_it() -> None:
    answer = ask("How about lunch?")
    assert answer.code == ANSWER_NO_SOURCE
    assert answer.text == "No reviewed source answers “How about lunch?”."
    assert answer.grounding_source is GroundingSource.NONE


def test_without_a_registry_a_knowledge_question_has_no_source() -> None:
    answer = ask("Tell me about truth.", registry=None)
    assert (answer.code, answer.text) == (
        ANSWER_NO_SOURCE,
        "No reviewed source answers “Tell me about truth.”.",
    )


def test_a_question_that_asks_to_remember_gets_recall_unsupported() -> None:
    answer = ask("Do you remember the refund we discussed?")
    assert answer.code == ANSWER_RECALL_UNSUPPORTED


def test_the_same_question_grounds_to_the_same_answer() -> None:
    assert ask("Tell me about mother.", registry=SHIPPED) == ask("Tell me about mother.")
