"""Clauses without a verb that lean on the act before them.

- A *follow-up* repeats the previous act with one thing changed: "and the return too", "same
  for order 1002", "also for Rui", "and 2 city cards too". What it names replaces what the
  previous act had: another case (a case the user may name), another field (a field name,
  with the same value), or other arguments of the same operation (read by its parsers).
- A *continuation* finishes the previous operation: "… - no, 4 - at 12 euros each" adds the
  price the operation did not have yet. It adds arguments; it never changes one already given.

Both are read only when every word of the clause is accounted for; otherwise the clause stays
not understood (never guessed at).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import attrs

from turnframe.plan import (
    Act,
    CorrectAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    SetFieldAct,
    Target,
)
from turnframe.providers.rules.actions import unnamed_owner, waits_for_card
from turnframe.providers.rules.args import read_arguments
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.confidence import free_text_doubt
from turnframe.providers.rules.shapes import ICASE, TRIM
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.workflow import ParseContext

Span = tuple[int, int]
_FRAME = re.compile(
    r"(?:(?:and|also|plus|then|ok(?:ay)?|please|pls|now)[\s,]+)*(?:(?:(?:please\s+)?do\s+)?(?:the\s+)?same"
    r"\s+(?:thing\s+|[\w-]+\s+)?(?:again\s+)?(?:for|on|with|goes\s+for)"
    r"\s+(?P<a>.+)|(?:for\s+|on\s+|with\s+)?(?P<b>.+?)(?:\s+(?:too|as\s+well|also))"
    r"|(?:and|also|plus)\s+(?:for\s+|on\s+)?(?P<c>.+))",
    ICASE,
)


_AGAIN = re.compile(
    r"(?:(?:and|also|plus|ok(?:ay)?|please|pls|now)[\s,]+)*(?:(?:do\s+)?(?:the\s+)?same"
    r"(?:\s+thing)?\s+again|again|once\s+more|another\s+one|one\s+more(?:\s+time)?"
    r"|do\s+(?:it|that|this)\s+again)(?:\s+please)?",
    ICASE,
)
#: "do it again but 19 March", "same again, but 3 of them": the previous request again, with
#: the arguments said after "but" (group ``rest``).
_AGAIN_BUT = re.compile(_AGAIN.pattern + r"[\s,]+(?:but|only|with|just)\s+(?P<rest>\S.*)", ICASE)


#: "two more", "and another 10", "5 more please": the previous operation again, with the value
#: said in place of the one it had (a count, an amount), read by the operation's parsers.
_MORE = re.compile(
    r"(?:(?:and|also|plus)\s+)?(?:another\s+(?P<a>[^\s,;]+(?:\s+[^\s,;]+)?)"
    r"|(?P<b>[^\s,;]+(?:\s+(?:euros?|eur|€))?)\s+more)"
    # "two more for the kids": who the more are for, when it names no one in particular
    r"(?:\s+for\s+(?:the\s+kids|the\s+children|the\s+family|us|them|everyone|everybody"
    r"|(?:the|my|our)\s+(?:other\s+)?(?:two|three|four|friends|parents|kids|children)))?"
    r"(?:\s+please)?",
    ICASE,
)


def _more(
    text: str, span: Span, previous: Act, vocab: Vocabulary, ctx: ParseContext, evidence: Any
) -> FollowUp | None:
    m = _MORE.fullmatch(text, *span)
    if m is None or not isinstance(previous, OperationAct):
        return None
    group = "a" if m.group("a") is not None else "b"
    op = vocab.operation(previous.operation)
    reading = read_arguments(op, text, *m.span(group), ctx=ctx)
    said = [name for name in reading.args if name not in _text_args(op)]
    if reading.unread or len(said) != 1:
        return None
    args = {**previous.args, said[0]: reading.args[said[0]]}
    act = OperationAct(
        target=previous.target, operation=previous.operation, args=args, evidence=evidence
    )
    return FollowUp(act=act, note=Note(operation=previous.operation, args=args, numbers=(said[0],)))


def _text_args(op: Any) -> set[str]:
    return {a.name for a in op.arguments if a.type is str}


def _texts_read(op: Any, args: dict[str, str]) -> dict[str, str]:
    """The free-text arguments among ``args`` that hold words."""
    return {k: v for k, v in args.items() if k in _text_args(op) and v}


def _plain(words: str) -> str:
    return " ".join(words.casefold().split())


@attrs.frozen(kw_only=True)
class FollowUp:
    act: Act
    note: Note
    continues: int | None = None  # the act it completes (cancelled and replaced), if any


#: A clause that opens with a verb of its own (an order about the conversation, not another
#: object of the request before it): "and stop wasting my time", "and hurry up".
_OWN_VERB = re.compile(
    r"[\s,]*(?:(?:and|but|so|then)\s+)?(?:please\s+)?(?:stop|quit|hurry|don['\u2019]?t|do\s+not"
    r"|never|get\s+(?:it|this|on)|let\s+me|tell\s+me|call\s+me|email\s+me|write\s+me"
    r"|answer|reply|respond)\b",
    re.IGNORECASE,
)


def follow_up(
    text: str,
    span: Span,
    *,
    plan: PlanBuilder,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
    context: tuple[Act, ...] = (),
) -> FollowUp | None:
    """The act a verbless clause means, from the latest change of the turn (or, in a turn
    with none, from the previous turn's acts: "same for 1002", "and another one")."""
    if _OWN_VERB.match(text, *span):
        return None  # "… and stop wasting my time": a clause of its own, never an object
    index = plan.last_change()
    if index is None:
        earlier = [a for a in context if isinstance(a, SetFieldAct | OperationAct | QuestionAct)]
        if not earlier:
            return None
        found = _from_context(
            text, span, earlier[-1], plan=plan, vocab=vocab, targets=targets, ctx=ctx
        )
        return None if _answers_the_question(earlier[-1], found) else found
    previous = plan.acts[index]
    root = plan.acts[plan.root(index)]
    quoted_field = _quoted_field(text, span, vocab, plan.evidence(span), root)
    if quoted_field is not None:
        return quoted_field
    if _AGAIN.fullmatch(text, *span) and isinstance(previous, OperationAct):
        repeat = attrs.evolve(previous, evidence=plan.evidence(span), repeats=index)
        return FollowUp(act=repeat, note=Note(operation=previous.operation, args=previous.args))
    more = _more(text, span, previous, vocab, ctx, plan.evidence(span))
    if more is not None and isinstance(more.act, OperationAct):
        # "2 city cards and 2 more": another instance, never a restatement of the first
        return attrs.evolve(more, act=attrs.evolve(more.act, repeats=index))
    if more is not None:
        return more
    m = _FRAME.fullmatch(text, *span)
    framed = m is not None
    start, end = span
    if m is not None:
        group = next(g for g in ("a", "b", "c") if m.group(g) is not None)
        start, end = m.span(group)
    while start < end and text[start] in TRIM:
        start += 1
    while end > start and text[end - 1] in TRIM:
        end -= 1
    if start >= end:
        return None
    evidence = plan.evidence(span)
    said = targets.mentions(start, end)
    named_case = (
        said
        and said[0].start == _skip_lead(text, start, end)
        and _rest_empty(text, said[0].end, end)
    )
    if named_case:
        target = LabelTarget(label=said[0].label)
        return _same_on(previous, root, plan, plan.root(index), target, evidence)
    if m is not None and m.group("a") is not None and not said and _proper_name(text[start:end]):
        # "same for Joana": the name takes the place of the name the act had ("paid by
        # Marta"); an act without one has no place for it, and nothing is guessed.
        return _same_for_person(text[start:end], previous, vocab, evidence)
    if isinstance(root, SetFieldAct):
        also = _other_field_too(text, span, root.target, vocab, ctx, evidence)
        if also is not None:
            return also
    if isinstance(root, SetFieldAct) and said:
        on_case = _value_on_case(text, (start, end), root.field, vocab, targets, ctx, evidence)
        if on_case is not None:
            return on_case
    if isinstance(root, SetFieldAct) and framed:
        field = _field_named(text, start, end, vocab)
        if field is not None and field != root.field:
            value = previous.value if isinstance(previous, CorrectAct) else root.value
            same: Act = SetFieldAct(target=root.target, field=field, value=value, evidence=evidence)
            return FollowUp(act=same, note=Note(field=field, span=span))
        return None
    if not isinstance(previous, OperationAct):
        return None
    op = vocab.operation(previous.operation)
    owner = unnamed_owner(text, start, end, vocab)
    skip = [owner[0]] if owner is not None and owner[1] is None else []
    reading = read_arguments(op, text, start, end, ctx=ctx, object_start=start, skip=skip)
    if reading.unread or not reading.args:
        return None
    new_args = {k: v for k, v in reading.args.items() if k not in previous.args}
    if not framed and new_args == reading.args and not _has_object(op, reading.args):
        # A continuation: only arguments the operation did not have yet.
        args = {**previous.args, **reading.args}
        longer = attrs.evolve(previous, args=args, evidence=(*previous.evidence, *evidence))
        note = attrs.evolve(plan.notes[index], args=args)
        return FollowUp(act=longer, note=note, continues=index)
    if not framed and not _has_object(op, reading.args):
        return None  # bare values that change given arguments: a correction, not read here
    if _qualifier_object(op, reading.args):
        return None  # "…, 30 total", "…, 30 per couple": how a value counts, not a new object
    if _restated_object(op, reading.args, previous.args):
        return None  # "add 3 bikes, sorry, 2 bikes": the object said again, never a second one
    # Another object ("and 2 city cards too", "and the return too") keeps the previous act's
    # other arguments except its counts and amounts, which describe the object they came with.
    args = dict(previous.args)
    if _has_object(op, reading.args):
        numeric = {a.name for a in op.arguments if a.type in (int, float)}
        args = {k: v for k, v in args.items() if k not in numeric}
    args.update(reading.args)
    on: Target = previous.target
    for a in op.arguments:  # "and a bike to the Porto project": another record, by its name
        named = _other_record(vocab.record_nouns).search(str(args.get(a.name, "")))
        if a.type is str and named is not None and named.start() > 0:
            args[a.name] = args[a.name][: named.start()].strip()
            on = LabelTarget(label=named.group("name"))
    other: Act = OperationAct(target=on, operation=previous.operation, args=args, evidence=evidence)
    return FollowUp(act=other, note=Note(operation=previous.operation, args=args))


@functools.cache
def _other_record(nouns: str) -> re.Pattern[str]:
    """ "… to the Porto project", "… for our Madrid booking": a record named by a capitalised
    name and the workflow's record noun, at the end of an object's words."""
    return re.compile(
        rf"\s+(?:to|for|on|in)\s+(?:the|my|our)\s+(?P<name>(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)*)"
        rf"\s+(?:{nouns})s?$",
        ICASE,
    )


def _answers_the_question(previous: Act, found: FollowUp | None) -> bool:
    """Whether a follow-up of a field change still without its value would only repeat that
    empty change: the workflow asked for the value, so the words answer it ("Acme 2026" is
    the new name, never the same empty change on the record "Acme")."""
    if not isinstance(previous, SetFieldAct) or previous.value or found is None:
        return False
    act = found.act
    return (
        isinstance(act, SetFieldAct)
        and act.field == previous.field
        and not act.value
        and act.target == previous.target  # "… on the other order": that record, asked again
    )


def _from_context(
    text: str,
    span: Span,
    previous: Act,
    *,
    plan: PlanBuilder,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
) -> FollowUp | None:
    """A follow-up of the previous turn's act: the same on another case, the same again, or
    (for an operation) with other arguments."""
    evidence = plan.evidence(span)
    if isinstance(previous, SetFieldAct):  # "the due date too, 17 March"
        also = _other_field_too(text, span, previous.target, vocab, ctx, evidence)
        if also is not None:
            return also
    if _AGAIN.fullmatch(text, *span) and isinstance(previous, OperationAct):
        repeated = attrs.evolve(previous, evidence=evidence)
        return FollowUp(act=repeated, note=Note(operation=previous.operation, args=previous.args))
    but = _AGAIN_BUT.fullmatch(text, *span)
    if but is not None and isinstance(previous, OperationAct):
        op = vocab.operation(previous.operation)
        reading = read_arguments(op, text, but.start("rest"), span[1], ctx=ctx)
        if reading.unread or not reading.args:
            return None
        if _text_args(op) & reading.args.keys():
            return None  # "do it again but cheaper": how, not what; never a new object
        args = {**previous.args, **reading.args}
        changed = attrs.evolve(previous, args=args, evidence=evidence)
        return FollowUp(act=changed, note=Note(operation=previous.operation, args=args))
    more = _more(text, span, previous, vocab, ctx, evidence)
    if more is not None:
        return more
    m = _FRAME.fullmatch(text, *span)
    start, end = span
    if m is not None:
        group = next(g for g in ("a", "b", "c") if m.group(g) is not None)
        start, end = m.span(group)
    start, end = _trim(text, start, end)
    if start >= end:
        return None
    said = targets.mentions(start, end)
    if m is not None and m.group("a") is not None and not said and _proper_name(text[start:end]):
        return _same_for_person(text[start:end], previous, vocab, evidence)
    if said and said[0].start == _skip_lead(text, start, end):
        target = LabelTarget(label=said[0].label)
        rest = (said[0].end, end)
        if isinstance(previous, QuestionAct) and _rest_empty(text, *rest):
            asked = attrs.evolve(previous, target=target, evidence=evidence)
            return FollowUp(act=asked, note=Note())
        if _rest_empty(text, *rest):
            return _same_on(previous, previous, plan, 0, target, evidence)
    if isinstance(previous, SetFieldAct) and said:  # "and on 1002 'all good'"
        return _value_on_case(text, (start, end), previous.field, vocab, targets, ctx, evidence)
    missing = _missing_required(previous, vocab)
    if missing and m is None and not said:
        # "want to add an item", then "bike rental for 3 days at 12 euros a day": the
        # arguments a routine request lacked (its object among them), all of them read and
        # nothing else said. A request that waits for a card is completed by the workflow's own
        # question and card instead.
        assert isinstance(previous, OperationAct)
        op = vocab.operation(previous.operation)
        if waits_for_card(vocab, op.name) or not _text_args(op) & missing:
            return None
        reading = read_arguments(op, text, start, end, ctx=ctx, object_start=start)
        texts = _texts_read(op, reading.args).values()
        if any(free_text_doubt(v, vocab) for v in texts):
            return None  # "kayak x2 maybe": the question and the card show what was read
        answer = _plain(text[start:end])
        if any(_plain(v) not in answer for v in texts):
            return None  # "2 bikes at 12 euros 2 helmets": words gathered from here and there
        if not reading.unread and missing <= reading.args.keys():
            args = {**previous.args, **reading.args}
            done = OperationAct(
                target=previous.target, operation=previous.operation, args=args, evidence=evidence
            )
            return FollowUp(act=done, note=Note(operation=previous.operation, args=args))
    if isinstance(previous, OperationAct) and _REST.fullmatch(text, start, end):
        # "and the rest too": the same operation for what is left, which the workflow
        # proposes (its card shows the value); without a proposal, nothing is guessed.
        op = vocab.operation(previous.operation)
        proposed = {a.name for a in op.arguments if a.propose is not None}
        if not proposed:
            return None
        args = {k: v for k, v in previous.args.items() if k not in proposed}
        rest_act = OperationAct(
            target=previous.target,
            operation=previous.operation,
            args=args,
            evidence=evidence,
            confirm=True,
        )
        return FollowUp(act=rest_act, note=Note(operation=previous.operation, args=args))
    if isinstance(previous, OperationAct) and m is not None:
        op = vocab.operation(previous.operation)
        owner = unnamed_owner(text, start, end, vocab)
        skip = [owner[0]] if owner is not None and owner[1] is None else []
        reading = read_arguments(op, text, start, end, ctx=ctx, object_start=start, skip=skip)
        if reading.unread or not reading.args:
            return None
        args = dict(previous.args)
        objects = _texts_read(op, reading.args)
        if objects and _restated_object(op, objects, previous.args):
            # "do the same again for a second kayak": the same thing once more, as it was
            return FollowUp(
                act=attrs.evolve(previous, evidence=evidence),
                note=Note(operation=previous.operation, args=previous.args),
            )
        if _has_object(op, reading.args):
            numeric = {a.name for a in op.arguments if a.type in (int, float)}
            args = {k: v for k, v in args.items() if k not in numeric}
        args.update(reading.args)
        act = OperationAct(
            target=previous.target, operation=previous.operation, args=args, evidence=evidence
        )
        return FollowUp(act=act, note=Note(operation=previous.operation, args=args))
    return None


def _missing_required(previous: Act, vocab: Vocabulary) -> set[str]:
    """The required arguments an operation act still lacks (none for any other act)."""
    if not isinstance(previous, OperationAct):
        return set()
    op = vocab.operation(previous.operation)
    return {
        a.name
        for a in op.arguments
        if a.required and a.propose is None and not previous.args.get(a.name)
    }


#: What is left of a value already asked for: "the rest", "the remainder", "what's left".
_REST = re.compile(
    r"(?:the\s+)?(?:rest|remainder|remaining\s+(?:amount|part|balance)|balance"
    r"|what['\u2019]?s\s+left|what\s+is\s+left)(?:\s+(?:of\s+it|please|pls))*",
    ICASE,
)
_QUOTED = re.compile(r"[\"\u201c'\u2018](?P<v>[^\"\u201d'\u2019]+)[\"\u201d'\u2019]")
#: "4712's to 'pending'", "on Rui's to b@y.pt", "for 4712 b@y.pt": after the case, its
#: possessive or noun, an optional field name, then "to", ":" or "is" before the value.
_AFTER_CASE = (
    r"(?:['\u2019]s)?(?:\s+(?!to\b)[\w-]+(?=\s))?(?:\s+(?:F))?\s*(?:to|:|=|is|as|should\s+be)?\s*"
)
#: "b@y.pt on 4712": the value, then where it goes.
_BEFORE_CASE = r"(?P<v>.+?)\s+(?:on|for|in|to)\s+(?:the\s+|my\s+|(?:N)\s+)?$"


def _value_on_case(
    text: str,
    span: Span,
    field: str,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
    evidence: Any,
) -> FollowUp | None:
    """ "…, and 4712's to 'pending'", "and on Rui's to b@y.pt", "and b@y.pt on 4712": the
    same field on another case, with the value said for it. A value of a free-text field must
    be quoted (its words could be anything); a typed value must parse as the field's type."""
    start, end = span
    while end < len(text) and text[end] in "\"'\u201d\u2019":
        end += 1  # the closing quote of the value, which a trim took off
    said = [m for m in targets.mentions(start, end) if not inside_address(text, m.start, m.end)]
    if len(said) != 1:
        return None
    mention = said[0]
    if mention.start <= _skip_lead(text, start, end) <= mention.end:  # "on order 4712 to …"
        pattern = re.compile(_AFTER_CASE.replace("F", vocab.field_pattern), ICASE)
        after = pattern.match(text, mention.end, end)
        value = text[after.end() if after else mention.end : end].strip(TRIM + " ")
        raw = text[after.end() if after else mention.end : end].strip()
    else:
        before_case = _BEFORE_CASE.replace("N", vocab.record_nouns)
        before = re.fullmatch(before_case, text[start : mention.start], ICASE)
        if before is None or not _rest_empty(text, mention.end, end):
            return None
        raw = before.group("v").strip()
        value = raw.strip(TRIM + " ")
    if not value:
        return None
    declared = vocab.workflow.field(field)
    if declared is None:
        return None
    quoted = _QUOTED.fullmatch(raw)
    colon = re.match(r"\s*:", text[mention.end : end]) is not None  # "on 4712: call back"
    if quoted is not None:
        value = quoted.group("v").strip()
    elif _free_text(declared, ctx) and not colon:
        return None
    if not _accepts(declared, value, ctx):
        return None
    act: Act = SetFieldAct(
        target=LabelTarget(label=mention.label), field=field, value=value, evidence=evidence
    )
    return FollowUp(act=act, note=Note(field=field, span=span))


@functools.cache
def _field_with_quote(field_pattern: str) -> re.Pattern[str]:
    return re.compile(
        r"(?:(?:and|also|plus)\s+)*(?:(?:a|an|the|my|our)\s+)?"
        rf"(?P<f>{field_pattern})\s*(?:[:=]\s*|saying\s+|that\s+says\s+|reading\s+)?"
        r"(?P<v>[\"\u201c'\u2018][^\"\u201d'\u2019]+[\"\u201d'\u2019]?)",
        ICASE,
    )


def _quoted_field(
    text: str, span: Span, vocab: Vocabulary, evidence: Any, root: Act
) -> FollowUp | None:
    """ "…, and a note 'runners'": a field named with a quoted value, after any change, is
    that field's change on the same record (never an object of the operation before it)."""
    start, end = span
    while end < len(text) and text[end] in "\"'\u201d\u2019":
        end += 1  # the closing quote of the value, which a trim took off
    m = _field_with_quote(vocab.field_pattern).fullmatch(text, start, end)
    target = getattr(root, "target", None)
    if m is None or target is None:
        return None
    value = m.group("v").strip("\"'\u201c\u201d\u2018\u2019 ")
    field = vocab.field_named(m.group("f"))
    if not value:
        return None
    act: Act = SetFieldAct(target=target, field=field, value=value, evidence=evidence)
    return FollowUp(act=act, note=Note(field=field, span=span))


@functools.cache
def _too_with_value(field_pattern: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?:(?:and|also|plus)\s+)?(?:the\s+|my\s+|our\s+)?(?P<f>{field_pattern})\s+"
        r"(?:too|as\s+well|also)\s*[,:\u2013\u2014-]?\s*(?:to\s+|at\s+|on\s+|as\s+)?(?P<v>\S.*)",
        ICASE,
    )


