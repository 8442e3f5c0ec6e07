from __future__ import annotations

import pytest

from turnframe.corpora import IntentTag, classify_question


def test_what_do_you_know_about_is_a_narrative_not_a_definition() -> None:
    question = classify_question("What do you know about truth?")
    assert (question.intent, question.subject) == (IntentTag.NARRATIVE, "truth")


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Tell me about truth.", IntentTag.NARRATIVE),
        ("Describe truth", IntentTag.NARRATIVE),
        ("What can you say about truth?", IntentTag.NARRATIVE),
        ("What is truth?", IntentTag.DEFINITION),
        ("What are refunds?", IntentTag.DEFINITION),
        ("Define truth", IntentTag.DEFINITION),
        ("Explain truth", IntentTag.DEFINITION),
        ("Give me an example of truth", IntentTag.EXAMPLE),
        ("Show an instance of truth", IntentTag.EXAMPLE),
        ("Example of truth?", IntentTag.EXAMPLE),
        ("What is an example of truth?", IntentTag.EXAMPLE),
        ("Why does truth matter?", IntentTag.CAUSE),
        ("Does truth require evidence?", IntentTag.VERIFICATION),
        ("Is truth knowable?", IntentTag.VERIFICATION),
        ("Remember the refund?", IntentTag.RECALL),
        ("Do you recall the refund?", IntentTag.RECALL),
    ],
)
def test_each_documented_phrasing_gets_its_intent(text: str, intent: IntentTag) -> None:
    assert classify_question(text).intent is intent


def test_intent_rules_ignore_case() -> None:
    assert classify_question("TELL ME ABOUT Truth").intent is IntentTag.NARRATIVE


def test_intent_rules_are_anchored_at_the_start_of_the_text() -> None:
    assert classify_question("So, tell me about truth.").intent is IntentTag.OTHER


def test_do_you_remember_is_recall_even_though_it_opens_like_a_yes_no_question() -> None:
    question = classify_question("Do you remember the refund we discussed?")
    assert (question.intent, question.subject) == (IntentTag.RECALL, "refund we discussed")


def test_the_subject_loses_case_articles_extra_spaces_and_trailing_punctuation() -> None:
    assert classify_question("Tell me about   The  Fare Difference?!").subject == "fare difference"


def test_a_why_question_loses_its_leading_auxiliary() -> None:
    assert classify_question("Why does light reveal truth?").subject == "light reveal truth"


def test_a_quoted_subject_loses_its_quotes() -> None:
    assert classify_question("Define \u201ctruth\u201d.").subject == "truth"


def test_a_rule_with_nothing_after_it_has_an_empty_subject() -> None:
    question = classify_question("Tell me about?")
    assert (question.intent, question.subject) == (IntentTag.NARRATIVE, "")


def test_text_no_rule_matches_is_other_with_no_subject() -> None:
    question = classify_question("Cancel my booking please")
    assert (question.intent, question.subject) == (IntentTag.OTHER, "")
