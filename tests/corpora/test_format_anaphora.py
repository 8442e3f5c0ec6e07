"""Format conformance: the seed's thread-anaphora scenarios, over our own seed-format files.

Each test restates a scenario of the seed project's anaphora test file: the prefix is pure and
deterministic; it fires only when the recalled turn and the current answer are both pack or
teaching grounded and their intents differ; it names the chain of a teaching turn, else the
subject and the tier; it is off by default, and on it goes before the surface.
"""

from __future__ import annotations

import pytest
import seed_format_kit as kit

from turnframe.corpora import (
    GroundingSource,
    IntentTag,
    ThreadContext,
    TurnSummary,
    thread_anaphora_prefix,
)

both_backends = pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])

LEAF_CHAIN = "cause_leaf_catches_sun"


def _thread(*turns: TurnSummary) -> ThreadContext:
    thread = ThreadContext()
    for turn in turns:
        thread = thread.push(turn)
    return thread


def _turn(
    turn: int = 0,
    intent: IntentTag = IntentTag.CAUSE,
    subject: str = "leaf",
    source: GroundingSource = GroundingSource.TEACHING,
    chain_id: str | None = None,
) -> TurnSummary:
    return TurnSummary(
        turn_index=turn,
        intent=intent,
        subject=subject,
        grounding_source=source,
        chain_id=chain_id,
        corpus_id="garden_chains_v1" if chain_id else None,
    )


def _prefix(
    thread: ThreadContext,
    subject: str = "leaf",
    intent: IntentTag = IntentTag.DEFINITION,
    source: GroundingSource = GroundingSource.PACK,
) -> str | None:
    return thread_anaphora_prefix(thread, subject=subject, intent=intent, source=source)


def test_a_prior_teaching_turn_recalled_by_a_pack_answer_names_its_chain() -> None:
    thread = _thread(_turn(0, chain_id=LEAF_CHAIN))
    assert _prefix(thread) == f"(Recalling turn 0: chain {LEAF_CHAIN}.) "


def test_a_prior_pack_turn_recalled_by_a_teaching_answer_names_the_subject_and_tier() -> None:
    thread = _thread(_turn(2, IntentTag.DEFINITION, source=GroundingSource.PACK))
    prefix = _prefix(thread, intent=IntentTag.CAUSE, source=GroundingSource.TEACHING)
    assert prefix == "(Recalling turn 2: leaf grounded pack.) "


def test_a_prior_teaching_turn_without_a_chain_id_names_the_subject_and_tier() -> None:
    assert _prefix(_thread(_turn(0))) == "(Recalling turn 0: leaf grounded teaching.) "


def test_a_same_intent_revisit_has_no_prefix() -> None:
    thread = _thread(_turn(0, IntentTag.DEFINITION, source=GroundingSource.PACK))
    assert _prefix(thread) is None


@pytest.mark.parametrize("weak", [GroundingSource.OOV, GroundingSource.NONE])
def test_a_prior_ungrounded_turn_anchors_nothing(weak: GroundingSource) -> None:
    assert _prefix(_thread(_turn(0, source=weak))) is None


@pytest.mark.parametrize("weak", [GroundingSource.OOV, GroundingSource.NONE, GroundingSource.CASE])
def test_a_weakly_grounded_current_answer_hosts_no_prefix(weak: GroundingSource) -> None:
    assert _prefix(_thread(_turn(0, chain_id="x")), source=weak) is None


def test_a_more_recent_case_grounded_turn_on_the_subject_blocks_an_older_anchor() -> None:
    thread = _thread(
        _turn(0, chain_id=LEAF_CHAIN),
        _turn(1, IntentTag.OTHER, source=GroundingSource.CASE),
    )
    assert _prefix(thread) is None


def test_an_ungrounded_turn_in_between_does_not_hide_the_anchor() -> None:
    thread = _thread(
        _turn(0, chain_id=LEAF_CHAIN),
        _turn(1, IntentTag.DEFINITION, source=GroundingSource.OOV),
    )
    assert _prefix(thread) == f"(Recalling turn 0: chain {LEAF_CHAIN}.) "


def test_an_empty_subject_has_no_prefix() -> None:
    thread = _thread(_turn(0, chain_id="x"))
    assert _prefix(thread, subject="") is None
    assert _prefix(thread, subject="   ") is None


def test_a_prior_turn_on_another_subject_has_no_prefix() -> None:
    assert _prefix(_thread(_turn(0, chain_id="x")), subject="soil") is None


def test_the_most_recent_matching_turn_is_recalled() -> None:
    thread = _thread(_turn(0, chain_id="cause_old"), _turn(2, chain_id="cause_new"))
    assert _prefix(thread) == "(Recalling turn 2: chain cause_new.) "


def test_the_prefix_is_deterministic() -> None:
    thread = _thread(_turn(0, chain_id="x"))
    assert _prefix(thread) == _prefix(thread)


# -- through the runtime ----------------------------------------------------------------------

WHY, WHAT = "Why does leaf exist?", "What is leaf?"
LEAF_PACK = "leaf — pack-grounded (fx_core_garden_v1): garden.canopy; plant.organ.above; sun.catch."


@both_backends
@pytest.mark.anyio
async def test_with_anaphora_off_a_recalled_subject_keeps_its_surface_byte_for_byte() -> None:
    answers = (await kit.chat(WHY, WHAT, anaphora=False)).answers
    assert answers[1].text == LEAF_PACK


@both_backends
@pytest.mark.anyio
async def test_with_anaphora_on_the_prefix_goes_before_the_pack_surface() -> None:
    answers = (await kit.chat(WHY, WHAT, anaphora=True)).answers
    assert answers[1].text == f"(Recalling turn 0: chain {LEAF_CHAIN}.) " + LEAF_PACK
    assert answers[1].data["grounding_source"] == "pack"


@both_backends
@pytest.mark.anyio
async def test_with_anaphora_on_and_no_earlier_turn_the_surface_is_unchanged() -> None:
    [answer] = (await kit.chat(WHAT, anaphora=True)).answers
    assert answer.text == LEAF_PACK
