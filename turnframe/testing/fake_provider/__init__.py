"""A fake model provider for tests: real HTTP on 127.0.0.1 speaking the OpenAI chat-completions
and Anthropic Messages wire formats, with scripted answers and faults per request.

Needs the ``fake-provider`` extra (hypercorn, starlette, pydantic). See ``docs/providers.md``.
"""

from __future__ import annotations

from turnframe.testing.fake_provider.server import FakeProviderServer, ReceivedRequest
from turnframe.testing.fake_provider.steps import (
    PARTIAL_PLAN,
    Answer,
    ApiError,
    DropMidBody,
    ErrorKind,
    ErrorPage,
    FilterContent,
    Hang,
    MalformedBody,
    RawReply,
    Refuse,
    Step,
    Truncate,
)

__all__ = [
    "PARTIAL_PLAN",
    "Answer",
    "ApiError",
    "DropMidBody",
    "ErrorKind",
    "ErrorPage",
    "FakeProviderServer",
    "FilterContent",
    "Hang",
    "MalformedBody",
    "RawReply",
    "ReceivedRequest",
    "Refuse",
    "Step",
    "Truncate",
]
