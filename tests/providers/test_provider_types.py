"""Requests, records, errors and policies: values with stable shapes."""

from __future__ import annotations

import pytest
from chain_support import make_request

from turnframe._converter import structure, unstructure
from turnframe.errors import ConfigError
from turnframe.providers import (
    AttemptOutcome,
    AttemptStep,
    BadProviderResponse,
    Classification,
    ContentFiltered,
    ContextOverflow,
    GateAnswer,
    ModelNotFound,
    ProviderAttempt,
    ProviderAuthFailed,
    ProviderBadRequest,
    ProviderChain,
    ProviderError,
    ProviderRefused,
    ProviderRequest,
    ProviderTimeout,
    ProviderUnavailable,
    Purpose,
    QuotaExhausted,
    RateLimited,
    RetryPolicy,
)
from turnframe.testing.scripted import ScriptedProvider


def test_a_provider_request_round_trips_through_the_one_converter() -> None:
    request = make_request()

    assert structure(unstructure(request), ProviderRequest) == request


def test_a_provider_attempt_round_trips_through_the_one_converter() -> None:
    attempt = ProviderAttempt(
        number=2,
        provider="primary",
        provider_attempt=2,
        purpose=Purpose.INTERPRET,
        turn_id="t",
        correlation_id="c",
        request_digest="d",
        step=AttemptStep.RETRY,
        gate=GateAnswer.ALLOWED,
        outcome=AttemptOutcome.ERROR,
        error_code="turnframe.provider.rate_limited",
        classification=Classification.RETRY_AFTER,
        retry_after=2.0,
    )

    data = unstructure(attempt)

    assert data["outcome"] == "error"
    assert structure(data, ProviderAttempt) == attempt


def test_the_same_request_always_has_the_same_digest() -> None:
    assert make_request().digest() == make_request().digest()
    assert make_request().digest() != make_request(turn_id="turn-2").digest()


def test_a_request_needs_at_least_one_message() -> None:
    with pytest.raises(ValueError, match="messages"):
        ProviderRequest(
            purpose=Purpose.INTERPRET,
            turn_id="t",
            correlation_id="c",
            system="s",
            messages=(),
            answer_schema={},
            template_hash="h",
        )


@pytest.mark.parametrize(
    ("error", "classification"),
    [
        (ProviderRefused, Classification.FATAL),
        (ContentFiltered, Classification.FATAL),
        (ContextOverflow, Classification.FATAL),
        (RateLimited, Classification.RETRY_AFTER),
        (ProviderUnavailable, Classification.RETRY),
        (ProviderTimeout, Classification.RETRY),
        (ProviderAuthFailed, Classification.FALLBACK),
        (ModelNotFound, Classification.FALLBACK),
        (BadProviderResponse, Classification.FALLBACK),
        (ProviderBadRequest, Classification.FALLBACK),
        (QuotaExhausted, Classification.FALLBACK),
    ],
)
def test_each_provider_error_has_its_documented_classification(
    error: type[ProviderError], classification: Classification
) -> None:
    assert error.classification is classification
    assert error.code.startswith("turnframe.provider.")


def test_a_chain_refuses_two_providers_with_the_same_name() -> None:
    with pytest.raises(ConfigError, match="unique"):
        ProviderChain([ScriptedProvider(name="p"), ScriptedProvider(name="p")])


def test_the_conservative_policy_sends_three_times_per_provider_with_capped_backoff() -> None:
    policy = RetryPolicy.conservative()

    assert (policy.attempts_per_provider, policy.backoff_max) == (3, 8.0)
