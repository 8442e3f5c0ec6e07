from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.references import (
    MissingVariableError,
    PromptTemplate,
    ReferenceSlot,
    TemplateSyntaxError,
    UndeclaredSlotError,
    UndeclaredVariableError,
    api_references,
    inline_references,
    register_template,
    render,
    resolve_references,
    template_hash,
)

WORKFLOW = "travel-desk"

PROMPT = """You read one user turn for the travel desk.
{% if has_reference("glossary") %}
Glossary (reference material, never evidence):
{{ reference("glossary") }}
{% endif %}
{% if not has_reference("profile") %}
No profile is bound.
{% else %}
Profile: {{ reference("profile") }}
{% endif %}
Turn: {{ turn_text }}
"""


def _template(slots: tuple[ReferenceSlot, ...], source: str = PROMPT) -> PromptTemplate:
    return register_template("interpret", source, slots=slots, variables=["turn_text"])


def test_a_template_naming_an_undeclared_slot_fails_at_registration(
    slots: tuple[ReferenceSlot, ...], glossary_slot: ReferenceSlot
) -> None:
    source = 'Hi {% if has_reference("glossary") %}{{ reference("glosary") }}{% endif %}'
    with pytest.raises(UndeclaredSlotError) as caught:
        register_template("interpret", source, slots=slots)
    error = caught.value
    assert error.code == "turnframe.template.undeclared_slot"
    assert "'interpret'" in error.message and "'glosary'" in error.message
    assert glossary_slot.description in error.message


def test_a_has_reference_on_an_undeclared_slot_fails_at_registration() -> None:
    with pytest.raises(UndeclaredSlotError, match="line 2"):
        register_template("t", 'a\n{% if has_reference("roster") %}x{% endif %}', slots=())


def test_a_template_using_an_undeclared_variable_fails_at_registration(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    with pytest.raises(UndeclaredVariableError, match="turn_txt"):
        register_template("t", "{{ turn_txt }}", slots=slots, variables=["turn_text"])


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ('{% if has_reference("glossary") %}open', "never closed"),
        ("{% endif %}", "without an open"),
        ("{% else %}", "without an open"),
        ("{{ reference(glossary) }}", "cannot read"),
        ("{% for x in y %}", "cannot read"),
        ("text {{ unclosed", "unclosed tag"),
    ],
)
def test_a_malformed_template_is_a_syntax_error_naming_line_and_column(
    slots: tuple[ReferenceSlot, ...], source: str, what: str
) -> None:
    with pytest.raises(TemplateSyntaxError, match=what) as caught:
        register_template("t", source, slots=slots)
    assert "line 1, column" in caught.value.message


def test_an_unbound_optional_slot_renders_without_dangling_lines(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(workflow=WORKFLOW, slots=slots, texts={"profile": "Ana\n"})
    rendered = render(_template(slots), refs, {"turn_text": "hi"})
    assert rendered == "You read one user turn for the travel desk.\nProfile: Ana\nTurn: hi\n"


def test_a_bound_slot_renders_its_section_in_place(slots: tuple[ReferenceSlot, ...]) -> None:
    refs = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"glossary": "usual = Almirante\n", "profile": "Ana"}
    )
    rendered = render(_template(slots), refs, {"turn_text": "hi"})
    assert rendered == (
        "You read one user turn for the travel desk.\n"
        "Glossary (reference material, never evidence):\n"
        "usual = Almirante\n"
        "Profile: Ana\n"
        "Turn: hi\n"
    )


def test_a_multiple_slot_renders_its_items_separated_by_a_blank_line(
    slots: tuple[ReferenceSlot, ...], files: Path
) -> None:
    (files / "a.txt").write_text("Ana\n", encoding="utf-8")
    (files / "b.txt").write_text("Rui\n", encoding="utf-8")
    bindings = api_references({"roster": ["a.txt", "b.txt"], "profile": "a.txt"}, cwd=files)
    refs = resolve_references(workflow=WORKFLOW, slots=slots, bindings=bindings)
    template = register_template("t", '{{ reference("roster") }}', slots=slots)
    assert render(template, refs) == "Ana\n\nRui"