def _other_field_too(
    text: str, span: Span, target: Any, vocab: Vocabulary, ctx: ParseContext, evidence: Any
) -> FollowUp | None:
    """ "(and) the due date too, 11 March": another field of the same case, with the value
    said for it; a free-text value must be quoted, a typed one must parse and validate."""
    m = _too_with_value(vocab.field_pattern).fullmatch(text, *span)
    if m is None:
        return None
    field = vocab.field_named(m.group("f"))
    declared = vocab.workflow.field(field)
    raw = m.group("v").strip()
    quoted = _QUOTED.fullmatch(raw)
    value = quoted.group("v").strip() if quoted else raw.strip(TRIM + " ")
    if declared is None or not value or (quoted is None and _free_text(declared, ctx)):
        return None
    if not _accepts(declared, value, ctx):
        return None
    act: Act = SetFieldAct(target=target, field=field, value=value, evidence=evidence)
    return FollowUp(act=act, note=Note(field=field, span=span))


def inside_address(text: str, start: int, end: int) -> bool:
    """Whether a name stands inside a longer token such as an address ("rui@x.pt")."""
    left = re.search(r"\S*$", text[max(0, start - 64) : start])
    right = re.match(r"\S*", text[end : end + 64])
    token = (left.group(0) if left else "") + (right.group(0) if right else "")
    return "@" in token or "/" in token


