"""Providers: the protocol, typed errors, the retry policy and the provider chain."""

from __future__ import annotations

from turnframe.providers.attempts import AttemptOutcome, AttemptStep, GateAnswer, ProviderAttempt
from turnframe.providers.base import (
    AnswersAtOnce,
    ChatMessage,
    HoldsSecrets,
    Provider,
    ProviderAnswer,
    ProviderRequest,
    Purpose,
    RetryGate,
)
from turnframe.providers.chain import AnswerCheck, ChainAnswer, OnAttempt, ProviderChain, Sleep
from turnframe.providers.errors import (
    BadProviderResponse,
    ChainError,
    Classification,
    ContentFiltered,
    ContextOverflow,
    FatalProviderError,
    MalformedAnswer,
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
from turnframe.providers.redaction import Redactor, redact

__all__ = [
    "AnswerCheck",
    "AnswersAtOnce",
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
    "HoldsSecrets",
    "MalformedAnswer",
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
    "Redactor",
    "RetryGate",
    "RetryPolicy",
    "RetryRefusedAfterSeal",
    "Sleep",
    "redact",
]
