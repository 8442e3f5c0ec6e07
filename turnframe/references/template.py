"""Prompt templates: a tiny deterministic language for reference sections.

Syntax (everything else is literal text)::

    {{ reference("glossary") }}          the bound items of a slot ("" when unbound)
    {{ all_references() }}               every bound slot, declaration order, in <reference> tags
    {{ turn_text }}                      a variable declared at registration
    {{ "{{" }}                           a string literal (how to write a literal "{{")
    {% if has_reference("glossary") %} … {% else %} … {% endif %}   (``if not …`` too; nests)
    {# a comment #}

A ``{% %}`` or ``{# #}`` tag alone on its line removes the whole line, so conditional sections
leave no blank lines behind. Naming an undeclared slot or variable fails in
:func:`register_template`, not at render time. The template's identity (``template_hash``) is the
digest of its source, never of a rendered prompt: a reference edit shows as a reference change.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import attrs

from turnframe._hashing import digest
from turnframe.references.errors import (
    MissingVariableError,
    TemplateSyntaxError,
    UndeclaredSlotError,
    UndeclaredVariableError,
)
from turnframe.references.resolve import ResolvedReferences, ResolvedSlot
from turnframe.references.slots import ReferenceSlot, describe_slots

_TAG = re.compile(r"\{\{(.*?)\}\}|\{%(.*?)%\}|\{#.*?#\}", re.DOTALL)
_OPENERS = re.compile(r"\{\{|\{%|\{#")
_NAME = r"""\(\s*(?:"([^"]*)"|'([^']*)')\s*\)"""
_REFERENCE = re.compile(rf"^reference\s*{_NAME}$")
_IF = re.compile(rf"^if\s+(not\s+)?has_reference\s*{_NAME}$")
_ALL = re.compile(r"^all_references\s*\(\s*\)$")
_VARIABLE = re.compile(r"^[a-z_][a-z0-9_]*$")
_STRING = re.compile(r"""^(?:"([^"]*)"|'([^']*)')$""")
_REST_OF_LINE = re.compile(r"[ \t]*(?:\r?\n|$)")


@attrs.frozen
class Text:
    text: str


@attrs.frozen
class Insert:
    slot: str
    line: int


@attrs.frozen
class InsertAll:
    pass


@attrs.frozen
class Variable:
    name: str
    line: int


@attrs.frozen
class Conditional:
    slot: str
    negated: bool
    then: tuple[Node, ...]
    otherwise: tuple[Node, ...]
    line: int


Node = Text | Insert | InsertAll | Variable | Conditional


@attrs.frozen(kw_only=True)
class PromptTemplate:
    """A registered template: validated against ``slots`` and ``variables``."""

    name: str
    source: str = attrs.field(repr=False)
    slots: tuple[ReferenceSlot, ...]
    variables: tuple[str, ...]
    template_hash: str
    nodes: tuple[Node, ...] = attrs.field(repr=False, eq=False)


def template_hash(source: str) -> str:
    """The template's identity: a digest of its source text."""
    return digest("prompt_template", source)


def register_template(
    name: str,
    source: str,
    *,
    slots: Sequence[ReferenceSlot],
    variables: Sequence[str] = (),
) -> PromptTemplate:
    """Parse and validate ``source``: every slot it names must be in ``slots``, every variable in
    ``variables``; a syntax error names the line and column."""
    nodes = _Parser(name, source).parse()
    declared = {s.name for s in slots}
    for slot_name, line in _slot_uses(nodes):
        if slot_name not in declared:
            raise UndeclaredSlotError(
                f"template {name!r} names reference slot {slot_name!r} on line {line}, which is "
                f"not declared; declared slots: {describe_slots(slots)}",
                template=name,
                hint="declare the slot on the workflow, or fix the name in the template",
            )
    for var_name, line in _variable_uses(nodes):
        if var_name not in variables:
            raise UndeclaredVariableError(
                f"template {name!r} uses variable {var_name!r} on line {line}, which is not "
                f"declared; declared variables: {', '.join(variables) or 'none'}",
                template=name,
                hint="add it to variables= when registering, or fix the name",
            )
    return PromptTemplate(
        name=name,
        source=source,
        slots=tuple(slots),
        variables=tuple(variables),
        template_hash=template_hash(source),
        nodes=nodes,
    )


def render(
    template: PromptTemplate,
    references: ResolvedReferences,
    variables: Mapping[str, str] | None = None,
) -> str:
    """Render deterministically: the same template, references and variables give the same bytes."""
    values = dict(variables or {})
    missing = [v for v in template.variables if v not in values]
    extra = sorted(v for v in values if v not in template.variables)
    if missing or extra:
        error = MissingVariableError if missing else UndeclaredVariableError
        raise error(
            f"template {template.name!r} rendered with variables {sorted(values)}; it declares "
            f"{list(template.variables)}",
            template=template.name,
            hint="pass exactly the declared variables",
        )
    by_name = {s.slot.name: s for s in references.slots}
    for slot in template.slots:
        if slot.name not in by_name:
            raise UndeclaredSlotError(
                f"template {template.name!r} was registered with slot {slot.name!r}, which "
                f"workflow {references.workflow!r} does not declare",
                template=template.name,
                hint="register the template with the workflow's own slots",
            )
    out: list[str] = []
    _render(template.nodes, by_name, references, values, out)
    return "".join(out)


def _render(
    nodes: Sequence[Node],
    by_name: Mapping[str, ResolvedSlot],
    references: ResolvedReferences,
    values: Mapping[str, str],
    out: list[str],
) -> None:
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.text)
        elif isinstance(node, Insert):
            out.append(slot_text(by_name[node.slot]))
        elif isinstance(node, InsertAll):
            out.append(all_references_text(references))
        elif isinstance(node, Variable):
            out.append(values[node.name])
        else:
            chosen = node.then if by_name[node.slot].bound != node.negated else node.otherwise
            _render(chosen, by_name, references, values, out)


