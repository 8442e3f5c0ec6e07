"""The InterpreterActor: builds the interpretation request, asks the provider chain, parses the
answer strictly. Every retry and fallback first asks the ExecutionGate (through the chain's
``RetryGate``), so a sealed turn is never interpreted again.

The strict parse is the chain's answer check: an answer that is not a valid plan (not JSON, or
JSON that breaks the plan's rules) gets the repair round on the same provider, with the parse
errors quoted back, then falls back. When no provider gives a valid plan the turn fails as a
rejected plan, with the last answer (redacted) and its problems in the replay record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe._strict import storable_text
from turnframe.actors.actor import Actor, handler
from turnframe.actors.ref import ActorRef
from turnframe.actors.stages import Interpret, Interpretation, MayRetry
from turnframe.errors import TurnframeError
from turnframe.messages import UserTurn
from turnframe.pipeline.interpretation import InterpretSetup, relatedness_warnings
from turnframe.plan import Act, PlanRejected, UserTurnPlan, parse_plan
from turnframe.providers.attempts import ProviderAttempt
from turnframe.providers.base import ProviderRequest, Purpose
from turnframe.providers.chain import ProviderChain
from turnframe.providers.errors import ChainError, MalformedAnswer, ProvidersExhausted
from turnframe.references import (
    ContextBudgetExceededError,
    check_every_budget,
    reference_record,
)
from turnframe.workflow import Workflow

#: How a model answers recall (docs/recall.md): what the schema tells it about the recall act.
RECALL_ACT_DESCRIPTION = (
    "A vague reference to an earlier conversation is {\"kind\": \"recall\", \"description\": "
    "the user's words, \"evidence\": [...]}. When the turn payload has \"recall_pending\" "
    "(asked, expansion or presented), the user may be answering that recall: add "
    "\"disposition\": \"identified\" when they recognise what was shown (or, for expansion, "
    "agree to search everything), \"corrected\" when they give a new cue (put it in "
    "description), \"withdrawn\" when they drop it. A turn about something else gets no "
    "recall act: read it as usual."
)

#: How a model asks (ADR 0024): the acts that say "I cannot tell what to change" and "twice".
ASKING_ACT_DESCRIPTION = (
    "A change that names no field or operation (\"I want to change something on my "
    "booking\") is {\"kind\": \"unnamed_change\", \"target\": ..., \"evidence\": [...]}: "
    "the desk asks what to change. Words that only say the request on the open confirmation "
    "card is wrong (\"no wait, wrong amount\") are an unnamed_change with \"pending\": true "
    "and, when they name it, \"about\": the argument or field (\"amount\"). A second, "
    "separate request equal to an earlier operation act (\"add breakfast twice\") is a second "
    "operation act with \"repeats\": the earlier act's index; without it, equal acts count once."
)

#: The shape every interpreter answers with; the strict parser is the real check.
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["acts"],
    "properties": {
        "acts": {
            "type": "array",
            "items": {"type": "object", "required": ["kind"]},
            "description": RECALL_ACT_DESCRIPTION + " " + ASKING_ACT_DESCRIPTION,
        },
        "not_understood": {"type": "array"},
    },
    "additionalProperties": False,
}


class InterpretationFailed(TurnframeError):
    """No plan for this turn: the providers failed, or the answer was not a valid plan."""

    code = "turnframe.interpret.failed"

    def __init__(
        self,
        message: str,
        *,
        attempts: tuple[ProviderAttempt, ...],
        cause: TurnframeError,
        raw: str | None = None,
    ) -> None:
        super().__init__(message, hint="nothing was executed; the user may rephrase")
        self.attempts = attempts
        self.cause = cause
        self.raw = raw


class _GateAdapter:
    """The chain's RetryGate, answered by the ExecutionGate actor from durable state."""

    def __init__(self, gate: ActorRef, account_id: str, timeout: float) -> None:
        self._gate = gate
        self._account_id = account_id
        self._timeout = timeout

    async def may_retry(self, turn_id: str, purpose: Purpose) -> bool:
        message = MayRetry(account_id=self._account_id, turn_id=turn_id, purpose=purpose)
        allowed: bool = await self._gate.ask(message, timeout=self._timeout)
        return allowed


class _PlanCheck:
    """The chain's answer check for one turn: the strict parse. A rejected plan is a
    :class:`MalformedAnswer` quoting the parse errors (so the chain repairs, then falls back);
    the plans it parsed are kept, so the answer the chain returns is not parsed twice."""

    def __init__(self, turn: UserTurn) -> None:
        self._turn = turn
        self._plans: dict[str, UserTurnPlan] = {}
        #: The MalformedAnswer each rejected answer became, with the answer and its problems.
        self._rejected: list[tuple[MalformedAnswer, str, PlanRejected]] = []

    def __call__(self, text: str) -> None:
        try:
            plan = parse_plan(text, self._turn)
        except PlanRejected as error:
            malformed = MalformedAnswer(
                f"the answer is not a valid plan: {error.message}",
                answer=text,
                parse_error=error.message,
            )
            self._rejected.append((malformed, text, error))
            raise malformed from None
        self._plans[text] = plan

    def rejection(self, error: BaseException | None) -> tuple[str, PlanRejected] | None:
        """The answer and its problems, when ``error`` is this check's own rejection."""
        for malformed, text, problems in self._rejected:
            if malformed is error:
                return text, problems
        return None

    def plan(self, text: str) -> UserTurnPlan:
        """The plan ``text`` parsed to (parsed now if the check never saw it)."""
        found = self._plans.get(text)
        return found if found is not None else parse_plan(text, self._turn)


