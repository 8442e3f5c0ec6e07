"""Changes with nothing named, disowned values, and requests said twice (ADR 0024).

Read after the rest of the turn, only where the reading found no change of its own:

- "I want to change something on my case", "can you update my record?", "I need to fix a
  detail": a change verb with a vague object (or only the record) is an ``unnamed_change``: the
  reducer asks what to change, with the record's fields and operations as options.
- "no wait, wrong date", "hmm that's not right", "actually no, the other one": a turn that only
  disowns is an ``unnamed_change`` of the pending request (``pending``): the open card expires
  and the reducer asks for the value, naming the argument when the words do ("date").
- Any other turn that opens with a correction marker ("wait, make it the blue one instead",
  "actually, I meant something different") and that the reading cannot turn into a change is
  also an ``unnamed_change`` of the pending request: whatever it meant to correct, an open card
  must no longer be confirmable with the value it shows.
- The answer to "what would you like to change?" in the next turn ("the due date, 18 March",
  "the title") is the change it names, on the record asked about.
- "add X twice", "X for me and one for NAME": two separate requests (``repeats``), never one
  request said twice.

Every phrase below is ordinary English; the fields, arguments and record nouns come from the
workflow's vocabulary.
"""

from __future__ import annotations

import functools
import re

import attrs

from turnframe.plan import (
    Act,
    ChitchatAct,
    Evidence,
    OperationAct,
    SetFieldAct,
    Target,
    UnnamedChangeAct,
)
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.negations import CANCEL
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.split import marker_at
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary, phrase_key, spoken

_LEAD = (
    r"(?:(?:hi|hello|hey|please|so|ok(?:ay)?|um+|uh+)[\s,]+)*"
    r"(?:(?:i|we)\s+(?:(?:would|'d|\u2019d)\s+like|want|need|have|wish|wanted)\s+to\s+"
    r"|(?:can|could|would|will)\s+(?:you|i|we)(?:\s+(?:please|possibly|kindly|just))*\s+"
    r"|(?:please|kindly|just)\s+|let\s+me\s+|is\s+it\s+possible\s+to\s+)?"
)
_CHANGE = r"(?:change|update|modify|edit|amend|alter|adjust|fix|correct|tweak)"
_VAGUE = (
    r"(?:some(?:thing|\s+things?|\s+details?|\s+info(?:rmation)?)|a\s+(?:detail|thing|few\s+"
    r"(?:things|details))|(?:a\s+)?(?:couple\s+of|few)\s+(?:things|details)|details?|stuff"
    r"|(?:it|this|that))"
)
_DISOWN_LEAD = (
    r"(?:(?:no+|nope|wait|hmm+|hm+|oh|oops|sorry|actually|um+|uh+|hang\s+on|hold\s+on|ah)"
    r"[\s,.!\u2026-]*)*"
)
_DISOWN = re.compile(
    _DISOWN_LEAD
    + r"(?:(?:that|this|it)(?:['\u2019]?s|\s+is)\s+(?:not\s+(?:right|correct|it|what\s+i\s+"
    r"(?:meant|asked\s+for|wanted|said))|wrong|incorrect)"
    r"|thats\s+(?:not\s+right|wrong)"
    r"|(?:the\s+)?(?P<a>[a-z]+(?:\s+[a-z]+)?)\s+is\s+(?:wrong|not\s+right|incorrect)"
    r"|wrong\s+(?P<b>[a-z]+(?:\s+[a-z]+)?)"
    r"|(?:that['\u2019]?s\s+)?(?:the\s+)?wrong\s+one"
    r"|(?:no\s+)?(?:i\s+meant\s+)?(?:the\s+)?other\s+one"
    r"|not\s+(?:that|this)(?:\s+one)?"
    r"|(?:make\s+it|change\s+(?:it|that)\s+to|i\s+meant?|i\s+want(?:ed)?)\s+(?:something|another"
    r"\s+one|a\s+different\s+one)(?:\s+else)?(?:\s+instead)?"
    r"|i\s+(?:made\s+a\s+mistake|got\s+(?:it|that)\s+wrong|said\s+it\s+wrong))"
    r"[\s.!?\u2026]*",
    ICASE,
)
_ANSWER_LEAD = r"\s*(?:(?:the|my|our|its|change|update|fix)\s+)*"