def _accepts(field: Any, words: str, ctx: ParseContext) -> bool:
    """Whether the field parses and validates ``words`` as its value."""
    try:
        value = field.parse(words, ctx)
    except (ValueError, TypeError):
        return False
    return field.validate is None or field.validate(value) is None


def _free_text(field: Any, ctx: ParseContext) -> bool:
    """Whether any words at all are a value of the field (a note, a name)."""
    return _accepts(field, "any words at all", ctx)


def _proper_name(words: str) -> bool:
    """ "Joana", "Rui Costa": one or two capitalised words, nothing else."""
    parts = words.split()
    return (
        0 < len(parts) <= 2
        and all(
            p[0].isupper() and p[1:].replace("-", "").replace("'", "").isalpha() and p[1:].islower()
            for p in parts
            if len(p) > 1
        )
        and all(len(p) > 1 for p in parts)
    )


def _same_for_person(name: str, previous: Act, vocab: Vocabulary, evidence: Any) -> FollowUp | None:
    if not isinstance(previous, OperationAct):
        return None
    op = vocab.operation(previous.operation)
    named = [
        a.name
        for a in op.arguments
        if a.type is str and not a.required and _proper_name(str(previous.args.get(a.name, "")))
    ]
    if len(named) != 1:
        return None
    args = {**previous.args, named[0]: name}
    act = OperationAct(
        target=previous.target, operation=previous.operation, args=args, evidence=evidence
    )
    return FollowUp(act=act, note=Note(operation=previous.operation, args=args))