def interpret_request(
    message: Interpret, workflow: Workflow[Any], setup: InterpretSetup
) -> ProviderRequest:
    """The request for one turn: the rendered template as system prompt, the turn as JSON."""
    turn = message.turn
    payload: dict[str, Any] = {
        "text": turn.text,
        "clock": turn.clock.isoformat(),
        "locale": turn.locale,
        "workflow": workflow.name,
        "case_labels": list(message.case_labels),
        **({"case_names": {k: list(v) for k, v in message.case_names.items()}}
           if message.case_names else {}),
        **({"previous_acts": converter.unstructure(message.previous_acts, tuple[Act, ...])}
           if message.previous_acts else {}),
    }
    if message.focus_label is not None:
        payload["focus_label"] = message.focus_label
    if message.recall_pending is not None:
        payload["recall_pending"] = message.recall_pending
    if setup.glossary_text is not None:
        payload["glossary"] = setup.glossary_text
    return ProviderRequest.from_text(
        purpose=Purpose.INTERPRET,
        turn_id=turn.turn_id,
        correlation_id=turn.turn_id,
        system=setup.system,
        user=json.dumps(payload, ensure_ascii=False, sort_keys=True),
        answer_schema=PLAN_SCHEMA,
        template_hash=setup.template.template_hash,
        reference_digests=setup.digests,
    )


class InterpreterActor(Actor):
    expected_errors = (InterpretationFailed,)
    stateless = True  # configuration only; one odd answer must not restart it

    def __init__(
        self,
        *,
        chain: ProviderChain,
        gate: ActorRef,
        workflows: Mapping[str, Workflow[Any]],
        setups: Mapping[str, InterpretSetup],
        context_budgets: Sequence[tuple[str, int | None]] = (),
        gate_timeout: float = 10.0,
    ) -> None:
        self._setups = setups
        self._budgets = tuple(context_budgets)
        self._chain = chain
        self._gate = gate
        self._workflows = workflows
        self._gate_timeout = gate_timeout

    @handler
    async def interpret(self, message: Interpret) -> Interpretation:
        workflow = self._workflows[message.workflow]
        setup = self._setups[message.workflow]
        # Fails fast, before any provider call, naming the slot and the provider it overflows
        # (any provider of the chain may be reached by a fallback).
        try:
            usage = check_every_budget(
                setup.references, setup.template, message.turn.text, budgets=self._budgets
            )
        except ContextBudgetExceededError as error:
            raise InterpretationFailed(
                f"turn {message.turn.turn_id!r}: {error.message}", attempts=(), cause=error
            ) from error
        request = interpret_request(message, workflow, setup)
        gate = _GateAdapter(self._gate, message.turn.account_id, self._gate_timeout)
        check = _PlanCheck(message.turn)
        try:
            answer = await self._chain.complete(
                request, gate=gate, prior_attempts=message.prior_attempts, check=check
            )
        except ProvidersExhausted as error:
            rejection = check.rejection(error.last_error)
            if rejection is not None:
                # The last word was a plan that broke the rules (even after its repair round).
                text, rejected = rejection
                raise self._rejected(message, text, rejected, error.attempts) from error
            raise self._failed(message, error) from error
        except ChainError as error:
            raise self._failed(message, error) from error
        try:
            plan = check.plan(answer.text)
        except PlanRejected as error:
            raise self._rejected(message, answer.text, error, answer.attempts) from error
        warnings = relatedness_warnings(plan, message.turn.text, setup)
        record = setup.record
        if warnings:
            with_warnings = reference_record(
                setup.references, template=setup.template, relatedness=warnings
            )
            record = converter.unstructure(with_warnings)
        return Interpretation(
            plan=plan,
            raw=answer.text,
            provider=answer.provider,
            attempts=tuple(answer.attempts),
            template_hash=request.template_hash,
            references={**record, "context": converter.unstructure(usage)},
        )

    def _rejected(
        self,
        message: Interpret,
        text: str,
        rejected: PlanRejected,
        attempts: Sequence[ProviderAttempt],
    ) -> InterpretationFailed:
        """A rejected plan, as the replay record keeps it: the answer and the problems (which
        quote it) are a provider's words, so they are redacted first."""
        redact = self._chain.redact
        problems = [attrs.evolve(p, message=redact(p.message)) for p in rejected.problems]
        return InterpretationFailed(
            f"turn {message.turn.turn_id!r}: the plan was rejected whole",
            attempts=tuple(attempts),
            cause=PlanRejected(problems),
            raw=storable_text(redact(text)),
        )

    @staticmethod
    def _failed(message: Interpret, error: ChainError) -> InterpretationFailed:
        return InterpretationFailed(
            f"turn {message.turn.turn_id!r}: no provider gave a plan ({error.code})",
            attempts=tuple(error.attempts),
            cause=error,
        )
