"""Glossary aliases for the rule-based interpreter: the user's phrase, the record's name.

Format, one entry per line (a ``.md`` or ``.txt`` file)::

    # Travel desk glossary                     a comment: any line starting with '#'
    the usual hotel = Hotel Almirante          an alias: what users say = the canonical name
    usual hotel | our hotel = Hotel Almirante  several phrases for one name, separated by '|'
    alias: the office => Rua Augusta 12        the explicit form ('=>' or '=')
    - lounge pass at 15 euros                  a term: reference for the model, no alias

List bullets (``-``, ``*``, ``+``) and surrounding quotes are dropped; blank lines are skipped.
A line with ``=`` is an alias, every other line a term. Matching is case-insensitive, on whole
words, any run of white space between words; the longest phrase wins, leftmost first. A match
keeps the user's own words and their offsets, so an act's evidence stays on what the user wrote
while its value becomes the canonical name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from turnframe.references.errors import GlossarySyntaxError
from turnframe.references.resolve import ResolvedReferences

_BULLET = re.compile(r"^[-*+]\s+")


@attrs.frozen(kw_only=True)
class Alias:
    phrase: str
    canonical: str
    origin: str
    line: int


@attrs.frozen(kw_only=True)
class AliasMatch:
    """``text`` is the user's words at ``start:end``; ``canonical`` is what they stand for."""

    start: int
    end: int
    text: str
    canonical: str
    alias: Alias


@attrs.frozen(kw_only=True)
class Glossary:
    aliases: tuple[Alias, ...] = ()
    terms: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen(kw_only=True)
class _Context:
    workflow: str
    slot: str
    description: str | None
    origin: str


def phrase_key(phrase: str) -> str:
    """Case- and spacing-insensitive key of a phrase."""
    return " ".join(phrase.casefold().split())


def parse_glossary(
    text: str,
    *,
    origin: str = "<glossary>",
    workflow: str = "(none)",
    slot: str = "(none)",
    description: str | None = None,
) -> Glossary:
    """Parse the format above; a malformed alias line is a typed error naming line and origin."""
    context = _Context(workflow=workflow, slot=slot, description=description, origin=origin)
    aliases: list[Alias] = []
    terms: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _BULLET.sub("", raw.strip())
        if not line or raw.strip().startswith("#"):
            continue
        explicit = line.lower().startswith("alias:")
        body = line[len("alias:") :].strip() if explicit else line
        if "=" not in body:
            if explicit:
                raise _syntax(context, number, raw, "'alias:' needs 'phrase => Name'")
            terms.append(_unquote(line))
            continue
        left, _, right = body.partition("=>") if "=>" in body else body.partition("=")
        canonical = _unquote(right.strip())
        phrases = [_unquote(p.strip()) for p in left.split("|")]
        if not canonical or not all(phrases):
            raise _syntax(context, number, raw, "an alias needs phrases = a name")
        aliases += [
            Alias(phrase=p, canonical=canonical, origin=origin, line=number) for p in phrases
        ]
    return build_glossary(aliases, terms, context=context)


def build_glossary(
    aliases: Sequence[Alias], terms: Sequence[str], *, context: _Context | None = None
) -> Glossary:
    """Check for a phrase that names two different things, and compile the matcher."""
    seen: dict[str, Alias] = {}
    for alias in aliases:
        earlier = seen.get(phrase_key(alias.phrase))
        if earlier and earlier.canonical != alias.canonical:
            ctx = _Context(
                workflow=context.workflow if context else "(none)",
                slot=context.slot if context else "(none)",
                description=context.description if context else None,
                origin=alias.origin,
            )
            raise _syntax(
                ctx,
                alias.line,
                alias.phrase,
                f"{alias.phrase!r} already means {earlier.canonical!r} "
                f"({earlier.origin}, line {earlier.line})",
            )
        seen.setdefault(phrase_key(alias.phrase), alias)
    unique = tuple(seen.values())
    return Glossary(aliases=unique, terms=tuple(terms), pattern=_compile(unique))


def find_aliases(glossary: Glossary, text: str) -> tuple[AliasMatch, ...]:
    """Alias phrases in ``text``: leftmost first, longest at a position, never overlapping."""
    if glossary.pattern is None:
        return ()
    by_key = {phrase_key(a.phrase): a for a in glossary.aliases}
    matches = []
    for m in glossary.pattern.finditer(text):
        alias = by_key[phrase_key(m.group(0))]
        matches.append(
            AliasMatch(
                start=m.start(),
                end=m.end(),
                text=m.group(0),
                canonical=alias.canonical,
                alias=alias,
            )
        )
    return tuple(matches)


def canonical_for(glossary: Glossary, phrase: str) -> str | None:
    """The canonical name ``phrase`` stands for, or ``None``."""
    key = phrase_key(phrase)
    return next((a.canonical for a in glossary.aliases if phrase_key(a.phrase) == key), None)


def glossary_from_references(references: ResolvedReferences, slots: Sequence[str]) -> Glossary:
    """Parse every item bound to ``slots`` (declaration order) into one glossary.

    Unbound or undeclared slots contribute nothing: the interpreter works without a glossary.
    """
    aliases: list[Alias] = []
    terms: list[str] = []
    context: _Context | None = None
    for resolved in references.slots:
        if resolved.slot.name not in slots:
            continue
        for item in resolved.items:
            context = _Context(
                workflow=references.workflow,
                slot=resolved.slot.name,
                description=resolved.slot.description,
                origin=item.origin.display,
            )
            parsed = parse_glossary(
                item.text,
                origin=context.origin,
                workflow=context.workflow,
                slot=context.slot,
                description=context.description,
            )
            aliases += parsed.aliases
            terms += parsed.terms
    return build_glossary(aliases, terms, context=context)


def _compile(aliases: Sequence[Alias]) -> re.Pattern[str] | None:
    if not aliases:
        return None
    phrases = sorted(aliases, key=lambda a: (-len(phrase_key(a.phrase)), phrase_key(a.phrase)))
    body = "|".join(r"\s+".join(map(re.escape, a.phrase.split())) for a in phrases)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


def _syntax(context: _Context, line: int, raw: str, what: str) -> GlossarySyntaxError:
    described = f" ({context.description})" if context.description else ""
    return GlossarySyntaxError(
        f"workflow {context.workflow!r}, reference slot {context.slot!r}{described}: "
        f"{context.origin}, line {line}: {what}: {raw.strip()!r}",
        workflow=context.workflow,
        slot=context.slot,
        description=context.description,
        hint="write aliases as 'what users say = Canonical Name'; other lines are plain terms",
    )