@functools.cache
def _unnamed_change(nouns: str) -> re.Pattern[str]:
    record = (
        rf"(?:(?:the|my|our|this|that|your)\s+)?(?:[\w'\u2019-]+\s+)?(?:{nouns})"
        r"(?:\s+(?:no\.?|nr\.?|number)?\s*#?\d+)?"
    )
    return re.compile(
        _LEAD
        + rf"{_CHANGE}\s+(?:{_VAGUE}(?P<rest>\s+(?:on|in|about|of|for|with|to)\s+[^.!?]{{1,48}}?)?"
        rf"|{record})(?:\s+please)?[\s.!?]*",
        ICASE,
    )


@functools.cache
def _field_answer(field_pattern: str) -> re.Pattern[str]:
    return re.compile(
        _ANSWER_LEAD
        + rf"(?P<f>{field_pattern})(?:\s*[,:;=\u2013\u2014-]\s*|\s+(?:to|is|should\s+be"
        r"|as|on|->)\s+|\s+(?=\d))?(?P<v>.*?)[\s.!?]*",
        ICASE | re.DOTALL,
    )


_TWICE = re.compile(r"[\s,]+(?:twice|two\s+times|2\s+times)[\s.!?]*$", ICASE)
_ONE_FOR = re.compile(
    r"[\s,]*(?:and|plus|&)\s+(?:one|another(?:\s+one)?|the\s+same)\s+for\s+"
    r"(?P<name>(?-i:[A-Z])[\w-]+)[\s.!?]*",
    ICASE,
)
_FOR_ME = re.compile(r"\s+for\s+(?:me|myself|us)$", ICASE)


