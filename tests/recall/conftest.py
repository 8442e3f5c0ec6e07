"""Recall tests: runtime tests take a (store, backend) pair from ``recall_kit.STORES``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from recall_kit import STORES, real_store

from turnframe.stores import Store


@pytest.fixture(params=STORES)
def store_and_backend(request: pytest.FixtureRequest) -> tuple[str, str]:
    value: tuple[str, str] = request.param
    return value


@pytest.fixture
def anyio_backend(store_and_backend: tuple[str, str]) -> str:
    return store_and_backend[1]


@pytest.fixture
async def store(store_and_backend: tuple[str, str], tmp_path: Path) -> AsyncIterator[Store]:
    async with real_store(store_and_backend[0], tmp_path) as opened:
        yield opened
