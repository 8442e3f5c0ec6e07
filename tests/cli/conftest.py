"""Fixtures of the command-line tests: they run ``python -m turnframe`` as a subprocess."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: builds a fresh virtual environment; runs only with TURNFRAME_SLOW_TESTS=1"
    )
