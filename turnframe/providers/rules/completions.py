"""A short turn that completes or repeats the previous turn's request on a record it names.

- A turn that only names a record ("record 4711", "it's 4711", "for Ana's one please") answers
  the question back of which record: every act of the previous turn that named none is
  read again on that record (an operation still waits for its card if it always does).
- "what about 4712", "how about Rui's?" after a question asks the same question about that
  record (one question per record named: "what about 4712 and 4713"); "same for record 4712"
  asks it, or makes the previous turn's changes there (one record only).
- "and 20 more on the same one", "another one for it", "and one more for my wife": the words
  before the record named again (or whom it is for) are read as a follow-up of the previous
  request (the same record, so nothing moves).

Within a turn, "and the same note to 4712" and "do the same for 4712" are said as "and the
same for 4712" before they are read (:func:`same_for`), so the clause reader follows the act
before them.

Only the previous turn's own acts are repeated, and only when every word of the turn is a
record's name, a word that leads one ("the", "number", what a record is called) or
politeness; anything else is left to the clause reader.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from turnframe.plan import (
    Act,
    ChitchatAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    SetFieldAct,
)
from turnframe.providers.rules.args import read_arguments
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.edits import Edit, inside
from turnframe.providers.rules.follow import follow_up
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.targets import Mention, Targets
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.workflow import ParseContext

Span = tuple[int, int]

_CLOSE = re.compile(
    r"(?:[\s,]+(?:please|pls|thanks|thank\s+you|too|as\s+well|then)|[\s?!.,]+)+$", ICASE
)
_ABOUT = re.compile(
    r"(?:(?:and|so|ok(?:ay)?|also|then)[\s,]+)?(?:what|how)\s+about\s+(?:for\s+|on\s+)?", ICASE
)
_ONLY_RECORD = re.compile(
    r"(?:(?:ok(?:ay)?|oh|sorry|oops|yes|yeah|right|it['\u2019]?s|it\s+is|that['\u2019]?s"
    r"|that\s+is|i\s+meant?|i\s+mean|for|on|in|the|my|our|number|no\.?|nr\.?|#|please"
    r"|pls|one|this\s+is|i['\u2019]m|i\s+am|my\s+name\s+is|under|in\s+the\s+name\s+of|named"
    r"|called|of|name)[\s,:]*)*",
    ICASE,
)
#: "same for 4712", "the same thing on Rui's": the previous turn's acts on that record.
_SAME_FOR = re.compile(
    r"(?:(?:and|also|then|please|pls|now|ok(?:ay)?)[\s,]+)*(?:the\s+)?same(?:\s+thing|\s+again"
    r"|\s+question|\s+here)?\s+(?:for|on|with|goes\s+for)\s+",
    ICASE,
)
#: "… on the same one", "… for it": the record the previous request was on, named again;
#: "… for my wife": who it is for, which the previous request does not change.
_SAME_ONE = re.compile(
    r"[\s,]+(?:(?:on|for|to|with)\s+(?:the\s+same(?:\s+one|\s+[\w-]+)?|that\s+one|it|this\s+one)"
    r"|for\s+(?:my|our|his|her|their)\s+[a-z]+|for\s+(?:him|her|them|me|us))$",
    ICASE,
)


def only_records(text: str, start: int, end: int, said: Sequence[Mention], nouns: str) -> bool:
    """Whether ``text[start:end]`` is nothing but the records ``said`` (with "and" between
    them) and the words that lead a record's name."""
    lead = re.compile(rf"{_ONLY_RECORD.pattern}(?:(?:{nouns})s?\b[\s,:]*)?", ICASE)
    at = start
    for mention in said:
        gap = lead.fullmatch(text, at, mention.start)
        joined = re.fullmatch(r"[\s,]*(?:and|&|or)?[\s,]*", text[at : mention.start])
        if gap is None and (at == start or joined is None):
            return False
        at = mention.end
    rest = text[at:end]
    return re.fullmatch(rf"(?:['\u2019]s)?\s*(?:(?:{nouns})s?|one)?\s*", rest, ICASE) is not None


#: "and the same note to 4712", "same thing on 4712": a follow-up of the act before it, said
#: with the word of what is the same (group ``noun``) and "to" instead of "for".
_SAME_NOUN = re.compile(
    r"(?<![\w])(?:the\s+)?same\s+(?P<noun>[a-z]+(?:\s+[a-z]+)?)\s+(?:to|for|on)(?=\s)",
    ICASE,
)
#: "do the same for 4712", "can you do exactly the same on 4712": the "do" is the follow-up's.
_DO_SAME = re.compile(
    r"(?<![\w])(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?do\s+(?:exactly\s+)?"
    r"(?:the\s+)?(?=same\s+(?:thing\s+)?(?:for|on|with|to)\s)",
    ICASE,
)
_SAME_WORDS = frozenset({"thing", "one", "change", "request", "again", "value", "amount"})


def same_for(text: str, kept: Sequence[tuple[int, int]], words: frozenset[str]) -> list[Edit]:
    """Edits that say "the same note to 4712" as "the same for 4712", where the word between
    is a word of the workflow or says "thing" (so the follow-up reader reads it)."""
    edits = [
        Edit(start=m.start(), end=m.end(), words="")
        for m in _DO_SAME.finditer(text)
        if not inside(kept, m.start(), m.end())
    ]
    for m in _SAME_NOUN.finditer(text):
        noun = m.group("noun").casefold().split()
        if inside(kept, m.start(), m.end()) or not all(
            w in words or w in _SAME_WORDS for w in noun
        ):
            continue
        edits.append(Edit(start=m.start("noun"), end=m.end(), words="for"))
    return edits


