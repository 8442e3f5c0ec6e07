"""The provider chain must hold on both anyio backends."""

from __future__ import annotations

import importlib.util

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# The HTTP providers need httpx (the openai / anthropic extras); without it their tests are not
# collected rather than failing on import.
collect_ignore = [] if importlib.util.find_spec("httpx") else ["test_http_providers.py"]