def read_unnamed(
    plan: PlanBuilder,
    vocab: Vocabulary,
    targets: Targets,
    previous: tuple[Act, ...],
) -> None:
    """Add what a turn without a change of its own asks for (see the module docstring)."""
    if any(not isinstance(a, ChitchatAct) for a in plan.acts):
        return
    text = plan.text
    start, end = _trim(text, 0, len(text))
    if start >= end:
        return
    asked = next((a for a in reversed(previous) if isinstance(a, UnnamedChangeAct)), None)
    if asked is not None and _answer(plan, vocab, targets, asked, start, end):
        return
    disowned = _DISOWN.fullmatch(text, start, end)
    if disowned is not None:
        said = disowned.group("a") or disowned.group("b")
        act = UnnamedChangeAct(
            target=None,
            pending=True,
            about=_named(vocab, said),
            evidence=plan.evidence((start, end)),
        )
        _replace(plan, act, start, end)
        return
    marker_end = _unread_correction(plan, start, end)
    if marker_end is not None:
        # The act's evidence is the marker; the words after it stay unread, so the reducer
        # still tries them as a new value for the card ("wait, make it the full amount
        # instead") and asks only when they are none.
        plan.add(
            UnnamedChangeAct(
                target=None, pending=True, about=None, evidence=plan.evidence((start, marker_end))
            )
        )
        return
    change = _unnamed_change(vocab.record_nouns).fullmatch(text, start, end)
    if change is not None:
        target = targets.find(start, end)
        rest = change.group("rest") or ""
        field = re.search(rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", rest, ICASE)
        if field is None and vocab.operation_regex.search(rest):
            return  # "something about the <operation>": that operation, not a change of nothing
        about = None if field is None else vocab.field_named(field.group(0))
        act = UnnamedChangeAct(target=target, about=about, evidence=plan.evidence((start, end)))
        _replace(plan, act, start, end)


def _unread_correction(plan: PlanBuilder, start: int, end: int) -> int | None:
    """Where the correction marker that opens the turn ends, when words after it are left
    unread: the turn corrects something and the reading cannot say what or to which value."""
    marker = marker_at(plan.text, start, end)
    if marker is None or CANCEL.match(plan.text, marker.end, end):
        return None  # "actually forget it, …": taken back, not corrected
    if any(e.end > marker.end and e.start < end for e in plan.unread):
        return marker.end
    return None


def _answer(
    plan: PlanBuilder,
    vocab: Vocabulary,
    targets: Targets,
    asked: UnnamedChangeAct,
    start: int,
    end: int,
) -> bool:
    """ "the due date, 18 March" after "what would you like to change?": that field change,
    on the record asked about; a free-text value waits for a card that shows it."""
    m = _field_answer(vocab.field_pattern).fullmatch(plan.text, start, end)
    if m is None:
        return False
    name = vocab.field_named(m.group("f"))
    field = vocab.workflow.field(name)
    target: Target = asked.target or targets.find(start, end)
    value = m.group("v").strip()
    act = SetFieldAct(
        target=target,
        field=name,
        value=value,
        evidence=plan.evidence((start, end)),
        confirm=field is not None and field.type is str and bool(value),
    )
    _replace(plan, act, start, end, Note(field=name, span=(start, end)))
    return True


def _named(vocab: Vocabulary, said: str | None) -> str | None:
    """The argument or field the words name ("date", "unit price", "email"), if any."""
    if said is None:
        return None
    key = phrase_key(said)
    for op in vocab.workflow.operations:
        for argument in op.arguments:
            if phrase_key(spoken(argument.name)) == key:
                return argument.name
    return vocab.field_names.get(key)


def _replace(plan: PlanBuilder, act: Act, start: int, end: int, note: Note | None = None) -> None:
    """The turn is this act: chitchat and unread words inside its span are explained by it."""
    kept = [
        (a, n)
        for a, n in zip(plan.acts, plan.notes, strict=True)
        if not all(start <= e.start and e.end <= end for e in a.evidence)
    ]
    plan.acts[:] = [a for a, _ in kept]
    plan.notes[:] = [n for _, n in kept]
    plan.unread[:] = [e for e in plan.unread if not (start <= e.start and e.end <= end)]
    plan.add(act, note)


def read_repeats(plan: PlanBuilder) -> None:
    """ "add a lamp twice", "a chair for me and one for Rui": a second, separate request
    for the same operation (``repeats``), never folded into the first one's free-text value."""
    for index in range(len(plan.acts)):
        act = plan.acts[index]
        if not isinstance(act, OperationAct) or act.repeats is not None:
            continue
        free = [k for k, v in act.args.items() if isinstance(v, str) and _TWICE.search(v)]
        if len(free) == 1:
            name = free[0]
            value = _TWICE.sub("", act.args[name]).strip()
            if value:
                first = attrs.evolve(act, args={**act.args, name: value})
                plan.acts[index] = first
                second = attrs.evolve(first, repeats=index)
                plan.add(second, attrs.evolve(plan.notes[index], args=second.args))
            continue
        _one_for(plan, index, act)


def _one_for(plan: PlanBuilder, index: int, act: OperationAct) -> None:
    """ "… and one for Rui" right after the operation's clause: the same once more, with the
    same arguments (who it is for fills none of them for certain, so none is guessed)."""
    end = max((e.end for e in act.evidence), default=0)
    unread = next(
        (e for e in plan.unread if e.start >= end and not plan.text[end : e.start].strip(" ,")),
        None,
    )
    if unread is None or _ONE_FOR.fullmatch(plan.text, unread.start, unread.end) is None:
        return
    free = [k for k, v in act.args.items() if isinstance(v, str) and _FOR_ME.search(v)]
    first = act
    if len(free) == 1:
        first = attrs.evolve(act, args={**act.args, free[0]: _FOR_ME.sub("", act.args[free[0]])})
    plan.acts[index] = first
    plan.unread.remove(unread)
    evidence = (Evidence(start=unread.start, end=unread.end, text=unread.text),)
    second = attrs.evolve(first, repeats=index, evidence=evidence)
    plan.add(second, attrs.evolve(plan.notes[index], args=second.args))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\r\n,.;!?":
        start += 1
    while end > start and text[end - 1] in " \t\r\n,.;!?":
        end -= 1
    return start, end