def _note(act: Act) -> Note:
    if isinstance(act, OperationAct):
        return Note(operation=act.operation, args=dict(act.args))
    return Note(field=act.field) if isinstance(act, SetFieldAct) else Note()


def _plain(previous: Sequence[Act]) -> bool:
    """Whether every act of the previous turn stands on its own (no correction, cancellation,
    constraint or condition that another act's meaning depends on)."""
    return all(
        isinstance(a, OperationAct | SetFieldAct | QuestionAct | ChitchatAct)
        and getattr(a, "condition", None) is None
        for a in previous
    )


def _unresolved(act: Act) -> bool:
    if isinstance(act, QuestionAct) and act.question is None:
        return False  # a question about how things work names no record to complete
    target = getattr(act, "target", None)
    return target is None or (isinstance(target, LabelTarget) and not target.label)


def complete_previous(
    text: str,
    *,
    plan: PlanBuilder,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
    previous: Sequence[Act],
) -> bool:
    """Read the whole turn as a completion of the previous turn (see the module docstring);
    ``False`` when it is not one and the clause reader should read it."""
    earlier = [a for a in previous if isinstance(a, OperationAct | SetFieldAct | QuestionAct)]
    if not earlier:
        return False
    start = len(text) - len(text.lstrip())
    close = _CLOSE.search(text)
    end = close.start() if close is not None else len(text.rstrip())
    if start >= end:
        return False
    evidence = plan.evidence((start, len(text.rstrip())))
    same = _SAME_ONE.search(text, start, end)
    if same is not None:
        found = follow_up(
            text, (start, same.start()), plan=plan, vocab=vocab, targets=targets, ctx=ctx,
            context=tuple(previous),
        )
        if found is None or found.continues is not None:
            return False
        plan.add(attrs.evolve(found.act, evidence=evidence), found.note)
        return True
    about = _ABOUT.match(text, start, end)
    same = _SAME_FOR.match(text, start, end)
    at = about.end() if about is not None else same.end() if same is not None else start
    said = targets.mentions(at, end)
    if said and about is None and same is None and not only_records(
        text, at, end, said, vocab.record_nouns
    ):
        return _record_with_values(text, (at, end), said, previous, plan, vocab, targets, ctx)
    if not said or not only_records(text, at, end, said, vocab.record_nouns):
        return False
    if same is not None and not isinstance(earlier[-1], QuestionAct):
        changes = [a for a in earlier if isinstance(a, OperationAct | SetFieldAct)]
        if len({m.label for m in said}) != 1 or not _plain(previous):
            return False
        target = LabelTarget(label=said[0].label)
        for change in changes:  # "same for order 4712": every change of the previous turn
            plan.add(attrs.evolve(change, target=target, evidence=evidence), _note(change))
        targets.remember(target)
        return True
    if about is not None or same is not None:
        asked = earlier[-1]
        if not isinstance(asked, QuestionAct):
            return False  # "what about 4712" after a change: not a request to repeat it
        labels = dict.fromkeys(m.label for m in said)
        for label in labels:
            again = attrs.evolve(asked, target=LabelTarget(label=label), evidence=evidence)
            plan.add(again, Note())
        return True
    open_acts = [a for a in earlier if _unresolved(a)]
    if not open_acts or len({m.label for m in said}) != 1 or not _plain(previous):
        return False
    target = LabelTarget(label=said[0].label)
    for act in open_acts:
        plan.add(attrs.evolve(act, target=target, evidence=evidence), _note(act))
    targets.remember(target)
    return True



def _record_with_values(
    text: str,
    span: tuple[int, int],
    said: Sequence[Mention],
    previous: Sequence[Act],
    plan: PlanBuilder,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
) -> bool:
    """ "order 1001, 50 euros" after "which record?": the one open request of the previous
    turn, on that record, with the values said beside it (its typed arguments only: the words
    that name no value, or name a new object, leave the turn to the clause reader)."""
    open_acts = [a for a in previous if isinstance(a, OperationAct) and _unresolved(a)]
    if len(open_acts) != 1 or len({m.label for m in said}) != 1 or not _plain(previous):
        return False
    act = open_acts[0]
    op = vocab.workflow.operation(act.operation)
    if op is None:
        return False
    skip = [_with_lead(text, m.start, m.end, vocab.record_nouns) for m in said]
    reading = read_arguments(op, text, *span, ctx=ctx, skip=skip)
    free = {a.name for a in op.arguments if a.type is str}
    if reading.unread or not reading.args or free & reading.args.keys():
        return False
    target = LabelTarget(label=said[0].label)
    evidence = plan.evidence((span[0], len(text.rstrip())))
    args = {**act.args, **reading.args}
    plan.add(attrs.evolve(act, target=target, args=args, evidence=evidence), Note(
        operation=act.operation, args=args, numbers=tuple(reading.args)
    ))
    targets.remember(target)
    return True


def _with_lead(text: str, start: int, end: int, nouns: str) -> tuple[int, int]:
    """A record's mention with the words that lead it ("on order 1001", "for #1001")."""
    lead = re.search(
        rf"(?:(?:on|for|to|in)\s+)?(?:(?:the|my|our)\s+)?(?:(?:{nouns})s?\s+)?(?:(?:no\.?|number)\s*)?$",
        text[max(0, start - 40) : start],
        ICASE,
    )
    return (start - (len(lead.group(0)) if lead else 0), end)
