"""Builders shared by the provider tests (imported as a plain module)."""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.providers import (
    Provider,
    ProviderAttempt,
    ProviderChain,
    ProviderRequest,
    Purpose,
    RetryPolicy,
)
from turnframe.testing.scripted import ManualDeadline, RecordedSleep

PLAN = '{"acts": []}'


def make_request(purpose: Purpose = Purpose.INTERPRET, turn_id: str = "turn-1") -> ProviderRequest:
    return ProviderRequest.from_text(
        purpose=purpose,
        turn_id=turn_id,
        correlation_id="corr-1",
        system="You interpret one user turn as a plan.",
        user="Change the travel date to Friday.",
        answer_schema={"type": "object"},
        template_hash="template-hash",
        reference_digests={"roster": "roster-digest"},
    )


class Harness:
    """A chain on virtual time, with every attempt the callback saw."""

    def __init__(self, providers: Sequence[Provider], policy: RetryPolicy | None = None) -> None:
        self.sleep = RecordedSleep()
        self.deadline = ManualDeadline()
        self.seen: list[ProviderAttempt] = []
        self.chain = ProviderChain(
            providers,
            policy=policy or RetryPolicy(backoff_initial=1.0, backoff_max=4.0),
            sleep=self.sleep,
            deadline=self.deadline,
        )

    async def record(self, attempt: ProviderAttempt) -> None:
        self.seen.append(attempt)


def outcomes(attempts: Sequence[ProviderAttempt]) -> list[tuple[str, str, str | None]]:
    """(provider, outcome, error code) per attempt, the shape most assertions read best in."""
    return [(a.provider, a.outcome.value, a.error_code) for a in attempts]
