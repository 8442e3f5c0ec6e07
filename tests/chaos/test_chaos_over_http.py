"""``turnframe chaos --transport http``: the provider faults travel over real HTTP, from the
fake provider server on 127.0.0.1 to the official openai and anthropic SDK adapters."""

from __future__ import annotations

import logging
import random

import anyio
import pytest

from turnframe.cli import main
from turnframe.providers.base import Purpose
from turnframe.testing.chaos import ChaosReport, ChaosTarget, Transport, chaos, chaos_async
from turnframe.testing.chaos.over_http import CHAOS_KEYS
from turnframe.testing.chaos.run import ChaosRunner
from turnframe.testing.chaos.schedule import PROVIDER_KINDS, FaultKind, ProviderFault

DESK = "refund-desk"
#: Every logger that could print a request or a response: ours, the SDKs', their HTTP
#: clients' (the SDKs ship their own httpx2 / httpcore2), the server's, the root.
LOGGERS = ("", "turnframe", "openai", "anthropic", "httpx2", "httpcore2", "httpx", "hypercorn")


def seed_striking_first(kind: FaultKind) -> int:
    """A seed whose only fault is ``kind`` on the run's first interpret request (which every
    run makes: its first line is something said), so the fault certainly strikes."""
    runner = ChaosRunner(ChaosTarget.sample(DESK))
    for seed in range(100_000):
        _, schedule = runner.schedule_for(seed)
        if list(schedule.faults) == [
            f
            for f in schedule.of_type(ProviderFault)
            if f.kind is kind and f.purpose is Purpose.INTERPRET and f.request == 1
        ] and schedule.faults:
            return seed
    raise AssertionError(f"no seed strikes {kind.value} first")  # pragma: no cover


SEEDS = {kind: seed_striking_first(kind) for kind in PROVIDER_KINDS}


def test_every_provider_fault_strikes_over_real_http_through_the_official_sdks_and_no_invariant_breaks(  # noqa: E501
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="openai")
    caplog.set_level(logging.DEBUG, logger="anthropic")
    fired: dict[str, int] = {}
    for kind, seed in SEEDS.items():
        report = chaos(ChaosTarget.sample(DESK), runs=1, seed=seed, transport=Transport.HTTP)
        report.assert_ok()
        fired[kind.value] = report.faults[kind.value]
    assert all(fired[kind.value] >= 1 for kind in PROVIDER_KINDS), fired
    heard = {record.name.split(".")[0] for record in caplog.records}
    assert {"openai", "anthropic"} <= heard  # the primary's SDK, and the fallback's
    assert any("HTTP Response" in record.getMessage() for record in caplog.records)


def test_over_http_on_trio_a_hanging_request_and_a_late_answer_break_no_invariant() -> None:
    async def play(kind: FaultKind) -> ChaosReport:
        target = ChaosTarget.sample(DESK)
        return await chaos_async(target, runs=1, seed=SEEDS[kind], transport=Transport.HTTP)

    for kind in (FaultKind.PROVIDER_TIMEOUT, FaultKind.PROVIDER_LATE_ANSWER):
        report = anyio.run(play, kind, backend="trio")
        report.assert_ok()
        assert report.faults[kind.value] == 1


def test_a_seed_plays_the_same_schedule_over_either_transport() -> None:
    target = ChaosTarget.sample(DESK)
    seed = random.Random(7).randrange(1000)
    in_process = ChaosRunner(target).schedule_for(seed)
    over_http = ChaosRunner(target, transport=Transport.HTTP).schedule_for(seed)
    assert in_process == over_http


def test_an_api_key_every_error_body_echoes_appears_in_no_chaos_output_or_debug_log(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name or None)
    echoing = (FaultKind.PROVIDER_RATE_LIMITED, FaultKind.PROVIDER_SERVER_ERROR)
    for kind in echoing:
        seed = str(SEEDS[kind])
        args = ["chaos", "--workflow", DESK, "--runs", "1", "--seed", seed, "--jobs", "1"]
        assert main([*args, "--transport", "http", "--json"]) == 0
        assert main([*args, "--transport", "http", "--plain"]) == 0
    # The runtime's own logs too (the command keeps them quiet), and a failing run's report.
    loud = chaos(
        ChaosTarget.sample(DESK), runs=1, seed=SEEDS[echoing[0]], transport=Transport.HTTP,
        quiet=False,
    )
    printed = capsys.readouterr()
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    logs = "\n".join(formatter.format(record) for record in caplog.records)
    # The error bodies were served (a 529 is OpenAI's 503 "overloaded" to the primary).
    assert "HTTP Response: POST 429" in logs and "HTTP Response: POST 503" in logs
    shown = printed.out + printed.err + logs + "\n".join(loud.describe_failures()) + repr(loud)
    for key in CHAOS_KEYS.values():
        assert key not in shown