def _trim(text: str, start: int, end: int) -> Span:
    while start < end and text[start] in TRIM:
        start += 1
    while end > start and text[end - 1] in TRIM:
        end -= 1
    return start, end


def _same_on(
    previous: Act, root: Act, plan: PlanBuilder, root_index: int, target: LabelTarget, evidence: Any
) -> FollowUp | None:
    if isinstance(root, SetFieldAct):
        value = previous.value if isinstance(previous, CorrectAct) else root.value
        act: Act = SetFieldAct(target=target, field=root.field, value=value, evidence=evidence)
        return FollowUp(act=act, note=Note(field=root.field))
    if isinstance(previous, OperationAct):
        act = OperationAct(
            target=target, operation=previous.operation, args=dict(previous.args), evidence=evidence
        )
        return FollowUp(act=act, note=Note(operation=previous.operation, args=previous.args))
    return None


def _has_object(op: Any, args: dict[str, str]) -> bool:
    return any(a.name in args and a.required and a.type is str for a in op.arguments)


#: Words that say how a value counts ("in total", "per couple", "each", "apiece", "both"):
#: an object that starts with one is a qualifier of the value said beside it.
_QUALIFIER = re.compile(
    r"(?:in\s+)?total|altogether|all\s+in|per|each|apiece|both|all|a\s+piece|of\s+them"
    r"|for\s+(?:all|both|everyone|each)",
    ICASE,
)


