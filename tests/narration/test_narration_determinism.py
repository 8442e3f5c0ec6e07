"""The same inputs give the same blocks, byte for byte; ids depend on place, kind, code, acts."""

from __future__ import annotations

import attrs
from narration_kit import ANNA, BOB, Turn, answer_all, commit, narrate, snapshots

from turnframe._converter import unstructure
from turnframe._hashing import canonical_json
from turnframe.narration import compose_blocks
from turnframe.response import Block
from turnframe.workflow import CaseSnapshot


def _busy(turn_id: str = "turn-1") -> Turn:
    t = Turn(
        "Set Bob's note to hi. Withdraw Anna's trip. Tell me about truth. hello", turn_id=turn_id
    )
    t.set(BOB, "note", "hi", "Set Bob's note to hi")
    t.op(ANNA, "withdraw", "Withdraw Anna's trip")
    t.ask("Tell me about truth.")
    t.chat("hello")
    return t


def test_the_same_inputs_give_the_same_bytes() -> None:
    first = canonical_json(unstructure(narrate(_busy()).blocks))
    again = canonical_json(unstructure(narrate(_busy()).blocks))
    assert first == again


def test_block_ids_are_unique_within_a_response() -> None:
    blocks = narrate(_busy()).blocks
    assert len({b.block_id for b in blocks}) == len(blocks)


def test_block_ids_differ_between_turns() -> None:
    ids = {b.block_id for b in narrate(_busy()).blocks}
    assert ids.isdisjoint(b.block_id for b in narrate(_busy("turn-2")).blocks)


def test_a_block_id_depends_on_its_place_not_its_text() -> None:
    t = _busy()
    reduction = t.reduce()
    cases = snapshots()
    execution = commit(reduction.batches, cases)
    renamed = {**cases, "case-bob": attrs.evolve(cases["case-bob"], label="Robert")}

    def compose(with_cases: dict[str, CaseSnapshot]) -> tuple[Block, ...]:
        return compose_blocks(
            turn=t.turn,
            plan=t.plan,
            reduction=reduction,
            execution=execution,
            cards=reduction.interactions,
            answers=answer_all(t, reduction, cases),
            cases=with_cases,
        )

    first, second = compose(cases), compose(renamed)
    assert first[0].text != second[0].text
    assert [b.block_id for b in first] == [b.block_id for b in second]
