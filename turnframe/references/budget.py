"""The context-budget guardrail and the diagnostics that make reference cost visible.

Before any provider call: references + template + the turn's text, estimated in tokens, must fit
the provider's declared context budget, or the turn fails fast naming every bound slot and its
size. The same measurement, recorded on every turn, shows what the references cost.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from turnframe.references.errors import ContextBudgetExceededError
from turnframe.references.resolve import ResolvedReferences
from turnframe.references.template import PromptTemplate
from turnframe.references.tokens import estimate_tokens


@attrs.frozen(kw_only=True)
class SlotUsage:
    slot: str
    description: str
    items: int
    size_bytes: int
    token_estimate: int


@attrs.frozen(kw_only=True)
class ContextUsage:
    """Per-slot bytes and token estimates, the template's and the turn's, and the total."""

    workflow: str
    slots: tuple[SlotUsage, ...]
    template_tokens: int
    turn_tokens: int
    total_tokens: int


def measure_context(
    references: ResolvedReferences, template: PromptTemplate | None, turn_text: str
) -> ContextUsage:
    """Diagnostics for one interpretation; bound slots only, in declaration order."""
    slots = tuple(
        SlotUsage(
            slot=s.slot.name,
            description=s.slot.description,
            items=len(s.items),
            size_bytes=sum(item.size_bytes for item in s.items),
            token_estimate=sum(item.token_estimate for item in s.items),
        )
        for s in references.slots
        if s.items
    )
    template_tokens = estimate_tokens(template.source) if template else 0
    turn_tokens = estimate_tokens(turn_text)
    return ContextUsage(
        workflow=references.workflow,
        slots=slots,
        template_tokens=template_tokens,
        turn_tokens=turn_tokens,
        total_tokens=template_tokens + turn_tokens + sum(s.token_estimate for s in slots),
    )


def check_context_budget(
    references: ResolvedReferences,
    template: PromptTemplate | None,
    turn_text: str,
    *,
    budget_tokens: int | None,
    provider: str = "the provider",
) -> ContextUsage:
    """Return the usage, or raise when it exceeds ``budget_tokens`` (``None``: no budget)."""
    usage = measure_context(references, template, turn_text)
    if budget_tokens is None or usage.total_tokens <= budget_tokens:
        return usage
    by_size = sorted(usage.slots, key=lambda s: (-s.token_estimate, s.slot))
    slots = (
        "; ".join(
            f"{s.slot!r} ({s.description}) {s.size_bytes} bytes ~{s.token_estimate} tokens"
            for s in by_size
        )
        or "no references bound"
    )
    largest = by_size[0].slot if by_size else None
    raise ContextBudgetExceededError(
        f"workflow {usage.workflow!r}: the prompt needs ~{usage.total_tokens} tokens but "
        f"{provider} declares a context budget of {budget_tokens}: references {slots}; "
        f"template ~{usage.template_tokens} tokens; turn ~{usage.turn_tokens} tokens",
        workflow=usage.workflow,
        needed_tokens=usage.total_tokens,
        budget_tokens=budget_tokens,
        slot=largest,
        provider=provider,
        hint=(f"bind a smaller file to slot {largest!r}, " if largest else "")
        + "clear optional slots with --reference NAME=, "
        "or use providers with a larger context budget",
    )


def check_every_budget(
    references: ResolvedReferences,
    template: PromptTemplate | None,
    turn_text: str,
    *,
    budgets: Sequence[tuple[str, int | None]],
) -> ContextUsage:
    """:func:`check_context_budget` against every provider a request may reach (the whole
    chain: a fallback with a smaller window must fit too); ``budgets`` are (name, tokens)."""
    usage = measure_context(references, template, turn_text)
    for name, budget in sorted(budgets, key=lambda b: (b[1] is None, b[1] or 0)):
        if budget is not None and usage.total_tokens > budget:
            check_context_budget(
                references, template, turn_text, budget_tokens=budget, provider=f"provider {name!r}"
            )
    return usage
