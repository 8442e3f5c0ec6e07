"""The shipped registry, built once for the corpora tests."""

from __future__ import annotations

import pytest

from turnframe.corpora import CorpusRegistry, default_registry


@pytest.fixture(scope="session")
def shipped() -> CorpusRegistry:
    return default_registry()
