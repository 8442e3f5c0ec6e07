"""What the interpreter is given per workflow: its prompt template and its reference material.

References are resolved once, when the runtime starts (before any provider call), from the
three binding layers (config file, API, CLI; later wins). A bad binding fails the start with an
error naming the workflow, the slot and its description.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe.config import TurnframeConfig, check_config_workflows, config_bindings
from turnframe.plan import OperationAct, SetFieldAct, UserTurnPlan
from turnframe.references import (
    Glossary,
    PromptTemplate,
    ReferenceBinding,
    RelatednessWarning,
    ResolvedReferences,
    api_references,
    check_relatedness,
    check_runtime_wide_bindings,
    glossary_from_references,
    reference_record,
    register_template,
    render,
    resolve_references,
    slot_digests,
)
from turnframe.workflow import Workflow

INTERPRET_TEMPLATE = """\
You interpret one user turn of a conversation with the {{ workflow }} desk into ONE plan of acts \
(JSON, following the schema). Every act cites evidence: exact spans of the user's own text, \
never of the reference material below. Fields: {{ fields }}. Operations: {{ operations }}. \
Questions: {{ questions }}. Propose only what the user said; put what you cannot read in \
not_understood. A vague reference to an earlier conversation is a recall act; when the turn \
payload has recall_pending, read the user's answer to it as the recall act's disposition.
{% if has_any_reference() %}
Reference material (to understand the user's words; never evidence):
{{ all_references() }}
{% endif %}
"""
TEMPLATE_VARIABLES = ("workflow", "fields", "operations", "questions")


@attrs.frozen(kw_only=True)
class InterpretSetup:
    workflow: str
    template: PromptTemplate
    references: ResolvedReferences
    glossary: Glossary | None = None
    glossary_text: str | None = None
    # Fixed for the runtime's life (references resolve once): rendered and digested once.
    system: str = ""
    digests: dict[str, str] = attrs.field(factory=dict)
    record: dict[str, Any] = attrs.field(factory=dict)  # the replay record's reference part

    def variables(self, workflow: Workflow[Any]) -> dict[str, str]:
        return {
            "workflow": workflow.name,
            "fields": ", ".join(f.name for f in workflow.fields) or "none",
            "operations": ", ".join(o.name for o in workflow.operations) or "none",
            "questions": ", ".join(q.name for q in workflow.questions) or "none",
        }


def _template_source(workflow: Workflow[Any]) -> str:
    """The interpretation template for ``workflow``: its reference section only if it has
    slots, and conditional on the slot being bound when there is exactly one."""
    head, _, section = INTERPRET_TEMPLATE.partition("{% if has_any_reference() %}\n")
    if not workflow.reference_slots:
        return head
    body = section.replace("{% endif %}\n", "")
    if len(workflow.reference_slots) == 1:
        name = workflow.reference_slots[0].name
        return f'{head}{{% if has_reference("{name}") %}}\n{body}{{% endif %}}\n'
    return head + body


def resolve_setups(
    workflows: Sequence[Workflow[Any]],
    *,
    config: TurnframeConfig | None,
    references: Mapping[str, Any] | None,
    cli_bindings: Sequence[ReferenceBinding],
    cwd: Path,
) -> dict[str, InterpretSetup]:
    """Resolve every workflow's reference slots (reads files: call it off the event loop)."""
    names = [w.name for w in workflows]
    if config is not None:
        check_config_workflows(config, names)
    api = api_references(references or {}, cwd=cwd, runtime_wide=True)
    runtime_wide = [*(config.references if config else ()), *api]
    check_runtime_wide_bindings(runtime_wide, {w.name: w.reference_slots for w in workflows})
    setups: dict[str, InterpretSetup] = {}
    for workflow in workflows:
        own = config_bindings(config, workflow.name) if config is not None else ()
        resolved = resolve_references(
            workflow=workflow.name,
            slots=workflow.reference_slots,
            bindings=[*own, *api, *cli_bindings],
        )
        template = register_template(
            "interpret",
            _template_source(workflow),
            slots=workflow.reference_slots,
            variables=TEMPLATE_VARIABLES,
        )
        glossary = None
        glossary_text = None
        if workflow.glossary_slots:
            glossary = glossary_from_references(resolved, workflow.glossary_slots)
            texts = [
                item.text
                for name in workflow.glossary_slots
                if (slot := resolved.get(name)) is not None
                for item in slot.items
            ]
            glossary_text = "\n".join(texts) if texts else None
        setup = InterpretSetup(
            workflow=workflow.name,
            template=template,
            references=resolved,
            glossary=glossary,
            glossary_text=glossary_text,
        )
        setups[workflow.name] = attrs.evolve(
            setup,
            system=render(template, resolved, setup.variables(workflow)),
            digests=slot_digests(resolved),
            record=converter.unstructure(reference_record(resolved, template=template)),
        )
    return setups


def relatedness_warnings(
    plan: UserTurnPlan, text: str, setup: InterpretSetup
) -> list[RelatednessWarning]:
    """Warnings (never blocking) for act values that do not appear near their evidence.

    The check guards against reference material leaking into acts, so it runs when the
    workflow has reference material bound.
    """
    warnings: list[RelatednessWarning] = []
    if not setup.references.items:
        return warnings
    for index, act in enumerate(plan.acts):
        value: object
        if isinstance(act, SetFieldAct):
            value = act.value
        elif isinstance(act, OperationAct) and act.args:
            value = dict(act.args)
        else:
            continue
        for evidence in act.evidence[:1]:
            warnings.extend(
                check_relatedness(
                    value,
                    evidence.text,
                    text,
                    setup.references,
                    aliases=setup.glossary,
                    act_index=index,
                    evidence_start=evidence.start,
                )
            )
    return warnings