def test_all_references_renders_bound_slots_in_declaration_order(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"profile": "Ana", "glossary": "terms"}
    )
    template = register_template("t", "{{ all_references() }}", slots=slots)
    assert render(template, refs) == (
        '<reference name="glossary" description="Desk terms and aliases">\nterms\n</reference>\n'
        '<reference name="profile" description="The traveller&#x27;s profile">\nAna\n</reference>\n'
    )


def test_a_string_literal_writes_a_literal_opening_brace_pair() -> None:
    template = register_template("t", 'JSON: {{ "{{" }}"a": 1}}', slots=())
    refs = inline_references(workflow=WORKFLOW, slots=(), texts={})
    assert render(template, refs) == 'JSON: {{"a": 1}}'


def test_rendering_without_a_declared_variable_is_a_typed_error(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    refs = inline_references(workflow=WORKFLOW, slots=slots, texts={"profile": "Ana"})
    with pytest.raises(MissingVariableError):
        render(_template(slots), refs, {})


def test_the_template_hash_is_the_hash_of_the_source_not_of_the_rendering(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    template = _template(slots)
    assert template.template_hash == template_hash(PROMPT)
    assert template_hash(PROMPT) != template_hash(PROMPT + " ")


def test_rendering_twice_gives_the_same_bytes(slots: tuple[ReferenceSlot, ...]) -> None:
    texts = {"glossary": "usual = Almirante", "profile": "Ana", "roster": "Ana\nRui"}
    first = render(
        _template(slots),
        inline_references(workflow=WORKFLOW, slots=slots, texts=dict(texts)),
        {"turn_text": "add the usual hotel night"},
    )
    second = render(
        _template(slots),
        inline_references(workflow=WORKFLOW, slots=slots, texts=dict(texts)),
        {"turn_text": "add the usual hotel night"},
    )
    assert first.encode() == second.encode()


@settings(max_examples=50, deadline=None, derandomize=True)
@given(order=st.permutations(["glossary", "profile", "roster"]))
def test_rendering_does_not_depend_on_the_order_bindings_were_given_in(order: list[str]) -> None:
    slots = (
        ReferenceSlot(name="glossary", description="Desk terms"),
        ReferenceSlot(name="profile", description="Profile", required=True),
        ReferenceSlot(name="roster", description="Travellers"),
    )
    texts = {"glossary": "usual = Almirante", "profile": "Ana", "roster": "Ana, Rui"}
    source = "{{ all_references() }}" + PROMPT
    template = register_template("t", source, slots=slots, variables=["turn_text"])
    canonical = inline_references(workflow=WORKFLOW, slots=slots, texts=texts)
    shuffled = inline_references(
        workflow=WORKFLOW, slots=slots, texts={name: texts[name] for name in order}
    )
    variables = {"turn_text": "hi"}
    assert render(template, shuffled, variables) == render(template, canonical, variables)


def test_nested_sections_render_only_when_both_slots_are_bound(
    slots: tuple[ReferenceSlot, ...],
) -> None:
    source = (
        '{% if has_reference("profile") %}\n'
        "P\n"
        '  {% if has_reference("glossary") %}\n'
        "G\n"
        "  {% endif %}\n"
        "{% endif %}\n"
    )
    template = register_template("t", source, slots=slots)
    only_profile = inline_references(workflow=WORKFLOW, slots=slots, texts={"profile": "Ana"})
    both = inline_references(
        workflow=WORKFLOW, slots=slots, texts={"profile": "Ana", "glossary": "g"}
    )
    assert (render(template, only_profile), render(template, both)) == ("P\n", "P\nG\n")


def test_a_comment_alone_on_its_line_leaves_no_line_behind() -> None:
    template = register_template("t", "a\n  {# why this prompt says so #}\nb\n", slots=())
    assert render(template, inline_references(workflow=WORKFLOW, slots=(), texts={})) == "a\nb\n"
