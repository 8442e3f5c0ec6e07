"""Worker processes need asyncio (the PostgreSQL store) in the test process too."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
