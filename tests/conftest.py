"""Shared fixtures.

Async tests use anyio's pytest plugin (``@pytest.mark.anyio``). By default they run on asyncio;
a module that must hold on both backends sets ``pytestmark = pytest.mark.parametrize(
"anyio_backend", ["asyncio", "trio"])`` or uses the ``both_backends`` marker below.
"""

from __future__ import annotations

import pytest

#: ``pytester`` runs an adopter's test file with the chaos plugin (tests/chaos).
pytest_plugins = ["pytester"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
