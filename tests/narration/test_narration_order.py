"""Blocks follow the user's order; a receipt stands where its batch's first act stands."""

from __future__ import annotations

from narration_kit import BOB, CARLA, Turn, narrate

from turnframe.response import BlockKind


def test_a_receipt_stands_at_the_first_act_of_its_batch() -> None:
    t = Turn("Set Bob's note to hi. Submit Carla's trip. Set Bob's passengers to three.")
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    t.op(CARLA, "submit", "Submit Carla's trip")
    t.set(BOB, "passengers", "three", "Set Bob's passengers to three")
    n = narrate(t)
    assert [(b.kind, b.acts) for b in n.blocks] == [
        (BlockKind.RECEIPT, (0, 2)),
        (BlockKind.NOTICE, (1,)),
    ]


def test_blocks_at_one_act_go_notice_before_card() -> None:
    t = Turn("Withdraw Bob's trip.")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    assert [b.kind for b in narrate(t).blocks] == [BlockKind.NOTICE, BlockKind.CARD]


def test_a_receipt_comes_before_the_notice_about_its_external_effect() -> None:
    t = Turn("Book Carla's trip.")
    t.op(CARLA, "book", "Book Carla's trip")
    assert [b.kind for b in narrate(t).blocks] == [BlockKind.RECEIPT, BlockKind.NOTICE]