def slot_text(resolved: ResolvedSlot) -> str:
    """A slot's items, binding order, trailing line breaks dropped, one blank line between."""
    texts = [item.text.rstrip("\r\n") for item in resolved.items if item.text.strip()]
    return "\n\n".join(texts)


def all_references_text(references: ResolvedReferences) -> str:
    """Every bound slot in declaration order, each framed as reference material."""
    sections = [
        f'<reference name="{s.slot.name}" description="{html.escape(s.slot.description)}">\n'
        f"{slot_text(s)}\n</reference>\n"
        for s in references.slots
        if s.bound
    ]
    return "".join(sections)


def _slot_uses(nodes: Sequence[Node]) -> list[tuple[str, int]]:
    """(slot, line) for every reference() and has_reference(), in source order."""
    found: list[tuple[str, int]] = []
    for node in nodes:
        if isinstance(node, Insert):
            found.append((node.slot, node.line))
        elif isinstance(node, Conditional):
            found += [(node.slot, node.line), *_slot_uses(node.then), *_slot_uses(node.otherwise)]
    return sorted(found, key=lambda use: use[1])


def _variable_uses(nodes: Sequence[Node]) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    for node in nodes:
        if isinstance(node, Variable):
            found.append((node.name, node.line))
        elif isinstance(node, Conditional):
            found += _variable_uses(node.then) + _variable_uses(node.otherwise)
    return sorted(found, key=lambda use: use[1])


class _Parser:
    """Tokenise with one regex, then build nodes with an explicit stack of open ``if`` blocks."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source

    def parse(self) -> tuple[Node, ...]:
        # Each frame: (slot, negated, then-nodes, else-nodes or None, position of the if).
        stack: list[tuple[str, bool, list[Node], list[Node] | None, int]] = []
        root: list[Node] = []
        pos = 0
        for match in _TAG.finditer(self.source):
            start, end, is_block = match.start(), match.end(), match.group(1) is None
            if is_block:
                start, end = self._standalone(start, end, pos)
            self._text(self.source[pos:start], pos, self._current(root, stack))
            pos = end
            if match.group(1) is not None:
                self._current(root, stack).append(self._expression(match.group(1), match.start()))
            elif match.group(2) is not None:
                self._block(match.group(2).strip(), match.start(), root, stack)
        self._text(self.source[pos:], pos, self._current(root, stack))
        if stack:
            raise self._error("{% if %} is never closed by {% endif %}", stack[-1][4])
        return tuple(root)

    def _standalone(self, start: int, end: int, pos: int) -> tuple[int, int]:
        line_start = self.source.rfind("\n", 0, start) + 1
        if line_start < pos or self.source[line_start:start].strip(" \t"):
            return start, end
        rest = _REST_OF_LINE.match(self.source, end)
        if rest is None:
            return start, end
        return line_start, rest.end()

    def _text(self, text: str, pos: int, into: list[Node]) -> None:
        opener = _OPENERS.search(text)
        if opener:
            raise self._error(f"unclosed tag {opener.group(0)!r}", pos + opener.start())
        if text:
            into.append(Text(text))

    @staticmethod
    def _current(
        root: list[Node], stack: list[tuple[str, bool, list[Node], list[Node] | None, int]]
    ) -> list[Node]:
        if not stack:
            return root
        _, _, then, otherwise, _ = stack[-1]
        return then if otherwise is None else otherwise

    def _expression(self, raw: str, at: int) -> Node:
        expr = raw.strip()
        if m := _REFERENCE.match(expr):
            return Insert(m.group(1) if m.group(1) is not None else m.group(2), self._line(at))
        if _ALL.match(expr):
            return InsertAll()
        if m := _STRING.match(expr):
            return Text(m.group(1) if m.group(1) is not None else m.group(2))
        if _VARIABLE.match(expr):
            return Variable(expr, self._line(at))
        raise self._error(f"cannot read {{{{ {expr} }}}}", at)

    def _block(
        self,
        body: str,
        at: int,
        root: list[Node],
        stack: list[tuple[str, bool, list[Node], list[Node] | None, int]],
    ) -> None:
        if m := _IF.match(body):
            slot = m.group(2) if m.group(2) is not None else m.group(3)
            stack.append((slot, m.group(1) is not None, [], None, at))
        elif body == "else":
            if not stack or stack[-1][3] is not None:
                raise self._error("{% else %} without an open {% if %}", at)
            slot, negated, then, _, opened = stack.pop()
            stack.append((slot, negated, then, [], opened))
        elif body == "endif":
            if not stack:
                raise self._error("{% endif %} without an open {% if %}", at)
            slot, negated, then, otherwise, opened = stack.pop()
            node = Conditional(
                slot, negated, tuple(then), tuple(otherwise or ()), self._line(opened)
            )
            self._current(root, stack).append(node)
        else:
            raise self._error(f"cannot read {{% {body} %}}", at)

    def _line(self, at: int) -> int:
        return self.source.count("\n", 0, at) + 1

    def _error(self, what: str, at: int) -> TemplateSyntaxError:
        line = self._line(at)
        column = at - (self.source.rfind("\n", 0, at) + 1) + 1
        return TemplateSyntaxError(
            f"template {self.name!r}, line {line}, column {column}: {what}",
            template=self.name,
            hint='tags are {{ reference("slot") }}, {% if has_reference("slot") %}, '
            '{% else %}, {% endif %}; write a literal "{{" as {{ "{{" }}',
        )
