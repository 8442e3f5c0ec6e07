"""The provider protocol: what a model (or any interpreter) is asked and what it answers.

The provider layer deals in requests and raw answers (strings). Parsing an answer into a plan is
the interpreter's job; deciding whether to retry or fall back is :mod:`turnframe.providers.chain`'s.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from turnframe._hashing import digest


class Purpose(enum.StrEnum):
    """Why a provider is asked: to interpret a user's turn, or to narrate the response."""

    INTERPRET = "interpret"
    NARRATE = "narrate"


def _non_empty(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not value:
        raise ValueError(f"{attribute.name} must not be empty")


@attrs.frozen(kw_only=True)
class ChatMessage:
    """One message of the conversation shown to the provider (the system prompt is separate)."""

    role: Literal["user", "assistant"] = attrs.field(
        validator=attrs.validators.in_(("user", "assistant"))
    )
    content: str


#: How much of a malformed answer a repair request quotes back to the model.
REPAIR_QUOTE_LIMIT = 4000


def _messages(value: Iterable[ChatMessage]) -> tuple[ChatMessage, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class ProviderRequest:
    """One question to a provider, with what the replay record needs to explain it later.

    ``answer_schema`` is the JSON schema the answer must follow; treat it as read-only.
    ``template_hash`` and ``reference_digests`` (reference slot name to digest) identify the
    prompt template and the reference material without storing them again.
    """

    purpose: Purpose = attrs.field(converter=Purpose)
    turn_id: str = attrs.field(validator=_non_empty)
    correlation_id: str = attrs.field(validator=_non_empty)
    system: str
    messages: tuple[ChatMessage, ...] = attrs.field(converter=_messages)
    answer_schema: dict[str, Any]
    template_hash: str
    reference_digests: dict[str, str] = attrs.field(factory=dict)
    max_answer_tokens: int = attrs.field(default=2048, validator=attrs.validators.gt(0))

    @messages.validator
    def _check_messages(self, _: attrs.Attribute[Any], value: tuple[ChatMessage, ...]) -> None:
        if not value:
            raise ValueError("messages must hold at least the user's message")

    @classmethod
    def from_text(
        cls,
        *,
        purpose: Purpose,
        turn_id: str,
        correlation_id: str,
        system: str,
        user: str,
        answer_schema: dict[str, Any],
        template_hash: str,
        reference_digests: dict[str, str] | None = None,
    ) -> ProviderRequest:
        """A request whose prompt is one system text and one user text."""
        return cls(
            purpose=purpose,
            turn_id=turn_id,
            correlation_id=correlation_id,
            system=system,
            messages=(ChatMessage(role="user", content=user),),
            answer_schema=answer_schema,
            template_hash=template_hash,
            reference_digests=dict(reference_digests or {}),
        )

    def repaired(self, answer: str, problem: str) -> ProviderRequest:
        """This request again, with the malformed ``answer`` and what is wrong with it quoted
        back to the model (the answer cut at :data:`REPAIR_QUOTE_LIMIT` characters)."""
        quoted = answer if len(answer) <= REPAIR_QUOTE_LIMIT else answer[:REPAIR_QUOTE_LIMIT]
        if len(quoted) < len(answer):
            quoted += " [the rest of the answer is cut here]"
        ask = (
            f"That answer could not be used: {problem}. Answer again with only the JSON the "
            "schema asks for, and nothing else."
        )
        return attrs.evolve(
            self,
            messages=(
                *self.messages,
                ChatMessage(role="assistant", content=quoted if quoted.strip() else "(empty)"),
                ChatMessage(role="user", content=ask),
            ),
        )

    def digest(self) -> str:
        """A stable digest of the whole request: the same request always has the same digest."""
        # The same mapping the converter makes of this class, built directly: it is hashed on
        # every provider call.
        return digest(
            "provider.request",
            {
                "purpose": self.purpose.value,
                "turn_id": self.turn_id,
                "correlation_id": self.correlation_id,
                "system": self.system,
                "messages": [{"role": m.role, "content": m.content} for m in self.messages],
                "answer_schema": self.answer_schema,
                "template_hash": self.template_hash,
                "reference_digests": self.reference_digests,
                "max_answer_tokens": self.max_answer_tokens,
            },
        )


@attrs.frozen(kw_only=True)
class ProviderAnswer:
    """A provider's raw answer: text that should follow the request's schema (not yet parsed)."""

    text: str
    model: str | None = None


class Provider(Protocol):
    """Anything that can answer a :class:`ProviderRequest`.

    A provider raises a :class:`~turnframe.providers.errors.ProviderError` subclass for every
    failure it can classify; any other exception is treated as a bug and propagates.
    ``context_budget_tokens`` is the prompt size the provider accepts; the prompt builder fits
    references into it.
    """

    @property
    def name(self) -> str: ...

    @property
    def context_budget_tokens(self) -> int: ...

    async def complete(self, request: ProviderRequest) -> ProviderAnswer: ...


@runtime_checkable
class AnswersAtOnce(Protocol):
    """A provider whose answer needs no waiting (it computes it; it sends nothing anywhere).

    The chain calls :meth:`answer_now` in the caller's task instead of sending ``complete`` in
    a task of its own under the attempt deadline: a synchronous call cannot be interrupted by a
    deadline anyway, and it cannot answer late. Its errors are classified as ``complete``'s
    would be. ``complete`` must give the same answer (other callers await it).
    """

    def answer_now(self, request: ProviderRequest) -> ProviderAnswer: ...


def answers_at_once(provider: object) -> bool:
    """Whether the chain may call ``provider.answer_now`` instead of awaiting ``complete``: it
    is an :class:`AnswersAtOnce`, and its ``complete`` is not overridden below the class that
    defines ``answer_now`` (a subclass, or an instance, that replaces ``complete`` with one that
    waits is awaited as written)."""
    if not isinstance(provider, AnswersAtOnce) or "complete" in getattr(provider, "__dict__", {}):
        return False
    mro = type(provider).__mro__
    owner_now = next(c for c in mro if "answer_now" in vars(c))
    owner_complete = next((c for c in mro if "complete" in vars(c)), None)
    return owner_complete is None or issubclass(owner_now, owner_complete)


@runtime_checkable
class HoldsSecrets(Protocol):
    """A provider that knows its secrets (API keys): the chain redacts them from every word of
    a provider it keeps."""

    @property
    def secrets(self) -> tuple[str, ...]: ...


class RetryGate(Protocol):
    """The authority on retries (the ExecutionGate): may this turn be asked again?

    Asked before every retry and every fallback, never before the first attempt. It answers
    False for interpretation once the turn is sealed; narration may always be retried.
    """

    async def may_retry(self, turn_id: str, purpose: Purpose) -> bool: ...
