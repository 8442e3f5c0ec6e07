"""A provider that answers at once is called in the caller's task, with every chain rule kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import pytest
from chain_support import PLAN, Harness, make_request, outcomes

from turnframe.providers import (
    AnswersAtOnce,
    AttemptStep,
    GateAnswer,
    MalformedAnswer,
    ProviderAnswer,
    ProviderRequest,
    RetryRefusedAfterSeal,
)
from turnframe.testing.scripted import Answer, Fail, ScriptedGate, ScriptedProvider

pytestmark = pytest.mark.anyio


class AtOnce:
    """Answers from a script without waiting; notes the task each answer was computed in."""

    context_budget_tokens = 8192

    def __init__(self, name: str, script: Sequence[str | Fail | Exception]) -> None:
        self.name = name
        self.script = list(script)
        self.tasks: list[int] = []
        self.awaited = 0

    def answer_now(self, request: ProviderRequest) -> ProviderAnswer:
        self.tasks.append(anyio.get_current_task().id)
        step = self.script.pop(0)
        if isinstance(step, Fail):
            raise step.error(self.name)
        if isinstance(step, Exception):
            raise step
        return ProviderAnswer(text=step)

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        self.awaited += 1
        return self.answer_now(request)


async def test_a_provider_that_answers_at_once_answers_in_the_callers_own_task() -> None:
    rules = AtOnce("rules", [PLAN])
    assert isinstance(rules, AnswersAtOnce)

    answer = await Harness([rules]).chain.complete(make_request(), gate=ScriptedGate())

    assert (answer.text, answer.provider) == (PLAN, "rules")
    assert rules.tasks == [anyio.get_current_task().id]
    assert rules.awaited == 0
    assert answer.attempts[0].gate is GateAnswer.NOT_ASKED


async def test_a_retryable_error_at_once_is_retried_only_after_the_gate_allows_it() -> None:
    rules = AtOnce("rules", [Fail(kind="retry"), PLAN])
    gate = ScriptedGate()

    answer = await Harness([rules]).chain.complete(make_request(), gate=gate)

    assert answer.text == PLAN
    assert [(a.step, a.gate) for a in answer.attempts] == [
        (AttemptStep.FIRST, GateAnswer.NOT_ASKED),
        (AttemptStep.RETRY, GateAnswer.ALLOWED),
    ]


async def test_a_sealed_turn_is_never_asked_again_of_a_provider_that_answers_at_once() -> None:
    rules = AtOnce("rules", [Fail(kind="retry"), PLAN])

    with pytest.raises(RetryRefusedAfterSeal):
        await Harness([rules]).chain.complete(make_request(), gate=ScriptedGate(sealed=True))

    assert rules.script == [PLAN]


async def test_a_malformed_answer_at_once_gets_its_repair_round_then_falls_back() -> None:
    rules = AtOnce("rules", ["not json", "still not json"])
    model = ScriptedProvider(name="model", script=[Answer(PLAN)])

    def check(text: str) -> None:
        if text != PLAN:
            raise MalformedAnswer("not a plan", answer=text, parse_error="not a plan")

    harness = Harness([rules, model])
    answer = await harness.chain.complete(make_request(), gate=ScriptedGate(), check=check)

    assert answer.provider == "model"
    assert [a.step for a in answer.attempts] == [
        AttemptStep.FIRST,
        AttemptStep.REPAIR,
        AttemptStep.FALLBACK,
    ]
    assert outcomes(answer.attempts)[-1] == ("model", "ok", None)


async def test_a_bug_in_a_provider_that_answers_at_once_is_raised_as_it_is() -> None:
    rules = AtOnce("rules", [KeyError("missing")])

    with pytest.raises(KeyError):
        await Harness([rules]).chain.complete(make_request(), gate=ScriptedGate())


def test_a_subclass_that_overrides_complete_is_awaited_not_answered_at_once() -> None:
    from turnframe.examples import sample
    from turnframe.providers.base import answers_at_once
    from turnframe.providers.rules import RulesProvider

    class Waiting(RulesProvider):
        async def complete(self, request: Any) -> Any:
            return await super().complete(request)

    workflows = [sample("travel-desk").workflow]
    assert answers_at_once(RulesProvider(workflows=workflows))
    assert not answers_at_once(Waiting(workflows=workflows))
    patched = RulesProvider(workflows=workflows)
    patched.complete = Waiting.complete.__get__(patched)  # type: ignore[method-assign]
    assert not answers_at_once(patched)
