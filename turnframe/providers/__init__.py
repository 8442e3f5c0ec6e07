"""Providers: the protocol, typed errors, the retry policy and the provider chain."""

from __future__ import annotations

from turnframe.providers.attempts import AttemptOutcome, AttemptStep, GateAnswer, ProviderAttempt
from turnframe.providers.base import (
    ChatMessage,
    Provider,
    ProviderAnswer,
    ProviderRequest,
    Purpose,
    RetryGate,
)
from turnframe.providers.chain import ChainAnswer, OnAttempt, ProviderChain, Sleep
from turnframe.providers.errors import (
    BadProviderResponse,
    ChainError,
    Classification,
    ContentFiltered,
    ContextOverflow,
    FatalProviderError,
    ModelNotFound,
    ProviderAuthFailed,
    ProviderBadRequest,
    ProviderError,
    ProviderRefused,
    ProvidersExhausted,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExhausted,
    RateLimited,
    RetryRefusedAfterSeal,
)
from turnframe.providers.policy import RetryPolicy

__all__ = [
    "AttemptOutcome",
    "AttemptStep",
    "BadProviderResponse",
    "ChainAnswer",
    "ChainError",
    "ChatMessage",
    "Classification",
    "ContentFiltered",
    "ContextOverflow",
    "FatalProviderError",
    "GateAnswer",
    "ModelNotFound",
    "OnAttempt",
    "Provider",
    "ProviderAnswer",
    "ProviderAttempt",
    "ProviderAuthFailed",
    "ProviderBadRequest",
    "ProviderChain",
    "ProviderError",
    "ProviderRefused",
    "ProviderRequest",
    "ProviderTimeout",
    "ProviderUnavailable",
    "ProvidersExhausted",
    "Purpose",
    "QuotaExhausted",
    "RateLimited",
    "RetryGate",
    "RetryPolicy",
    "RetryRefusedAfterSeal",
    "Sleep",
]
