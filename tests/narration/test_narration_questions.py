"""Questions beside actions: always answered, in act order, and never an action."""

from __future__ import annotations

from narration_kit import BOB, CARLA, Turn, narrate

from turnframe.grounding import ANSWER_CASE_QUESTION, ANSWER_HYPOTHETICAL, ANSWER_NO_SOURCE
from turnframe.narration import codes, compose_blocks
from turnframe.response import BlockKind


def test_a_question_beside_a_rejected_action_is_still_answered() -> None:
    t = Turn("Submit Carla's trip. What's the status?")
    t.op(CARLA, "submit", "Submit Carla's trip")
    t.ask("What's the status?", target=CARLA, question="status")
    n = narrate(t)
    assert [b.code for b in n.blocks] == [codes.NOTICE_REJECTED, ANSWER_CASE_QUESTION]
    assert n.blocks[1].text == "Trip “Carla” — status: submitted."


def test_an_unsupported_question_says_so() -> None:
    t = Turn("How about lunch?")
    t.ask("How about lunch?")
    (block,) = narrate(t).blocks
    assert (block.kind, block.code, block.text) == (
        BlockKind.ANSWER,
        ANSWER_NO_SOURCE,
        "No reviewed source answers “How about lunch?”.",
    )


def test_a_hypothetical_question_produces_no_receipt() -> None:
    t = Turn("What would happen if I submitted Bob's trip?")
    t.ask("What would happen if I submitted Bob's trip?", target=BOB, hypothetical=True)
    t.op(BOB, "submit", "submitted Bob's trip")
    n = narrate(t)
    assert n.reduction.batches == ()
    assert n.of_kind(BlockKind.RECEIPT) == []
    assert [(b.code, b.acts) for b in n.blocks] == [
        (ANSWER_HYPOTHETICAL, (0,)),
        (codes.NOTICE_REJECTED, (1,)),
    ]
    assert n.blocks[1].text == "Not done: submit on Trip “Bob” (you only asked what would happen)."


def test_answers_follow_act_order_around_receipts() -> None:
    t = Turn("Tell me about truth. Set Bob's note to hi. What's the status?")
    t.ask("Tell me about truth.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    t.ask("What's the status?", target=BOB, question="status")
    n = narrate(t)
    assert [(b.kind, b.acts) for b in n.blocks] == [
        (BlockKind.ANSWER, (0,)),
        (BlockKind.RECEIPT, (1,)),
        (BlockKind.ANSWER, (2,)),
    ]


def test_a_question_whose_answer_is_missing_gets_a_not_answered_notice() -> None:
    t = Turn("Tell me about truth.")
    t.ask("Tell me about truth.")
    reduction = t.reduce()
    (block,) = compose_blocks(
        turn=t.turn, plan=t.plan, reduction=reduction, execution=None, cards=(), answers=()
    )
    assert (block.code, block.text) == (
        codes.NOTICE_NOT_ANSWERED,
        "No answer: the question “Tell me about truth.” could not be answered.",
    )


def test_a_recall_is_answered_as_not_supported_yet() -> None:
    t = Turn("Remember the hotel we talked about?")
    t.recall("the hotel we talked about", "Remember the hotel we talked about?")
    (block,) = narrate(t).blocks
    assert (
        block.text == "Recall is not supported yet: I cannot look up “the hotel we talked about”."
    )
