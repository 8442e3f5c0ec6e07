"""Hypothetical questions are explained from the workflow's declaration and never done."""

from __future__ import annotations

from grounding_kit import BOB_CASE, ask

from turnframe.grounding import ANSWER_HYPOTHETICAL, ANSWER_NO_SOURCE, supposed_acts
from turnframe.plan import LabelTarget, OperationAct, QuestionAct, SetFieldAct, UserTurnPlan
from turnframe.results import ActRef
from turnframe.testing import make_turn, reduce_now, seeded_directory, span

BOB = LabelTarget(label="Bob")
WITHDRAW = (
    "Hypothetically, withdraw on Trip “Bob” would first ask for your confirmation; "
    "it is destructive. Nothing was done."
)


def _withdraw(text: str) -> OperationAct:
    return OperationAct(
        target=BOB, operation="withdraw", evidence=span(text, "withdrew Bob's trip")
    )


def test_a_supposed_operation_is_explained_without_being_done() -> None:
    text = "What would happen if I withdrew Bob's trip?"
    answer = ask(text, hypothetical=True, case=BOB_CASE, supposed=[_withdraw(text)])
    assert (answer.code, answer.text) == (ANSWER_HYPOTHETICAL, WITHDRAW)
    assert answer.provenance.operation == "withdraw"


def test_the_question_may_name_the_operation_it_supposes() -> None:
    text = "What would happen if I withdrew Bob's trip?"
    answer = ask(text, hypothetical=True, question="withdraw", case=BOB_CASE)
    assert answer.text == WITHDRAW


def test_an_operation_named_in_the_text_is_found_by_its_alias() -> None:
    answer = ask("What if I book it?", hypothetical=True, case=BOB_CASE)
    assert answer.text == (
        "Hypothetically, book on Trip “Bob” would run without asking for confirmation; "
        "it is not destructive; it notifies an external system. Nothing was done."
    )


def test_a_submission_is_said_to_be_one() -> None:
    answer = ask("What if I submit?", hypothetical=True, case=BOB_CASE)
    assert "it is a submission" in answer.text


def test_a_supposed_field_change_is_explained() -> None:
    text = "What if I set the note to hi?"
    act = SetFieldAct(target=BOB, field="note", value="hi", evidence=span(text, "set the note"))
    answer = ask(text, hypothetical=True, case=BOB_CASE, supposed=[act])
    assert answer.text == (
        "Hypothetically, setting note on Trip “Bob” would run without asking for confirmation. "
        "Nothing was done."
    )


def test_a_hypothetical_nothing_declares_has_no_source_and_says_nothing_was_done() -> None:
    answer = ask("What if I flew to the moon?", hypothetical=True, case=BOB_CASE)
    assert answer.code == ANSWER_NO_SOURCE
    assert answer.text.startswith("Nothing was done. No source explains “What if I flew")


def test_supposed_acts_are_the_acts_the_reducer_kept_inside_the_question() -> None:
    text = "What would happen if I withdrew Bob's trip?"
    question = QuestionAct(target=BOB, hypothetical=True, evidence=span(text, text))
    plan = UserTurnPlan(acts=(question, _withdraw(text)))
    reduction = reduce_now(plan, make_turn(text), seeded_directory())
    (request,) = reduction.grounding
    assert request.act == ActRef(index=0)
    assert supposed_acts(request, plan, reduction) == (plan.acts[1],)
