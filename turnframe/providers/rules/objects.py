"""Objects an operation does not take: "send me the boarding cards", "cancel only the second
half". The workflow's operation word is there, but right after it stands an object the operation
has no argument for (a thing, or a part of the record): what is asked is something else, which
the workflow does not declare. The act is replaced by an operation named as the user said it,
which the reducer rejects (``turnframe.act.unknown_operation``): no card shows an operation the
user did not ask for.

Only an object *right after* the operation's phrase counts, and only one that opens like a noun
phrase ("me the …", "just the …", "2 …") and names neither the record (its noun or its name)
nor a thing in general ("the whole thing", "everything"): "submit the form", "close it",
"close the request, the client changed plans" keep their reading.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from turnframe.plan import OperationAct
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary

#: A noun phrase opening: an optional receiver, an optional restriction, a determiner.
_OBJECT = re.compile(
    r"(?:(?:me|us|him|her|them)\s+)?(?:(?:only|just|solely|merely)\s+)?"
    r"(?:the|a|an|my|our|his|her|their|some|both|two|three|\d+)\s+(?P<noun>[^\W\d][\w'-]*)",
    ICASE,
)
#: Nouns that stand for the record or the request itself, not another object.
_GENERIC = re.compile(
    r"(?:thing|things|lot|whole|entire|rest|request|requests|form|case|record|one|same|it"
    r"|everything|all|change|changes|details|info|information|data)",
    ICASE,
)


def foreign_objects(
    plan: PlanBuilder, vocab: Vocabulary, mentions: Callable[[int, int], set[str]]
) -> None:
    """Replace every operation of ``plan`` whose phrase is followed by an object it does
    not take (see the module) with an operation named as the user said it."""
    for index, act in enumerate(plan.acts):
        if not isinstance(act, OperationAct) or not act.evidence:
            continue
        words = _object_after_phrase(plan, act, vocab, mentions)
        if words is not None:
            plan.acts[index] = attrs.evolve(act, operation=words, args={}, confirm=False)


def _object_after_phrase(
    plan: PlanBuilder,
    act: OperationAct,
    vocab: Vocabulary,
    mentions: Callable[[int, int], set[str]],
) -> str | None:
    op = vocab.workflow.operation(act.operation)
    if op is None:
        return None
    if any(
        a.required and a.type is str and not a.choices and a.name not in act.args
        for a in op.arguments
    ):
        return None  # "add a few things": the words may be the object it takes, left unread
    first = act.evidence[0]
    phrase = next(
        (
            m
            for m in vocab.operation_regex.finditer(plan.text, first.start, first.end)
            if vocab.operation_named(m.group(0)) == act.operation
        ),
        None,
    )
    if phrase is None:
        return None
    for unread in plan.unread:
        gap = plan.text[phrase.end() : unread.start]
        if unread.start < phrase.end() or gap.strip():
            continue
        obj = _OBJECT.match(plan.text, unread.start, unread.end)
        if obj is None or _GENERIC.fullmatch(obj.group("noun")):
            return None
        end = max(unread.end, act.evidence[-1].end)  # what the object's words run into
        said = plan.text[unread.start : end]
        record = re.search(rf"(?<!\w)(?:{vocab.record_nouns})s?(?!\w)", said, ICASE)
        if record is not None or mentions(unread.start, end):
            return None  # "the damn booking for Ana": the record, said with more words
        return f"{phrase.group(0)} {unread.text}".strip()
    return None
