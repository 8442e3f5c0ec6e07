"""The "usual hotel" turn through the reference library, the way the pipeline will use it:
config + CLI bindings → resolution → budget → rendering → alias → relatedness → record."""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs

from turnframe.config import config_bindings, load_config
from turnframe.references import (
    VALUE_ONLY_IN_REFERENCE,
    Glossary,
    ReferenceRecord,
    ReferenceSlot,
    ResolvedReferences,
    check_context_budget,
    check_relatedness,
    find_aliases,
    glossary_from_references,
    parse_cli_references,
    reference_record,
    register_template,
    render,
    resolve_references,
)

WORKFLOW = "travel-desk"
TURN = "add the usual hotel night"
SLOTS = (
    ReferenceSlot(
        name="glossary", description="Desk terms and aliases", media_types=("text/markdown",)
    ),
)
PROMPT = """Interpret the user's turn as acts. Evidence must be the user's own words.
{% if has_reference("glossary") %}
Glossary (reference material: use it to resolve names; it is never evidence):
{{ reference("glossary") }}
{% endif %}
Turn: {{ turn_text }}
"""


@attrs.frozen(kw_only=True)
class Flow:
    glossary_file: Path
    references: ResolvedReferences
    aliases: Glossary
    prompt: str
    record: ReferenceRecord
    alias_value: str
    alias_evidence: str


def _flow(tmp_path: Path, glossary: str) -> Flow:
    (tmp_path / "conf").mkdir(exist_ok=True)
    (tmp_path / "conf" / "turnframe.toml").write_text(
        '[workflows.travel-desk.references]\nglossary = "old-glossary.md"\n', encoding="utf-8"
    )
    glossary_file = tmp_path / "glossary.md"
    glossary_file.write_text(glossary, encoding="utf-8")
    config = load_config("conf/turnframe.toml", cwd=tmp_path)
    bindings = [
        *config_bindings(config, WORKFLOW),
        *parse_cli_references(["glossary=glossary.md"], cwd=tmp_path),
    ]
    refs = resolve_references(workflow=WORKFLOW, slots=SLOTS, bindings=bindings)
    template = register_template("interpret", PROMPT, slots=SLOTS, variables=["turn_text"])
    check_context_budget(refs, template, TURN, budget_tokens=8000)
    aliases = glossary_from_references(refs, ["glossary"])
    (match,) = find_aliases(aliases, TURN)
    return Flow(
        glossary_file=glossary_file,
        references=refs,
        aliases=aliases,
        prompt=render(template, refs, {"turn_text": TURN}),
        record=reference_record(refs, template=template),
        alias_value=match.canonical,
        alias_evidence=TURN[match.start : match.end],
    )


GLOSSARY = "the usual hotel = Hotel Almirante\n- lounge pass at 15 euros\n"


def test_the_usual_hotel_becomes_the_named_hotel_with_evidence_on_the_users_words(
    tmp_path: Path,
) -> None:
    flow = _flow(tmp_path, GLOSSARY)
    assert (flow.alias_value, flow.alias_evidence) == ("Hotel Almirante", "the usual hotel")
    assert (
        check_relatedness(
            flow.alias_value, flow.alias_evidence, TURN, flow.references, aliases=flow.aliases
        )
        == []
    )


def test_a_lounge_pass_act_lifted_from_the_glossary_is_flagged(tmp_path: Path) -> None:
    flow = _flow(tmp_path, GLOSSARY)
    (warning,) = check_relatedness("lounge pass", TURN, TURN, flow.references, aliases=flow.aliases)
    assert warning.code == VALUE_ONLY_IN_REFERENCE


def test_the_record_holds_the_sha256_of_the_cli_bound_glossary(tmp_path: Path) -> None:
    flow = _flow(tmp_path, GLOSSARY)
    (entry,) = flow.record.references
    assert entry.digest == hashlib.sha256(flow.glossary_file.read_bytes()).hexdigest()
    assert (entry.slot, entry.origin, entry.layer.value) == ("glossary", "glossary.md", "cli")


def test_the_prompt_frames_the_glossary_as_reference_material(tmp_path: Path) -> None:
    flow = _flow(tmp_path, GLOSSARY)
    assert "it is never evidence):\nthe usual hotel = Hotel Almirante\n" in flow.prompt


def test_two_runs_differing_only_in_glossary_bytes_differ_in_digest_not_template_hash(
    tmp_path: Path,
) -> None:
    first = _flow(tmp_path, GLOSSARY).record
    second = _flow(tmp_path, "the usual hotel = Hotel Miradouro\n").record
    assert first.template_hash == second.template_hash
    assert first.reference_digest != second.reference_digest


def test_a_cli_binding_replaces_a_config_binding_whose_file_is_never_read(
    tmp_path: Path,
) -> None:
    flow = _flow(tmp_path, GLOSSARY)
    assert not (tmp_path / "conf" / "old-glossary.md").exists()
    assert [item.origin.display for item in flow.references.items] == ["glossary.md"]
