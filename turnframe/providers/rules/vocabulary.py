"""A workflow's words, compiled once: its fields, operations, questions and their aliases.

This is where the rule-based interpreter learns its vocabulary. Nothing here names a domain:
``due_date`` becomes the phrase "due date", an alias "add an item" becomes a pattern that
accepts "add item" and "add another item" too (articles are optional between the words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from turnframe.providers.rules.shapes import ARTICLES, GENERIC_STARTERS, ICASE, LEADING_VALUE
from turnframe.workflow import Operation, Workflow

_FLEX_ARTICLE = r"\s+(?:(?:a|an|the|this|that|my|our|another|some)\s+)?"
_NEVER = r"(?!x)x"
_STOP_WORDS = (
    "a an the is are was were be been am do does did it its this that my our your i we you "
    "still there any much many how what when which who can could would should will of to for "
    "on in at me us please yet"
)
_STOP = frozenset(_STOP_WORDS.split())


#: English verbs that move a date earlier, for an operation with an argument counted from a
#: current value (``Argument.current``): the workflow's own words name the later moves.
_MOVES_EARLIER = ("bring ... forward", "pull ... forward", "brought ... forward")


def phrase_key(text: str) -> str:
    """Case-, spacing- and article-insensitive key of a phrase."""
    return " ".join(w for w in text.casefold().split() if w not in ARTICLES)


#: "get ... back" in a workflow's phrase: a few words may stand between ("get 40 euros back").
GAP = "..."
_GAP_PATTERN = r"\s+(?:[^\s,;.!?]+\s+){0,6}?"


def phrase_pattern(phrase: str, *, flexible: bool) -> str:
    """A regex for ``phrase``: any white space between words, articles optional if flexible;
    ``...`` stands for up to six words in between, and at the start for a value said before
    the phrase (an amount or a number: "... back" reads "20 back", "EUR 42.50 back")."""
    if phrase.startswith(GAP):  # "... back": a value stands before the phrase ("20 back")
        rest = phrase.removeprefix(GAP).strip()
        return rf"{LEADING_VALUE}\s+{phrase_pattern(rest, flexible=flexible)}"
    if GAP in phrase:
        parts = [p for p in (q.strip() for q in phrase.split(GAP)) if p]
        return _GAP_PATTERN.join(phrase_pattern(p, flexible=flexible) for p in parts)
    words = phrase.split()
    if flexible:
        words = [w for w in words if w.casefold() not in ARTICLES] or words
    joiner = _FLEX_ARTICLE if flexible else r"\s+"
    return joiner.join(re.escape(w) for w in words)


def inflections(phrase: str) -> set[str]:
    """The phrase with its first word (a verb) inflected: "close" → "closes", "closed",
    "closing"; "submit" → "submitted"; "cancel" → "cancelled", "canceled"."""
    first, _, rest = phrase.partition(" ")
    word = first.casefold()
    if not word.isalpha() or len(word) < 3:
        return set()
    stem = word[:-1] if word.endswith("e") else word
    forms = {word + "s", stem + "ed", stem + "ing", word + "es"}
    if word.endswith("y") and word[-2] not in "aeiou":
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}  # submitted, cancelled
    return {f"{form} {rest}".strip() for form in forms}


def alternation(phrases: Iterable[str], *, flexible: bool) -> str:
    """Longest phrase first, so "due date" wins over "date"."""
    ordered = sorted(set(phrases), key=lambda p: (-len(phrase_key(p)), phrase_key(p)))
    body = "|".join(phrase_pattern(p, flexible=flexible) for p in ordered)
    return body or _NEVER


def tokens(text: str) -> frozenset[str]:
    """Content words, lower case, a plural "s" dropped: what question matching compares."""
    words = re.findall(r"[a-z0-9]+", text.casefold())
    return frozenset(_singular(w) for w in words if w not in _STOP)


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def spoken(name: str) -> str:
    """``due_date`` -> "due date"."""
    return name.replace("_", " ").replace("-", " ")


@attrs.frozen(kw_only=True, eq=False)
class Vocabulary:
    """What one workflow lets a user name, as patterns (built by :func:`vocabulary_of`)."""

    workflow: Workflow[Any]
    field_pattern: str
    field_names: Mapping[str, str]  # phrase key -> field name
    operation_pattern: str
    operation_names: Mapping[str, str]  # phrase key -> operation name
    operation_verbs: Mapping[str, tuple[str, ...]]  # first word -> operation names
    questions: tuple[tuple[str, frozenset[str]], ...]  # (question name, tokens), longest first
    #: (condition name, tokens), most specific first: what "if …" clauses may name.
    conditions: tuple[tuple[str, frozenset[str], str], ...] = ()  # (name, tokens, phrase)
    starters: re.Pattern[str]
    words: frozenset[str] = frozenset()  # every word of its phrases, lower case
    record_nouns: str = "case|record"  # what one case is called, as a regex alternation
    #: Every operation phrase in one pattern, longest first, each in its own group ``pN``.
    operation_regex: re.Pattern[str] = re.compile(_NEVER)
    operation_groups: Mapping[str, str] = attrs.field(factory=dict)  # group -> operation
    operation_phrases: Mapping[str, str] = attrs.field(factory=dict)  # group -> phrase

    def field_named(self, matched: str) -> str:
        return self.field_names[phrase_key(matched)]

    def operation_named(self, matched: str) -> str:
        name = self.operation_names.get(phrase_key(matched))
        if name is not None:
            return name
        m = self.operation_regex.fullmatch(matched.strip())
        assert m is not None and m.lastgroup is not None, matched
        return self.operation_groups[m.lastgroup]

    def operation(self, name: str) -> Operation[Any]:
        op = self.workflow.operation(name)
        assert op is not None, name
        return op


def vocabulary_of(workflow: Workflow[Any]) -> Vocabulary:
    fields = {spoken(f.name): f.name for f in workflow.fields}
    fields |= {alias: f.name for f in workflow.fields for alias in f.aliases}
    fields |= {s: f.name for f in workflow.fields for s in workflow.synonyms.get(f.name, ())}
    operations = {spoken(o.name): o.name for o in workflow.operations}
    operations |= {alias: o.name for o in workflow.operations for alias in o.aliases}
    operations |= {
        s: o.name for o in workflow.operations for s in workflow.synonyms.get(o.name, ())
    }
    for o in workflow.operations:  # a date it moves: "bring the first one forward a day"
        if any(a.current is not None for a in o.arguments):
            for phrase in _MOVES_EARLIER:
                operations.setdefault(phrase, o.name)
    for phrase, name in list(operations.items()):
        for form in inflections(phrase):
            operations.setdefault(form, name)
    verbs: dict[str, list[str]] = {}
    for phrase, name in sorted(operations.items()):
        first = phrase.split()[0].casefold()
        if name not in verbs.setdefault(first, []):
            verbs[first].append(name)
    questions = [(q.name, tokens(spoken(q.name))) for q in workflow.questions]
    questions += [(q.name, tokens(a)) for q in workflow.questions for a in q.aliases]
    questions = [(name, toks) for name, toks in questions if toks]
    questions.sort(key=lambda item: -len(item[1]))
    field_alt = alternation(fields, flexible=False)
    op_alt = alternation(operations, flexible=True)
    starters = re.compile(
        rf"(?:{GENERIC_STARTERS}|{op_alt}|(?:the\s+)?(?:{field_alt})"
        r"(?:\s+(?:of|for|on|in)\s+[\w#.-]+(?:\s+[\w#.-]+)?)?"
        r"(?:\s+(?:is|to|should|will|:)|\s*(?::|=|->|=>|\u2192)|\s+(?=[\"'\u201c\u2018])))"
        r"(?!\w)",
        ICASE,
    )
    phrases = [*fields, *operations, *(workflow.case_noun or "").split()]
    phrases += [a for q in workflow.questions for a in (q.name, *q.aliases)]
    words = frozenset(w for p in phrases for w in re.findall(r"[a-z]+", p.casefold()))
    ordered = sorted(operations, key=lambda p: (-len(phrase_key(p)), phrase_key(p)))
    groups = {f"p{n}": operations[p] for n, p in enumerate(ordered)}
    grouped = "|".join(
        f"(?P<p{n}>{phrase_pattern(p, flexible=True)})" for n, p in enumerate(ordered)
    )
    nouns = {"case", "record", *(n.casefold() for n in workflow.nouns)}
    if workflow.case_noun:
        nouns.add(workflow.case_noun.casefold())
    conditions = [(c.name, tokens(spoken(c.name)), spoken(c.name)) for c in workflow.conditions]
    conditions += [(c.name, tokens(a), a) for c in workflow.conditions for a in c.aliases]
    conditions = [(name, toks, phrase) for name, toks, phrase in conditions if toks]
    conditions.sort(key=lambda item: -len(item[1]))
    return Vocabulary(
        conditions=tuple(conditions),
        words=words,
        record_nouns="|".join(re.escape(n) for n in sorted(nouns, key=lambda n: (-len(n), n))),
        operation_regex=re.compile(rf"(?:{grouped or _NEVER})(?!\w)", ICASE),
        operation_groups=groups,
        operation_phrases={f"p{n}": p for n, p in enumerate(ordered)},
        workflow=workflow,
        field_pattern=field_alt,
        field_names={phrase_key(p): n for p, n in fields.items()},
        operation_pattern=op_alt,
        operation_names={phrase_key(p): n for p, n in operations.items()},
        operation_verbs={verb: tuple(names) for verb, names in verbs.items()},
        questions=tuple(questions),
        starters=starters,
    )