def _restated_object(op: Any, said: dict[str, str], before: dict[str, str]) -> bool:
    """Whether the words give only the previous act's own object, as it was ("bikes" after
    "add 3 bikes, sorry, 2"): said again after a correction, not another object."""
    return (
        bool(said)
        and set(said) <= _text_args(op)
        and all(_plain(v) == _plain(str(before.get(k, ""))) for k, v in said.items())
    )


def _qualifier_object(op: Any, args: dict[str, str]) -> bool:
    """Whether the free-text object read from a verbless clause is only a qualifier of a
    number beside it ("30 total" names no object called "total")."""
    for a in op.arguments:
        value = args.get(a.name)
        if a.required and a.type is str and isinstance(value, str):
            words = value.strip()
            if _QUALIFIER.fullmatch(words) or re.match(r"per\s", words, ICASE):
                return True
    return False


def _skip_lead(text: str, start: int, end: int) -> int:
    lead = r"(?:(?:the|my|our|order|no\.?|number|#|on|for|to|of|with)\s*)*"
    m = re.compile(lead, ICASE).match(text, start, end)
    return m.end() if m is not None else start


def _rest_empty(text: str, at: int, end: int) -> bool:
    """Nothing but a noun after the name ("1002's", "order 1002", "Rui's booking")."""
    rest = text[at:end]
    return re.fullmatch(r"[\s\w']{0,16}", rest) is not None and len(rest.split()) <= 1


def _field_named(text: str, start: int, end: int, vocab: Vocabulary) -> str | None:
    m = re.compile(rf"(?:the\s+|my\s+)?({vocab.field_pattern})", ICASE).fullmatch(text, start, end)
    return None if m is None else vocab.field_named(m.group(1))
