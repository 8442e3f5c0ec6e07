"""Shared fixtures.

Async tests use anyio's pytest plugin (``@pytest.mark.anyio``). By default they run on asyncio;
a module that must hold on both backends sets ``pytestmark = pytest.mark.parametrize(
"anyio_backend", ["asyncio", "trio"])`` or uses the ``both_backends`` marker below.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
