"""Typed provider errors, each with the classification that tells the chain what to do next.

=================  =====================  ==================================================
classification     errors                 what the chain does
=================  =====================  ==================================================
``fatal``          refused, content       stops: never retried, never sent to a fallback
                   filtered, context
                   overflow
``retry_after``    rate limited           waits the asked delay, then retries the same
                                          provider (a delay above the policy's cap falls back)
``retry``          unavailable, timeout   retries the same provider a bounded number of
                                          times, then falls back
``fallback``       auth failed, model     moves to the next provider at once (a malformed
                   not found, bad         answer first gets one repair round on the same
                   request or response,   provider)
                   malformed answer,
                   quota exhausted
=================  =====================  ==================================================

Every retry and fallback is first allowed by the gate. The chain's own errors (the outcome of a
whole call) carry every attempt made, so the replay record is complete even on failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from turnframe.errors import TurnframeError
from turnframe.providers.attempts import ProviderAttempt
from turnframe.providers.classification import Classification as Classification

#: Recorded when the chain stopped waiting for a provider (not an error a provider raises).
TIMED_OUT_CODE = "turnframe.provider.timed_out"
#: Recorded for a late failure that was not a ProviderError (a bug in the provider).
UNEXPECTED_CODE = "turnframe.provider.unexpected_error"


class ProviderError(TurnframeError):
    """A failure a provider could classify. ``retry_after`` is the delay it asked for, if any."""

    code: ClassVar[str] = "turnframe.provider.error"
    classification: ClassVar[Classification] = Classification.FALLBACK

    def __init__(
        self, message: str, *, hint: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class ProviderRefused(ProviderError):
    """The model declined to answer. Another provider must not be asked the same thing."""

    code = "turnframe.provider.refused"
    classification = Classification.FATAL


class ContentFiltered(ProviderError):
    """The provider's content filter stopped the answer."""

    code = "turnframe.provider.content_filtered"
    classification = Classification.FATAL


class ContextOverflow(ProviderError):
    """The prompt does not fit the model's context; shrink references or the thread."""

    code = "turnframe.provider.context_overflow"
    classification = Classification.FATAL


class RateLimited(ProviderError):
    """Too many requests; ``retry_after`` says how long the provider asked us to wait."""

    code = "turnframe.provider.rate_limited"
    classification = Classification.RETRY_AFTER


class ProviderUnavailable(ProviderError):
    """A transient server or connection failure."""

    code = "turnframe.provider.unavailable"
    classification = Classification.RETRY


class ProviderTimeout(ProviderError):
    """The provider (or its transport) reported that it timed out."""

    code = "turnframe.provider.timeout"
    classification = Classification.RETRY


class ProviderAuthFailed(ProviderError):
    """The credentials were refused; check the provider's API key."""

    code = "turnframe.provider.auth_failed"
    classification = Classification.FALLBACK


class ModelNotFound(ProviderError):
    """The configured model does not exist at this provider."""

    code = "turnframe.provider.model_not_found"
    classification = Classification.FALLBACK


class BadProviderResponse(ProviderError):
    """The provider answered something that is not a usable answer (protocol-level)."""

    code = "turnframe.provider.bad_response"
    classification = Classification.FALLBACK


class MalformedAnswer(BadProviderResponse):
    """The model's answer is not what the schema asked for (not JSON, or the wrong shape).

    The chain gives the same provider one repair round first: the request again, with the bad
    answer and ``parse_error`` quoted back to the model; a second malformed answer falls back.
    ``answer`` is the raw answer (never stored: only ``parse_error`` is in the message).
    """

    code = "turnframe.provider.malformed_answer"
    classification = Classification.FALLBACK

    def __init__(self, message: str, *, answer: str, parse_error: str) -> None:
        super().__init__(message, hint="the chain asks the model once to repair its answer")
        self.answer = answer
        self.parse_error = parse_error


class ProviderBadRequest(ProviderError):
    """The provider rejected the request as malformed; another provider may accept it."""

    code = "turnframe.provider.bad_request"
    classification = Classification.FALLBACK


class QuotaExhausted(ProviderError):
    """The account's quota or credit is used up: waiting will not help, another provider may."""

    code = "turnframe.provider.quota_exhausted"
    classification = Classification.FALLBACK


class ChainError(TurnframeError):
    """A provider chain call failed; ``attempts`` holds every attempt made, in order."""

    code: ClassVar[str] = "turnframe.provider_chain.failed"

    def __init__(
        self, message: str, *, attempts: Sequence[ProviderAttempt], hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.attempts: tuple[ProviderAttempt, ...] = tuple(attempts)


class FatalProviderError(ChainError):
    """A provider failed in a way no retry or fallback may repair (``cause`` says which)."""

    code = "turnframe.provider_chain.fatal"

    def __init__(
        self,
        cause: ProviderError,
        *,
        attempts: Sequence[ProviderAttempt],
        detail: str | None = None,
    ) -> None:
        """``detail`` replaces the cause's message in ours (the chain passes it redacted)."""
        words = cause.message if detail is None else detail
        super().__init__(
            f"provider failed fatally ({cause.code}): {words}",
            attempts=attempts,
            hint="a refusal, content filter or context overflow is not retried anywhere",
        )
        self.cause = cause


class RetryRefusedAfterSeal(ChainError):
    """The gate refused a retry or fallback: the turn is sealed."""

    code = "turnframe.provider_chain.refused_after_seal"

    def __init__(self, turn_id: str, *, attempts: Sequence[ProviderAttempt]) -> None:
        super().__init__(
            f"turn {turn_id} is sealed: the gate refused another provider attempt",
            attempts=attempts,
            hint="resume the turn's commands by idempotency key; never re-interpret it",
        )
        self.turn_id = turn_id


class ProvidersExhausted(ChainError):
    """Every provider failed or timed out; ``last_error`` is the last classified failure."""

    code = "turnframe.provider_chain.exhausted"

    def __init__(
        self, *, attempts: Sequence[ProviderAttempt], last_error: ProviderError | None
    ) -> None:
        reason = f" (last: {last_error.code})" if last_error is not None else ""
        super().__init__(
            f"no provider answered after {len(attempts)} attempt(s){reason}",
            attempts=attempts,
            hint="check the providers' health, or add a fallback provider to the chain",
        )
        self.last_error = last_error
