"""A story, then a vague ask: "… they charged us 25 for a breakfast we never had. Can you fix that?"

The ask names no change ("can you fix that?", "can you sort it out?", "can we do something about
it?", "can we do that?"); the story before it says what went wrong. Read after the rest of the
turn, and only when the reading found no change of its own:

- the story names exactly one value, and that value fits exactly one operation's argument (the
  one change it can mean): that operation waits for a card that shows it with that value (the
  card is the question; nothing runs without a click);
- otherwise (no story, several values, a value several changes could take) the reducer asks
  what should change (an ``unnamed_change`` on the record the story names), never guesses.

A vague ask alone, with no request before it in the conversation, asks too. After a request
of the previous turn, "can we do that?" is agreement, which the reader handles.
"""

from __future__ import annotations

import re

from turnframe.plan import (
    Act,
    CancelAct,
    ChitchatAct,
    CorrectAct,
    OperationAct,
    QuestionAct,
    SetFieldAct,
    UnnamedChangeAct,
)
from turnframe.providers.rules.actions import typed_value_ok
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.implied import candidates
from turnframe.providers.rules.shapes import ICASE, MONEY, TRIM
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.workflow import ParseContext

Span = tuple[int, int]

_THAT = r"(?:it|that|this|them|those|these|the\s+problem|the\s+issue|things|this\s+mess)"
#: An ask that names no change: "can you fix that?", "could you sort it out for me?".
VAGUE_ASK = re.compile(
    r"(?:(?:so|then|now|anyway|ok(?:ay)?|well|and|but|please)[\s,]+)*"
    r"(?:(?:can|could|would|will)\s+(?:you|we|u|someone|somebody)(?:\s+(?:please|kindly|just|maybe"
    r"|possibly|perhaps))*\s+|(?:please|kindly|pls)\s+|i\s+(?:need|want|would\s+like|['\u2019]d\s+like)"
    r"\s+(?:you\s+)?to\s+|is\s+(?:it|there\s+any\s+way)\s+(?:possible\s+)?(?:to|you\s+(?:can|could))\s+)?"
    rf"(?:fix|sort(?:\s+out)?|handle|deal\s+with|take\s+care\s+of|do\s+something\s+about"
    rf"|help\s+(?:me\s+|us\s+)?with|correct|resolve|rectify|put\s+right|make\s+good\s+on|do"
    rf"|change|update|amend|edit)"
    rf"\s+{_THAT}(?:\s+(?:out|right|up))?"
    r"(?:\s+(?:please|for\s+(?:me|us)|somehow|then|now|today|asap|too|as\s+well"
    r"|(?:for|on|with)\s+(?:the\s+|my\s+|our\s+)?(?:\w+\s+)?#?\d[\w-]*))*"
    r"|(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+|just\s+)?do\s+(?:what|as)\s+"
    r"(?:she|he|they|\w+)\s+(?:asks?|asked|says?|said|wants?|wanted|requests?|requested)"
    r"(?:\s+(?:please|for\s+(?:me|us)|here|below|above))*"
    r"|(?:can|could)\s+(?:something|anything)\s+be\s+done(?:\s+about\s+(?:it|that|this))?"
    r"|what\s+can\s+(?:you|we|be)\s+(?:do|done)(?:\s+about\s+(?:it|that|this))?",
    ICASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_CLAUSE_GAP = re.compile(r"[,;:\u2013\u2014]\s*|\s(?=(?:so|and|but)\s)", ICASE)


def _trimmed(text: str, s: int, e: int) -> Span:
    while s < e and text[s] in TRIM:
        s += 1
    while e > s and text[e - 1] in TRIM:
        e -= 1
    return s, e


def _ask_at_end(text: str) -> Span | None:
    """The vague ask that ends the message: its last sentence, or the last part of it after a
    comma or a connective ("…, the line was busy for 40 minutes, please help me with it")."""
    found = None
    for m in _SENTENCE.finditer(text):
        s, e = _trimmed(text, *m.span())
        if s < e:
            found = (s, e)
    if found is None:
        return None
    s, e = found
    starts = [s, *(m.end() for m in _CLAUSE_GAP.finditer(text, s, e))]
    for start in starts:
        at, end = _trimmed(text, start, e)
        if at < end and VAGUE_ASK.fullmatch(text, at, end) is not None:
            return at, end
    return None


def _changes(acts: list[Act]) -> bool:
    return any(
        isinstance(a, SetFieldAct | OperationAct | CorrectAct | CancelAct | UnnamedChangeAct)
        for a in acts
    )


def vague_ask(
    plan: PlanBuilder,
    text: str,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
    previous: tuple[Act, ...],
) -> None:
    """Read, in place, a vague ask at the end of the turn (see the module docstring)."""
    if _changes(plan.acts):
        return
    ask = _ask_at_end(text)
    if ask is None:
        return
    if not all(isinstance(a, ChitchatAct | QuestionAct) for a in plan.acts):
        return
    asked_here = [
        i
        for i, a in enumerate(plan.acts)
        if isinstance(a, QuestionAct)
        and any(ev.start < ask[1] and ask[0] < ev.end for ev in a.evidence)
    ]
    if any(getattr(plan.acts[i], "question", None) is not None for i in asked_here):
        return  # the ask was read as one of the workflow's questions: it stands
    story = text[: ask[0]]
    if not story.strip(TRIM) and _changes(list(previous)):
        return  # "can we do that?" after a request: agreement, the reader's to read
    for i in reversed(asked_here):
        del plan.acts[i]
        del plan.notes[i]
    plan.unread[:] = [ev for ev in plan.unread if not (ev.start < ask[1] and ask[0] < ev.end)]
    target = targets.default()
    evidence = plan.evidence(ask)
    implied = _implied_operation(story, vocab, ctx)
    shaped = _implied_field(story, vocab, ctx)
    if shaped is not None and implied is None:
        field, value, span = shaped
        change = SetFieldAct(
            target=target, field=field, value=value, evidence=(*plan.evidence(span), *evidence),
            confirm=True,
        )
        plan.add(change, Note(field=field, span=span))
        return
    if implied is not None and shaped is None:
        name, argument, value, span = implied
        args = {argument: value}
        act: Act = OperationAct(
            target=target,
            operation=name,
            args=args,
            evidence=(*plan.evidence(span), *evidence),
            confirm=True,
        )
        plan.add(act, Note(operation=name, args=args, numbers=(argument,)))
        return
    plan.add(UnnamedChangeAct(target=target, about=None, evidence=evidence))


def _implied_field(
    story: str, vocab: Vocabulary, ctx: ParseContext
) -> tuple[str, str, Span] | None:
    """The one value of a shape only one field takes ("… the contact should be V"), if the story
    says exactly one such value."""
    found: dict[str, tuple[str, str, Span]] = {}
    shaped = [
        f.name
        for f in vocab.workflow.fields
        if f.type is str and f.validate is not None
        and not typed_value_ok(vocab, f.name, "some words", ctx)
    ]
    for m in re.finditer(r"\S+", story):
        token = m.group(0).strip("\"'()<>[],.;:!?\u201c\u201d\u2018\u2019")
        if not token:
            continue
        fields = [f for f in shaped if typed_value_ok(vocab, f, token, ctx)]
        if len(fields) > 1:
            return None
        if fields:
            at = m.start() + m.group(0).find(token)
            found.setdefault(token.casefold(), (fields[0], token, (at, at + len(token))))
    if len(found) != 1:
        return None
    return next(iter(found.values()))


def _implied_operation(
    story: str, vocab: Vocabulary, ctx: ParseContext
) -> tuple[str, str, str, Span] | None:
    """The one operation argument the story's one amount fits, if there is exactly one."""
    said = list(MONEY.finditer(story))
    if len({m.group("money").casefold() for m in said}) != 1:
        return None
    value = said[0].group("money")
    options = [(op, arg) for op, arg in candidates(value, vocab, ctx) if arg is not None]
    ops = {op for op, _ in options}
    if len(options) != 1 or len(ops) != 1:
        return None
    name, argument = options[0]
    assert argument is not None
    return name, argument, value, said[0].span("money")


__all__ = ["VAGUE_ASK", "vague_ask"]
