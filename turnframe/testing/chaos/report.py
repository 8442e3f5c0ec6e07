"""Many runs, one report: the runs' faults and violations added up, the failing runs kept whole.

:func:`chaos_async` plays ``runs`` runs with the seeds ``seed``, ``seed + 1``, … (so each failing
one reproduces alone with ``runs=1`` and its own seed), a few at a time in one event loop.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import anyio
import attrs

from turnframe.testing.chaos.checks import INVARIANTS
from turnframe.testing.chaos.over_http import Transport
from turnframe.testing.chaos.run import ChaosRunner, RunResult
from turnframe.testing.chaos.sabotage import Sabotage
from turnframe.testing.chaos.schedule import FaultKind
from turnframe.testing.chaos.target import ChaosTarget

OnRun = Callable[[RunResult], None]


@attrs.frozen(kw_only=True)
class ChaosReport:
    """What ``runs`` runs found: totals per invariant and per fault kind, and every failing run
    (with the seed that reproduces it alone)."""

    workflow: str
    runs: int
    seed: int
    sabotage: Sabotage | None
    violations_by_invariant: dict[str, int]
    faults: dict[str, int]
    failing: tuple[RunResult, ...]
    seconds: float

    @property
    def violations(self) -> int:
        return sum(self.violations_by_invariant.values())

    @property
    def ok(self) -> bool:
        return self.violations == 0

    @property
    def failing_seeds(self) -> list[int]:
        return [r.seed for r in self.failing]

    def summary(self) -> dict[str, Any]:
        """The documented JSON summary (``turnframe chaos --json``'s last line)."""
        return {
            "runs": self.runs,
            "violations": self.violations,
            "faults": dict(self.faults),
            "failing_seeds": self.failing_seeds,
        }

    def describe_failures(self, *, limit: int = 20) -> list[str]:
        """Each failing run: its seed, its faults and what broke (the first ``limit``)."""
        lines: list[str] = []
        for result in self.failing[:limit]:
            lines.append(f"seed {result.seed} (conversation {result.conversation}):")
            lines += [f"  fault: {f}" for f in result.schedule.describe()]
            lines += [f"  VIOLATION {v.invariant}: {v.detail}" for v in result.violations]
        if len(self.failing) > limit:
            lines.append(f"… and {len(self.failing) - limit} more failing run(s)")
        return lines

    @classmethod
    def merge(cls, parts: Sequence[ChaosReport], *, seconds: float) -> ChaosReport:
        """One report of several played apart (e.g. in worker processes), seeds in order."""
        if not parts:
            raise ValueError("nothing to merge")
        by_invariant: Counter[str] = Counter()
        faults: Counter[str] = Counter()
        for part in parts:
            by_invariant.update(part.violations_by_invariant)
            faults.update(part.faults)
        failing = sorted((r for part in parts for r in part.failing), key=lambda r: r.seed)
        return cls(
            workflow=parts[0].workflow,
            runs=sum(p.runs for p in parts),
            seed=min(p.seed for p in parts),
            sabotage=parts[0].sabotage,
            violations_by_invariant=dict(by_invariant),
            faults=dict(faults),
            failing=tuple(failing),
            seconds=seconds,
        )

    def assert_ok(self) -> None:
        """Raise ``AssertionError`` naming every failing seed and what broke."""
        if not self.ok:
            raise AssertionError(
                f"chaos on {self.workflow}: {self.violations} violation(s) in "
                f"{len(self.failing)} of {self.runs} run(s)\n" + "\n".join(self.describe_failures())
            )


@contextlib.contextmanager
def quiet_runtime_logs() -> Iterator[None]:
    """The faults are deliberate: what the runtime logs about them is not news in a chaos run
    (the report says what matters). Restores the ``turnframe`` logger afterwards."""
    logger = logging.getLogger("turnframe")
    handler = logging.NullHandler()
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


async def chaos_async(
    target: ChaosTarget,
    *,
    runs: int,
    seed: int = 0,
    sabotage: Sabotage | None = None,
    concurrency: int = 2,
    on_run: OnRun | None = None,
    quiet: bool = True,
    transport: Transport = Transport.IN_PROCESS,
) -> ChaosReport:
    """Play ``runs`` runs of ``target`` (``concurrency`` at a time; each run is independent).
    ``quiet`` keeps the runtime's logs about the injected faults out of the way.
    ``transport=Transport.HTTP`` brings the provider faults over real HTTP, from the fake
    provider server to the official SDK adapters."""
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    runner = ChaosRunner(target, sabotage=sabotage, transport=transport)
    with quiet_runtime_logs() if quiet else contextlib.nullcontext():
        async with runner.serving(concurrency=max(1, min(concurrency, runs))):
            return await _play(runner, runs, seed, concurrency, on_run)


async def _play(
    runner: ChaosRunner, runs: int, seed: int, concurrency: int, on_run: OnRun | None
) -> ChaosReport:
    target, sabotage = runner.target, runner.sabotage
    started = time.perf_counter()
    faults: Counter[str] = Counter({k.value: 0 for k in FaultKind})
    by_invariant: Counter[str] = Counter({name: 0 for name in INVARIANTS})
    failing: list[RunResult] = []
    seeds = iter(range(seed, seed + runs))

    async def worker() -> None:
        for run_seed in seeds:
            result = await runner.run(run_seed)
            faults.update(result.fired)
            by_invariant.update(v.invariant for v in result.violations)
            if not result.ok:
                failing.append(result)
            if on_run is not None:
                on_run(result)

    async with anyio.create_task_group() as tg:
        for _ in range(max(1, min(concurrency, runs))):
            tg.start_soon(worker)
    return ChaosReport(
        workflow=target.name,
        runs=runs,
        seed=seed,
        sabotage=sabotage,
        violations_by_invariant=dict(by_invariant),
        faults=dict(faults),
        failing=tuple(sorted(failing, key=lambda r: r.seed)),
        seconds=time.perf_counter() - started,
    )


def chaos(
    target: ChaosTarget,
    *,
    runs: int,
    seed: int = 0,
    sabotage: Sabotage | None = None,
    concurrency: int = 2,
    on_run: OnRun | None = None,
    quiet: bool = True,
    transport: Transport = Transport.IN_PROCESS,
) -> ChaosReport:
    """:func:`chaos_async` from synchronous code (its own event loop)."""
    report: ChaosReport = anyio.run(
        lambda: chaos_async(
            target,
            runs=runs,
            seed=seed,
            sabotage=sabotage,
            concurrency=concurrency,
            on_run=on_run,
            quiet=quiet,
            transport=transport,
        )
    )
    return report


__all__ = ["ChaosReport", "chaos", "chaos_async"]
