"""The pytest plugin: ``pytest -p turnframe.testing.chaos`` (or ``pytest_plugins =
["turnframe.testing.chaos"]`` in a conftest) gives every test the ``turnframe_chaos`` fixture::

    def test_my_desk_survives_chaos(turnframe_chaos):
        turnframe_chaos.run(MY_TARGET).assert_ok()

``--chaos-runs N`` (default 50) and ``--chaos-seed S`` (default 0) set how many runs a test plays
and from which seed, so CI can play many more than a laptop; a failure names every failing seed,
and ``--chaos-runs 1 --chaos-seed S`` replays one.
"""

from __future__ import annotations

import attrs
import pytest

from turnframe.testing.chaos.over_http import Transport
from turnframe.testing.chaos.report import ChaosReport, chaos, chaos_async
from turnframe.testing.chaos.sabotage import Sabotage
from turnframe.testing.chaos.target import ChaosTarget


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("turnframe-chaos", "turnframe chaos runs")
    group.addoption(
        "--chaos-runs", type=int, default=50, help="runs each chaos test plays (default 50)"
    )
    group.addoption("--chaos-seed", type=int, default=0, help="the first run's seed (default 0)")


@attrs.frozen(kw_only=True)
class ChaosFixture:
    """Plays chaos runs with the session's ``--chaos-runs`` and ``--chaos-seed``."""

    runs: int
    seed: int

    def run(
        self,
        target: ChaosTarget,
        *,
        runs: int | None = None,
        seed: int | None = None,
        sabotage: Sabotage | None = None,
        transport: Transport = Transport.IN_PROCESS,
    ) -> ChaosReport:
        """From a synchronous test. ``transport=Transport.HTTP``: the provider faults over
        real HTTP to the official SDK adapters."""
        return chaos(
            target,
            runs=self.runs if runs is None else runs,
            seed=self.seed if seed is None else seed,
            sabotage=sabotage,
            transport=transport,
        )

    async def run_async(
        self,
        target: ChaosTarget,
        *,
        runs: int | None = None,
        seed: int | None = None,
        sabotage: Sabotage | None = None,
        transport: Transport = Transport.IN_PROCESS,
    ) -> ChaosReport:
        """From an async test (``pytest.mark.anyio``)."""
        return await chaos_async(
            target,
            runs=self.runs if runs is None else runs,
            seed=self.seed if seed is None else seed,
            sabotage=sabotage,
            transport=transport,
        )


@pytest.fixture
def turnframe_chaos(request: pytest.FixtureRequest) -> ChaosFixture:
    """Run a :class:`~turnframe.testing.chaos.ChaosTarget` under random fault schedules."""
    return ChaosFixture(
        runs=int(request.config.getoption("--chaos-runs", default=50)),
        seed=int(request.config.getoption("--chaos-seed", default=0)),
    )


__all__ = ["ChaosFixture", "pytest_addoption", "turnframe_chaos"]
