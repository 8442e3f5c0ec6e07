"""Builders for the SDK adapters against the fake provider server (imported as a plain module)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio

from turnframe.providers import ProviderAnswer, ProviderRequest
from turnframe.providers.anthropic import AnthropicProvider
from turnframe.providers.openai_compat import OpenAICompatProvider
from turnframe.testing.fake_provider import FakeProviderServer, Step

Vendor = Literal["openai", "anthropic"]
VENDORS: tuple[Vendor, ...] = ("openai", "anthropic")
OPENAI_KEY = "sk-proj-T3stKey0penAI7fQ2mZx9"
ANTHROPIC_KEY = "sk-ant-api03-T3stKeyAnthr0pic5vR1"

SdkProvider = OpenAICompatProvider | AnthropicProvider


def provider_at(
    vendor: Vendor, server: FakeProviderServer, *, name: str = "primary", **options: Any
) -> SdkProvider:
    """The vendor's adapter pointed at ``server``."""
    if vendor == "openai":
        return OpenAICompatProvider(
            name=name,
            model="gpt-test",
            api_key=OPENAI_KEY,
            base_url=server.openai_base_url,
            **options,
        )
    return AnthropicProvider(
        name=name,
        model="claude-test",
        api_key=ANTHROPIC_KEY,
        base_url=server.anthropic_base_url,
        **options,
    )


@asynccontextmanager
async def adapter_on_fake(
    vendor: Vendor, *steps: Step, **options: Any
) -> AsyncIterator[tuple[FakeProviderServer, SdkProvider]]:
    """A fake server scripted with ``steps`` and the vendor's adapter ("primary") pointed at it."""
    async with (
        FakeProviderServer(*steps) as server,
        provider_at(vendor, server, **options) as provider,
    ):
        yield server, provider


class Observed:
    """A provider wrapper that tells the test when an answer (or failure) came back."""

    def __init__(self, provider: SdkProvider) -> None:
        self.provider = provider
        self.returned = anyio.Event()

    @property
    def name(self) -> str:
        return self.provider.name

    @property
    def context_budget_tokens(self) -> int:
        return self.provider.context_budget_tokens

    @property
    def secrets(self) -> tuple[str, ...]:
        return self.provider.secrets

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        try:
            return await self.provider.complete(request)
        finally:
            self.returned.set()
