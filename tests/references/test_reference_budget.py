from __future__ import annotations

import pytest

from turnframe.references import (
    ContextBudgetExceededError,
    ReferenceSlot,
    check_context_budget,
    check_every_budget,
    estimate_tokens,
    inline_references,
    measure_context,
    register_template,
)

WORKFLOW = "travel-desk"


def test_the_token_estimate_is_utf8_bytes_over_four_rounded_up() -> None:
    assert (estimate_tokens(""), estimate_tokens("abcd"), estimate_tokens("abcde")) == (0, 1, 2)
    assert estimate_tokens("é") == 1 and estimate_tokens(b"\xc3\xa9" * 3) == 2


def test_diagnostics_record_bytes_and_tokens_per_bound_slot(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"glossary": "x" * 40, "profile": "Ana"}
    )
    template = register_template("t", "Prompt {{ all_references() }}", slots=slots)
    usage = measure_context(refs, template, "hello")
    assert [(s.slot, s.size_bytes, s.token_estimate) for s in usage.slots] == [
        ("glossary", 40, 10),
        ("profile", 3, 1),
    ]
    assert usage.total_tokens == 10 + 1 + usage.template_tokens + estimate_tokens("hello")


def test_a_prompt_within_budget_returns_its_usage(slots: tuple[ReferenceSlot, ...]) -> None:
    refs = inline_references(workflow=WORKFLOW, slots=slots, texts={"profile": "Ana"})
    usage = check_context_budget(refs, None, "hi", budget_tokens=10)
    assert usage.total_tokens == 2


def test_a_prompt_over_budget_fails_fast_naming_each_slot_and_its_size(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"glossary": "x" * 4000, "profile": "Ana"}
    )
    with pytest.raises(ContextBudgetExceededError) as caught:
        check_context_budget(refs, None, "hi", budget_tokens=500, provider="provider 'openai'")
    error = caught.value
    assert error.code == "turnframe.reference.context_budget_exceeded"
    assert (error.needed_tokens, error.budget_tokens) == (1000 + 1 + 1, 500)
    assert "'glossary' (Desk terms and aliases) 4000 bytes ~1000 tokens" in error.message
    assert "'profile' (The traveller's profile) 3 bytes" in error.message
    assert WORKFLOW in error.message and "provider 'openai'" in error.message


def test_no_declared_budget_never_fails(slots: tuple[ReferenceSlot, ...]) -> None:
    refs = inline_references(workflow=WORKFLOW, slots=slots, texts={"profile": "x" * 10_000})
    assert check_context_budget(refs, None, "hi", budget_tokens=None).total_tokens > 2500


def test_the_budget_error_names_the_largest_slot_as_the_one_to_shrink(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"glossary": "x" * 4000, "profile": "Ana"}
    )
    with pytest.raises(ContextBudgetExceededError) as caught:
        check_context_budget(refs, None, "hi", budget_tokens=500)
    assert (caught.value.slot, caught.value.provider) == ("glossary", "the provider")
    assert "'glossary'" in (caught.value.hint or "")


def test_every_provider_of_the_chain_is_checked_not_only_the_first(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"glossary": "x" * 4000, "profile": "Ana"}
    )
    budgets = [("primary", 200_000), ("small-fallback", 800), ("unbounded", None)]
    with pytest.raises(ContextBudgetExceededError) as caught:
        check_every_budget(refs, None, "hi", budgets=budgets)
    assert caught.value.provider == "provider 'small-fallback'"
    assert caught.value.slot == "glossary"
    roomy = [("primary", 200_000), ("unbounded", None)]
    assert check_every_budget(refs, None, "hi", budgets=roomy).total_tokens > 1000
