"""Chaos-test a workflow: play its conversations under random fault schedules and check, after
each run, that every turn ended once with its effects once (docs/chaos.md)::

    from turnframe.testing.chaos import ChaosTarget, chaos

    report = chaos(ChaosTarget.sample("refund-desk"), runs=200, seed=1)
    report.assert_ok()

The same from the command line (``turnframe chaos --workflow W --runs N --seed S``) and in
pytest (``pytest -p turnframe.testing.chaos``: the ``turnframe_chaos`` fixture).
``transport=Transport.HTTP`` (``--transport http``) brings the provider faults over real HTTP
to the official SDK adapters.
"""

from __future__ import annotations

import sys

from turnframe.testing.chaos.checks import INVARIANTS
from turnframe.testing.chaos.injectors import Violation
from turnframe.testing.chaos.over_http import Transport
from turnframe.testing.chaos.report import ChaosReport, chaos, chaos_async
from turnframe.testing.chaos.run import ChaosRunner, RunResult
from turnframe.testing.chaos.sabotage import Sabotage
from turnframe.testing.chaos.schedule import FaultKind, Schedule
from turnframe.testing.chaos.target import (
    BadChaosTarget,
    ChaosTarget,
    load_target,
    read_corpus,
)

if "pytest" in sys.modules:  # loaded by pytest (-p turnframe.testing.chaos): the plugin too
    from turnframe.testing.chaos.plugin import (  # noqa: F401
        pytest_addoption,
        turnframe_chaos,
    )

__all__ = [
    "INVARIANTS",
    "BadChaosTarget",
    "ChaosReport",
    "ChaosRunner",
    "ChaosTarget",
    "FaultKind",
    "RunResult",
    "Sabotage",
    "Schedule",
    "Transport",
    "Violation",
    "chaos",
    "chaos_async",
    "load_target",
    "read_corpus",
]
