"""The interpreter tests read turns on asyncio only: the rules provider is pure, and the
pipeline's tests hold the runtime on both backends. Module-scoped, so a module may share one
played corpus between its tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"
