"""Requests that refer back to a story or to an amount: "… was charged 15 twice. Please undo
it.", "your colleague agreed to 40 euros. Please make that payment."

This is the one reader of a value a request refers to instead of saying it.

A message that explains first and asks last often leaves out of the request what the story
already said: "… I paid 40 too much. Can you pay it back?", "The second part is on the 3rd? I said
the 5th! Move it to the 5th." When the request's operation always waits for a confirmation card
(the card shows the exact arguments before anything runs), an argument the request left out is
taken from the story before it:

- the story names exactly one value the argument's own parser reads: that value fills it;
- it names several different ones: the argument is made unreadable, so the reducer asks for it
  (never a guess);
- it names none: nothing changes (the reducer does what it does for a missing argument).

Only required arguments are filled. Dates never are: a story's date says when something
happened or where it stands now, rarely the new value the request wants.

An operation that commits at once is filled only when its request points back at the value
("that payment", "the same amount"): then from a story's one typed value, and the act waits for
a card. Free text (a reason, a note) is never filled: only typed values and values of a finite
set (those only for a carded operation).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import attrs

from turnframe.plan import CorrectAct, OperationAct, SetFieldAct
from turnframe.policy import needs_confirmation
from turnframe.providers.rules.args import read_arguments
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.shapes import DATE, ICASE, MONEY
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.references import AliasMatch
from turnframe.workflow import Argument, Operation, ParseContext

Span = tuple[int, int]

#: How many values of one sentence are looked for (enough to know there are several).
_MAX_VALUES = 4
#: A value said as digits alone: in a story it may be a record, a count or a time.
_BARE_NUMBER = re.compile(
    r"(?:[\d.,#]+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|\w+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|and|a"
    r"|half|dozen|couple|few|several)(?:[\s-]+(?:[\d.,#]+|zero|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|\w+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundred|thousand|and|a|half|dozen))*",
    re.IGNORECASE,
)
#: A request that points back at a value said elsewhere: "make that payment", "the same".
POINTS_BACK = re.compile(r"(?<!\w)(?:that|this|the\s+same)(?!\w)", ICASE)
#: Where one sentence of the story ends.
_SENTENCE_END = re.compile(r"[.!?;\n]+")


def fill_from_story(
    plan: PlanBuilder,
    text: str,
    vocab: Vocabulary,
    ctx: ParseContext,
    aliases: Sequence[AliasMatch] = (),
) -> None:
    """Fill, in place, what a carded request at the end of a story left out (see the module)."""
    gone = plan.cancelled()
    for index, act in enumerate(plan.acts):
        if not isinstance(act, OperationAct) or not act.evidence or plan.root(index) in gone:
            continue
        op = vocab.workflow.operation(act.operation)
        if op is None:
            continue  # an operation no workflow declares (a reversed request): rejected anyway
        carded = needs_confirmation(op.policy, is_destructive=op.is_destructive)
        if not carded and not any(POINTS_BACK.search(ev.text) for ev in act.evidence):
            continue
        missing = [
            a
            for a in op.arguments
            if a.name not in act.args
            and a.required
            and (_typed(a) or (carded and _dated(a)))
            and (carded or not a.choices)
        ]
        if not missing:
            continue
        begin = min(ev.start for ev in act.evidence)
        if len(missing) == 1 and _stated_before(plan, index, missing[0], text, begin):
            continue
        found = _story_values(plan, index, op, text, begin, ctx, aliases)
        if carded:
            found |= _wanted_dates(plan, index, op, text, begin, ctx, act.args)
        filled: dict[str, str] = {}
        for argument in missing:
            values = found.get(argument.name, {})
            if len(values) == 1:
                filled[argument.name] = next(iter(values.values()))
            elif len(values) > 1:
                filled[argument.name] = "\u2026 " + " / ".join(values.values())
        if filled:  # a request that commits at once, filled so, waits for a card
            confirm = act.confirm or not carded
            plan.acts[index] = attrs.evolve(act, args={**act.args, **filled}, confirm=confirm)


#: "My card number is XY1351", "our booking ref: AB12": a name of something stated in a
#: clause of its own, which a request after it calls "it".
_STATED = re.compile(
    r"(?:my|our|the)\s+(?:[\w-]+\s+){0,3}?(?:is|=|:)\s*(?P<v>(?=[\w-]*\d)[A-Za-z0-9][\w-]*)"
    r"[\s,.;:!]*",
    re.IGNORECASE,
)
#: What may stand between the statement and the request: "…, so please", "… and I want to".
_BETWEEN = re.compile(
    r"[\s,.;:!]*(?:(?:and|so|then|please|pls|kindly|(?:can|could|would)\s+you"
    r"|(?:i|we)\s+(?:want|need|would\s+like|'d\s+like)\s+(?:you\s+)?to)[\s,]*)*",
    re.IGNORECASE,
)
#: The request calls it back: "move it", "change that one".
_CALLED_IT = re.compile(r"(?<!\w)(?:it|that(?:\s+one)?|this(?:\s+one)?)(?!\w)", re.IGNORECASE)


def _stated_before(
    plan: PlanBuilder, index: int, argument: Argument, text: str, begin: int
) -> bool:
    """ "My ticket number is XY1351, please move it to the 15th": a clause nothing read that
    only states a name with digits, right before a carded request that calls it "it" and
    lacks one argument, gives that argument the name (the reducer's parser decides, against
    the case, what it names; the card shows it). ``True`` when filled."""
    act = plan.acts[index]
    assert isinstance(act, OperationAct)
    said = " ".join(ev.text for ev in act.evidence)
    if _CALLED_IT.search(said) is None:
        return False
    for unread in plan.unread:
        m = _STATED.fullmatch(text, unread.start, unread.end)
        if m is None or _BETWEEN.fullmatch(text, unread.end, begin) is None:
            continue
        plan.acts[index] = attrs.evolve(act, args={**act.args, argument.name: m.group("v")})
        plan.unread.remove(unread)
        return True
    return False


def amount_pointed_at(text: str, start: int, end: int) -> re.Match[str] | None:
    """ "… he mentioned 30 euros. can we do that": when ``text[start:end]`` points back
    ("that", "the same") and the rest of the message says exactly one amount, that amount
    (a ``MONEY`` match); ``None`` otherwise."""
    if not POINTS_BACK.search(text, start, end):
        return None
    said = [m for m in MONEY.finditer(text) if not start <= m.start() < end]
    if len({m.group("money").casefold() for m in said}) != 1:
        return None
    return said[0]


#: A story saying what a date must become: "his return needs to be on Thursday 19 March",
#: "we have to fly back on the 15th": the date right after is the one wanted.
_WANTED = re.compile(
    r"(?<!\w)(?:needs?\s+to|has\s+to|have\s+to|must|should|ought\s+to|(?:would|'d)\s+like\s+to"
    r"|want(?:s)?\s+to)\s+(?:be|fly(?:\s+back|\s+out|\s+home)?|leave|return|come\s+back"
    r"|go(?:\s+back|\s+home)?)\s+",
    ICASE,
)


def _dated(argument: Argument) -> bool:
    return argument.type in (date, datetime)


def _wanted_dates(
    plan: PlanBuilder,
    index: int,
    op: Operation[Any],
    text: str,
    end: int,
    ctx: ParseContext,
    said: dict[str, str],
) -> dict[str, dict[Any, str]]:
    """The dates a story before ``end`` says something must become ("… needs to be on 19
    March"), for the date arguments of ``op`` not said, as :func:`_story_values` gives them;
    a date said only as when something happens is never one."""
    dated = [a for a in op.arguments if _dated(a) and a.name not in said]
    taken = [
        (ev.start, ev.end)
        for i, act in enumerate(plan.acts)
        if i != index and isinstance(act, SetFieldAct | CorrectAct | OperationAct)
        for ev in act.evidence
    ]
    found: dict[str, dict[Any, str]] = {}
    for m in _WANTED.finditer(text, 0, end):
        when = DATE.match(text, m.end(), end)
        if when is None or any(s < when.end() and m.start() < e for s, e in taken):
            continue
        for argument in dated:
            try:
                value = argument.parse(when.group("date"), ctx)
            except ValueError:
                continue
            found.setdefault(argument.name, {}).setdefault(_key(value), when.group("date"))
    return found


def _typed(argument: Argument) -> bool:
    if argument.type in (date, datetime):
        return False  # a story's date says when things happened or stand, not the new one
    return argument.type is not str or bool(argument.choices)


def _story_values(
    plan: PlanBuilder,
    index: int,
    op: Operation[Any],
    text: str,
    end: int,
    ctx: ParseContext,
    aliases: Sequence[AliasMatch],
) -> dict[str, dict[Any, str]]:
    """Every argument value the sentences before ``end`` name that no other act took, by
    argument: parsed value -> the words said."""
    taken = [
        (ev.start, ev.end)
        for i, act in enumerate(plan.acts)
        if i != index and isinstance(act, SetFieldAct | CorrectAct | OperationAct)
        for ev in act.evidence
    ]
    found: dict[str, dict[Any, str]] = {}
    start = 0
    for stop in [m.end() for m in _SENTENCE_END.finditer(text, 0, end)] + [end]:
        s, e = start, stop
        start = stop
        if s >= e or not text[s:e].strip():
            continue
        if any(ts < e and s < te for ts, te in taken):
            continue  # a sentence another change read is that change's, not the story's
        said_here = text
        for _ in range(_MAX_VALUES):  # each value read is masked, so the next one shows
            reading = read_arguments(op, said_here, s, e, ctx=ctx, aliases=aliases)
            masked = said_here
            for name, said in reading.args.items():
                argument = next((a for a in op.arguments if a.name == name), None)
                if argument is None or not _typed(argument):
                    continue
                try:
                    value = argument.parse(said, ctx)
                except ValueError:
                    continue
                if not _BARE_NUMBER.fullmatch(said):  # a bare number may be a record's
                    found.setdefault(name, {}).setdefault(_key(value), said)
                at = masked.casefold().find(said.casefold(), s, e)
                if at >= 0:
                    masked = masked[:at] + " " * len(said) + masked[at + len(said) :]
            if masked == said_here:
                break
            said_here = masked
    return found


def _key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


__all__ = ["POINTS_BACK", "amount_pointed_at", "fill_from_story"]
