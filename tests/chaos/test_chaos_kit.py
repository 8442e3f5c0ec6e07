"""The chaos kit adopters use: seeded schedules, the invariant checker, sabotage, the plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.providers.base import Purpose
from turnframe.testing.chaos import (
    BadChaosTarget,
    ChaosTarget,
    FaultKind,
    Sabotage,
    chaos,
    load_target,
    read_corpus,
)
from turnframe.testing.chaos.run import ChaosRunner
from turnframe.testing.chaos.schedule import ProviderFault, StoreFault, draw_schedule

DESKS = ["travel-desk", "refund-desk"]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**40), steps=st.integers(1, 12))
def test_a_seed_alone_decides_the_schedule(seed: int, steps: int) -> None:
    import random

    first = draw_schedule(random.Random(seed), steps=steps)
    again = draw_schedule(random.Random(seed), steps=steps)
    assert first == again
    assert len(first.faults) <= 4
    for fault in first.of_type(ProviderFault):
        assert 1 <= fault.request <= steps + 2
        assert fault.purpose in (Purpose.INTERPRET, Purpose.NARRATE)
    for fault in first.of_type(StoreFault):
        assert fault.kind in (FaultKind.STORE_CRASH, FaultKind.STORE_TIMEOUT)


@pytest.mark.parametrize("desk", DESKS)
def test_chaos_runs_of_a_sample_desk_find_no_violation(desk: str) -> None:
    report = chaos(ChaosTarget.sample(desk), runs=24, seed=11)
    report.assert_ok()
    assert report.runs == 24 and report.failing_seeds == []
    assert sum(report.faults.values()) > 0  # faults did fire


@pytest.mark.parametrize("desk", DESKS)
@pytest.mark.parametrize("sabotage", list(Sabotage))
def test_every_sabotaged_component_is_caught_on_every_sample_desk(
    desk: str, sabotage: Sabotage
) -> None:
    report = chaos(ChaosTarget.sample(desk), runs=4, seed=0, sabotage=sabotage)
    assert not report.ok
    expected = {
        Sabotage.RETRY_AFTER_SEAL: "interpretation_after_seal",
        Sabotage.DUPLICATE_EFFECT: "duplicated_effect",
        Sabotage.DROP_RECEIPT: "act_result_not_visible",
    }[sabotage]
    assert report.violations_by_invariant[expected] > 0


@pytest.mark.anyio
async def test_a_failing_run_is_replayed_alone_by_its_seed() -> None:
    runner = ChaosRunner(ChaosTarget.sample("travel-desk"), sabotage=Sabotage.DUPLICATE_EFFECT)
    first = await runner.run(5)
    again = await ChaosRunner(
        ChaosTarget.sample("travel-desk"), sabotage=Sabotage.DUPLICATE_EFFECT
    ).run(5)
    assert not first.ok
    assert again.schedule == first.schedule
    assert [v.invariant for v in again.violations] == [v.invariant for v in first.violations]


def test_a_corpus_holds_conversations_as_json_lines_or_a_script(tmp_path: Path) -> None:
    lines = tmp_path / "corpus.jsonl"
    lines.write_text(
        json.dumps({"id": "a", "turns": ["Refund 20 euros on order 1001", "/click confirm"]})
        + "\n\n"
        + json.dumps({"turns": ["Thanks!"]})
        + "\n",
        encoding="utf-8",
    )
    assert read_corpus(lines) == (
        ("Refund 20 euros on order 1001", "/click confirm"),
        ("Thanks!",),
    )
    script = tmp_path / "corpus.txt"
    script.write_text("# two conversations\nHello\nThanks!\n\n\nBye\n", encoding="utf-8")
    assert read_corpus(script) == (("Hello", "Thanks!"), ("Bye",))


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"turns": ["ok"]}\nnot json\n', "corpus.jsonl:2: not JSON"),
        ('{"turns": []}\n', "corpus.jsonl:1"),
        ('{"turns": ["ok", 3]}\n', "corpus.jsonl:1"),
        ("\n", "holds no conversation"),
    ],
)
def test_a_bad_corpus_line_is_a_typed_error_naming_the_file_and_line(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BadChaosTarget) as caught:
        read_corpus(path)
    assert caught.value.code == "turnframe.chaos.bad_target"
    assert says in caught.value.message


def test_a_workflow_that_is_neither_a_sample_nor_importable_is_a_typed_error() -> None:
    for spec in ("no-such-desk", "no_such_module_here:TARGET", "json:dumps"):
        with pytest.raises(BadChaosTarget):
            load_target(spec)


def test_adopters_get_a_fixture_from_the_pytest_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_my_desk="""
        from turnframe.testing.chaos import ChaosTarget, Sabotage

        DESK = ChaosTarget.sample("refund-desk").with_conversations(
            [["Refund 20 euros on order 1001", "/click confirm", "Thanks!"]]
        )

        def test_my_desk_survives_chaos(turnframe_chaos):
            report = turnframe_chaos.run(DESK)
            assert report.runs == 6
            report.assert_ok()

        def test_a_broken_store_is_caught(turnframe_chaos):
            report = turnframe_chaos.run(DESK, runs=2, sabotage=Sabotage.DUPLICATE_EFFECT)
            assert not report.ok
        """
    )
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest("-p", "turnframe.testing.chaos", "--chaos-runs", "6", "-q")
    result.assert_outcomes(passed=2)
