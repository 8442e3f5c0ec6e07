"""Reading an operation's arguments out of the words after its phrase.

Generic shapes carve the words into chunks; the workflow's own parsers decide which argument a
chunk belongs to, so no argument is ever filled by name-guessing:

1. dates, then amounts of money, then numbers: each goes to the first declared, still-empty,
   non-text argument whose parser accepts it (run with the turn's clock);
2. a text argument is filled only after its cue: its own name ("paid by the company", "part
   X-100") or, for an argument called ``reason``, "because …";
3. what is left is the operation's object: the first required text argument ("3 boxes of
   screws" → quantity "3", item "screws box"). Glossary aliases in it become their canonical
   names; after a generic verb ("add a note"), a field's name is never taken as an object.

Words nothing accounts for are returned as unread, for the plan's ``not_understood``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import attrs

from turnframe.providers.rules.filler import object_words
from turnframe.providers.rules.shapes import (
    COUNT,
    DATE,
    DEICTIC,
    DURATION,
    FOR_COUNT,
    FRACTION,
    HEADCOUNT,
    ICASE,
    LEADING_ARTICLE,
    LEADING_PREPOSITION,
    MONEY,
    NUMBER,
    PRICED,
    PRONOUN,
    SHARE,
    SHIFT,
    TIMES,
    TOTAL,
    TRAILING_PREPOSITION,
    TRIM,
    VAGUE_OBJECT,
)
from turnframe.providers.rules.vague import DATE_HEDGE_AFTER, DATE_HEDGE_BEFORE
from turnframe.providers.rules.vocabulary import phrase_key, spoken
from turnframe.reading.numbers import NUMBER_WORDS as COUNT_WORDS
from turnframe.reading.numbers import with_digits
from turnframe.references import AliasMatch
from turnframe.workflow import Argument, Operation, ParseContext

Span = tuple[int, int]
#: Words before an amount that make it an estimate ("at about 40", "for roughly 30 euros").
_HEDGE_BEFORE = re.compile(
    r"(?<!\w)(?:(?:at|for|of|costs?|is)\s+)?(?:about|around|roughly|approx(?:imately|\.)?"
    r"|circa|ca\.|maybe|perhaps|something\s+like|more\s+or\s+less|~"
    r"|(?<!would\s)(?<!['\u2019]d\s)(?<!i\s)(?<!we\s)(?<!you\s)like)\s*[€$£]?\s*$",
    ICASE,
)
#: Words before a number that say it is left out ("minus the minibar (15)", "except the 20").
_EXCEPT = re.compile(
    r"(?<!\w)(?:minus|less|except(?:\s+for)?|apart\s+from|excluding|excluded|other\s+than"
    r"|but\s+not|not\s+counting|deducting|take\s+off|taking\s+off|after\s+deducting)"
    r"\s+(?:(?:the|a|an|my|our|that|this)\s+)?(?:[\w-]+\s+){0,3}?\(?\s*$",
    ICASE,
)
_PRICED = re.compile(r"(?<!\w)(?:at|for)\s+$", ICASE)
_AS_NOUN = re.compile(r"\s+(?:as|for)\s+(?:(?:a|an|the|my|one)\s+)?(?P<noun>[a-z]+)$", ICASE)
_FOR_SOMEONE = re.compile(r"(?:for|by)\s+(?-i:[A-Z])\w*(?:\s+(?-i:[A-Z])\w*)?$", ICASE)
#: "… for her", "… for us": who the object is for, not part of it.
_FOR_PRONOUN = re.compile(
    r"\s+for\s+(?:me|him|her|them|us|you|myself|himself|herself|themselves|ourselves)$", ICASE
)
#: "add for us 2 tickets": who the object is for, before it.
_LEADING_FOR_PRONOUN = re.compile(
    r"^(?:(?:for|to)\s+(?:me|us|him|her|them|you)|(?:me|us|them))\s+(?=\w)", ICASE
)
#: "submit it already", "send it right away", "submit it then": the case called "it", and how
#: soon.
_IT_ALREADY = re.compile(
    r"(?:(?:it|this|that)\s+)?(?:already|immediately|at\s+once|right\s+away|straight\s+away"
    r"|asap|now|right\s+now|for\s+me|then)(?:\s+(?:please|pls|thanks))?[\s.!]*",
    ICASE,
)
#: A unit of time right after a count: " days", " weeks".
_TIME_UNIT = re.compile(r"\s+(?P<u>day|week|hour|month)s?(?!\w)", ICASE)
#: A piece that only says who the object is for: "for us", "for me".
_FOR_WHOM_ONLY = re.compile(r"(?:for|to)\s+(?:me|us|him|her|them|you)[\s,]*", ICASE)
#: After a field's name inside an object: a noun that makes one word of both ("a return
#: transfer" is a transfer, not the return), i.e. no function word or value lead.
_COMPOUND = re.compile(
    r"(?!(?:for|to|on|of|in|at|about|saying|says|that|which|with|from|is|as|and|or|by|it|this"
    r"|please|here|there|now|again|too)\b)[a-z][a-z-]+(?:\s|$)",
    ICASE,
)
#: "15 euros each one": "one" belongs to the price said per unit.
_EACH_ONE = re.compile(r"\s+(?:one|person|piece)(?!\w)", ICASE)
#: The unit a count of a per-day thing was said in, before the thing ("days of …").
_COUNTED_SPAN = re.compile(r"^(?:days?|weeks?)\s+of\s+(?=\w)", ICASE)
_OBJECT_PRONOUN = re.compile(r"(?<!\w)(?:me|us|him|them|it)(?!\w)", ICASE)
_FUNCTION_ONLY = re.compile(
    r"(?:(?:for|of|a|an|the|with|to|at|on|in|and|my|our|your|his|her|their)\b[\s,]*)+", ICASE
)
#: A price said per unit: "each", "apiece", "per person", "a head", "/day".
_PER_UNIT = re.compile(
    r"(?<!\w)(?:each|apiece|a\s+piece|pp|p\.p\.|(?:per|an?)\s+[a-z]+)$|/\s?[a-z]+$", ICASE
)
_SAID_AS_TOTAL = re.compile(rf"(?<!\w){TOTAL}$", ICASE)
_VALUE_END = re.compile(r"[,;]|\s(?:and|but)\s", ICASE)
#: A request's preamble that means nothing for the plan ("I want a", "could I get my").
_FILLER = re.compile(
    r"(?:(?:i|we|you|me|us|my|our|a|an|the|to|please|kindly|want|need|would|like|'d|could|can"
    r"|may|get|have|is|it|be|possible|full|partial|some|just|so|and|also|hi|hello|hey|think"
    r"|deserve|wish|ask|for|request|require|expect|demand|go|ahead|let's|make|do|issue"
    r"|process)[\s,']*)+",
    ICASE,
)


#: A move by a number of days or weeks said with a direction word or "by", not with
#: "later"/"earlier": "back by three days", "forward a day", "by a week", "two days back".
_MOVE_BY = re.compile(
    rf"(?<![\w-])(?<!for\s)(?:(?P<pre>back|forward|ahead|up|out)\s+)?(?P<by>by\s+)?"
    rf"(?P<count>\d+|an?|{COUNT_WORDS.pattern})\s+(?P<unit>days?|weeks?)"
    r"(?:\s+(?P<post>back|forward|ahead|out|further))?(?!\w)",
    ICASE,
)
#: Verbs that say the way a date moves: later ("postpone", "push … back"), earlier
#: ("bring … forward", "advance"); "move" says neither.
_LATER_VERB = re.compile(r"(?<!\w)(?:postpon|delay|defer|push|put\s+off)\w*", ICASE)
_EARLIER_VERB = re.compile(r"(?<!\w)(?:bring|brought|pull|advanc)\w*", ICASE)
_PARTICLE = re.compile(r"(?<!\w)(?P<p>back|forward|ahead|earlier|later|sooner)(?!\w)", ICASE)
_CLAUSE_EDGE = re.compile(r"[.!?;\n]")


def _clause_before(text: str, start: int) -> str:
    """The words of the sentence before ``start``: where a move's verb may stand."""
    edges = [m.end() for m in _CLAUSE_EDGE.finditer(text, 0, start)]
    return text[edges[-1] if edges else 0 : start]


def _move_words(m: re.Match[str], around: str) -> str:
    """ "back by three days" after "push" -> "3 days later"; the words as said when nothing
    tells the way (the workflow cannot read them, so the user is asked)."""
    said = " ".join(m.group(0).split())
    particle = m.group("pre") or m.group("post")
    if particle is None:
        found = [p.group("p").casefold() for p in _PARTICLE.finditer(around)]
        particle = found[-1] if found else None
    if particle is None and m.group("by") is None:
        return said  # "move it 2 days": which way?
    particle = (particle or "").casefold()
    later = _LATER_VERB.search(around) is not None
    earlier = _EARLIER_VERB.search(around) is not None
    if later == earlier:
        return said
    if later and particle not in ("", "back", "out", "further", "later"):
        return said
    if earlier and particle not in ("", "forward", "ahead", "up", "earlier", "sooner"):
        return said
    count = m.group("count").casefold()
    number = "1" if count in ("a", "an") else with_digits(count)
    unit = m.group("unit").casefold().rstrip("s") + ("" if number == "1" else "s")
    return f"{number} {unit} {'later' if later else 'earlier'}"


#: A purpose said after a request, with no value in it: "(now) so we don't lose it", "so that
#: I can pay on time".
_PURPOSE = re.compile(
    r"(?:(?:now|today|asap|please)[\s,]+)*so\s+(?:that\s+)?(?:we|i|you|it|they|he|she)"
    r"(?:['\u2019][a-z]+)?\s(?:[^\d\"'\u201c\u2018\u20ac$\u00a3@]|(?<=\w)'(?=\w))*",
    ICASE,
)
_PRONOUNS = frozenset({"he", "she", "they"})
#: A capitalised word inside a clause: a person's name, unless it opens a sentence.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)(?<=\s)(?-i:[A-Z][a-z]+)(?!\w)")
_NOT_NAMES = frozenset({"i", "i'm", "please", "thanks", "ok", "hi", "hello"})
#: Past participles whose verb is not the participle without "-ed".
_IRREGULAR = {"paid": "pay", "laid": "lay", "said": "say", "made": "make", "done": "do"}


@functools.cache
def _agent_cue(name: str) -> re.Pattern[str] | None:
    """For an argument called ``<done>_by`` ("paid_by"): "<Name> pays (for it)", "<Name> will
    pay it herself", "she'll pay": group ``who``; ``None`` for other names."""
    m = re.fullmatch(r"(?P<done>[a-z]+)_by", name)
    if m is None:
        return None
    done = m.group("done")
    stems = {_IRREGULAR[done]} if done in _IRREGULAR else set()
    if done.endswith("ed"):
        stems |= {done[:-1], done[:-2]}  # "approved" -> approve, "signed" -> sign
    if not stems:
        return None
    verb = "|".join(sorted(map(re.escape, stems), key=len, reverse=True))
    return re.compile(
        r"(?P<who>(?-i:[A-Z][a-z]+)|he|she|they)(?:['\u2019]ll|\s+will|\s+is\s+going\s+to)?"
        rf"\s+(?:{verb})(?:s|es)?(?!\w)(?:\s+for)?(?:\s+(?:it|that|this|them|those))?"
        r"(?:\s+(?:himself|herself|themselves|themself|personally))?",
        ICASE,
    )


@functools.cache
def _cue(name: str) -> re.Pattern[str]:
    """What leads a text argument's value: its own name ("paid by: …"), or "because" for a
    reason; compiled once per argument name."""
    words = [spoken(name)] + (["because"] if name == "reason" else [])
    cue = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
    return re.compile(rf"(?<!\w)(?:{cue})(?:\s*[:=]\s*|\s+(?:is|of)\s+|\s+)", ICASE)


@attrs.frozen(kw_only=True)
class ArgumentReading:
    args: dict[str, str]
    numbers: tuple[str, ...]  # arguments filled from numbers, money or dates, in text order
    unread: tuple[Span, ...]
    names_field: bool = False  # the object named one of the workflow's fields: not an argument
    #: The object's words stand on both sides of a value taken out ("a guide for 2 hours"):
    #: the value may belong to the object, so the reading is unsure.
    split_object: bool = False


def _is_text(argument: Argument) -> bool:
    return argument.type is str


@attrs.define
class _Carver:
    text: str
    op: Operation[Any]
    ctx: ParseContext
    consumed: list[Span]
    args: dict[str, str] = attrs.field(factory=dict)
    numbers: list[tuple[int, str]] = attrs.field(factory=list)
    dates: list[Span] = attrs.field(factory=list)  # dates no argument takes
    totals: list[str] = attrs.field(factory=list)  # arguments given an amount said as a total
    counts: list[str] = attrs.field(factory=list)  # arguments given a count
    headcounts: list[str] = attrs.field(factory=list)  # given a count of people ("2 people")
    prices: dict[str, bool] = attrs.field(factory=dict)  # amounts given: said per unit or not

    def free(self, span: Span) -> bool:
        taken = (*self.consumed, *self.dates)
        return not any(span[0] < e and s < span[1] for s, e in taken)

    def accepting(self, value: str, *, priced: bool = False) -> Argument | None:
        """The first empty argument whose parser takes ``value``; a bare number said as a
        price ("for 15", "at 12") goes first to an argument that takes fractions (an amount,
        not a count)."""
        order = list(self.op.arguments)
        if priced:
            order.sort(key=lambda a: not self._takes("1.50", a))
        for argument in order:
            if argument.name in self.args or _is_text(argument):
                continue
            if self._takes(value, argument):
                return argument
        return None

    def _takes(self, value: str, argument: Argument) -> bool:
        try:
            argument.parse(value, self.ctx)
        except (ValueError, TypeError):
            return False
        return True

    def shapes(self, pattern: re.Pattern[str], group: str, start: int, end: int) -> None:
        at = start
        while at < end:
            m = pattern.search(self.text, at, end)
            if m is None:
                return
            if not self.free(m.span()):
                # "1001 €30": "1001 €" overlaps the case's number; "€30" may still be an
                # amount, so the search goes on from the next character, not past the match.
                at = m.start() + 1
                continue
            at = max(m.end(), m.start() + 1)
            before = max(0, m.start() - 5)
            priced = pattern is PRICED or (
                group == "number" and _PRICED.search(self.text, before, m.start())
            )
            argument = self.accepting(m.group(group), priced=bool(priced))
            if argument is None and group == "money":
                # "20 dollars" to a workflow in euros: the argument a bare number would fill
                # gets the words as said, so its parser refuses them and the user is asked;
                # the number is never read again as a bare amount in the workflow's currency.
                number = NUMBER.search(m.group(group)) or COUNT_WORDS.search(m.group(group))
                # It is a price, so a price's argument gets it before a count's; "a grand"
                # says no number, and goes to the argument that takes an amount.
                said = "1.50" if number is None else number.group(0)
                argument = self.accepting(said, priced=True)
            if argument is None and group == "count" and self._said_again(m.group(group)):
                self.consumed.append(m.span())  # "3 passes for the 3 of us": the same count
                continue
            if argument is not None:
                span, value = m.span(), m.group(group)
                if group == "date":  # "around March 20": an estimate, asked for, never picked
                    span, value = self._hedged(span, value, start, end)
                self.args[argument.name] = value
                self.consumed.append(span)
                self.numbers.append((m.start(), argument.name))
                if group == "money" and _SAID_AS_TOTAL.search(m.group(0)):
                    self.totals.append(argument.name)
                elif group == "count":
                    self.counts.append(argument.name)
                    if pattern is HEADCOUNT and self._several(argument.name):
                        # "2 people x 35 euros": the price is said for each of them
                        times = m.group(0).rstrip()[-1] in "x\u00d7*@"
                        self.headcounts.append("" if times else argument.name)
                if group == "money" or priced:
                    self.prices[argument.name] = bool(_PER_UNIT.search(m.group(0)))
            elif group == "date":
                self.dates.append(m.span())  # a date is never read again as a number

    def total_of_several(self) -> None:
        """ "2 people, 60 euros total": an amount said as the total of a count above one is
        not the price of each; it is made unreadable, so the user is asked, never a value
        worked out for them."""
        if any(self._several(name) for name in self.counts):
            for name in self.totals:
                self.args[name] = f"\u2026 {self.args[name]} in total"

    def excepted(self, start: int) -> None:
        """ "… 1001 minus the minibar (15)", "everything except the 20 tax": a number said
        as what to leave out is not the value asked for; it is made unreadable, so the user is
        asked (or a card shows the rest), never the left-out part taken for the whole."""
        for at, name in self.numbers:
            if _EXCEPT.search(self.text, max(start, at - 40), at) and name in self.args:
                self.args[name] = f"\u2026 {self.args[name]}"

    def hedged_amounts(self, start: int) -> None:
        """ "at about 40 euros", "for roughly 30": an amount said as an estimate is asked
        about (made unreadable), and the words that hedge it are never part of the object."""
        for at, name in self.numbers:
            hedge = _HEDGE_BEFORE.search(self.text, max(start, at - 30), at)
            if hedge is not None and name in self.args and self.free(hedge.span()):
                self.consumed.append(hedge.span())
                self.args[name] = f"\u2026 {self.args[name]}"

    def for_counts(self, start: int, end: int) -> None:
        """ "a dinner for six", "a picnic for two": a number in words after "for" with nothing
        after it says for how many people as much as a price, and one thing for several
        people may be one or several: for an operation that takes a count, the words are left
        unread (a card shows the rest, or the user is asked), never read as a price or a
        count. In digits ("a museum pass for 15") it is a price."""
        counts = [a for a in self.op.arguments if self._takes("2", a) and not self._takes("1.5", a)]
        if not counts:
            return  # nothing to count: "for twenty" is a price
        for m in FOR_COUNT.finditer(self.text, start, end):
            if self.free(m.span()):
                self.dates.append(m.span())  # never read again as a price: unread

    def _said_again(self, count: str) -> bool:
        """Whether ``count`` repeats the count an argument already holds ("3 museum passes
        for the 3 of us"): the same number said twice, not a second count."""
        for name in self.counts:
            argument = next(a for a in self.op.arguments if a.name == name)
            try:
                if argument.parse(count, self.ctx) == argument.parse(self.args[name], self.ctx):
                    return True
            except (ValueError, TypeError):
                continue
        return False

    def _several(self, name: str) -> bool:
        """Whether the count given to argument ``name`` is more than one."""
        argument = next(a for a in self.op.arguments if a.name == name)
        try:
            return bool(argument.parse(self.args[name], self.ctx) != 1)
        except (ValueError, TypeError):
            return False

    def per_person(self) -> bool:
        """ "a dinner for 4 people at 100 euros": a price for a count of people that says
        neither "each" nor "in total" may be for one or for all; it is made unreadable, so the
        user is asked. Whether the reading stands without a price: ``False`` (a card shows
        it first, since one thing for several people may be one, not several)."""
        if not any(self.headcounts):
            return True
        for name, per_unit in self.prices.items():
            if not per_unit and name not in self.totals:
                self.args[name] = f"\u2026 {self.args[name]}"
        return bool(self.prices)

    def _hedged(self, span: Span, value: str, start: int, end: int) -> tuple[Span, str]:
        """The date with the words that make it an estimate ("around March 20", "12 March or
        so"), which the interpreter then asks about; the date as said when there are none."""
        before = DATE_HEDGE_BEFORE.search(self.text, start, span[0])
        after = DATE_HEDGE_AFTER.match(self.text, span[1], end)
        lo = before.start() if before is not None else span[0]
        hi = after.end() if after is not None else span[1]
        if (lo, hi) == span or not self.free((lo, span[0])) or not self.free((span[1], hi)):
            return span, value
        return (lo, hi), " ".join(self.text[lo:hi].split())

    def shifts(self, start: int, end: int) -> None:
        """ "a day later" goes to an argument the workflow counts from a current value; the
        reducer resolves it from the case state. A move said by its verb and a direction word
        ("push … back by two days", "bring … forward a day", "postpone … by a week") is given
        as "N days later/earlier"; one whose direction the words leave open ("move it back two
        days": later or earlier?) is given as said, so the workflow cannot read it and the
        user is asked."""
        for argument in self.op.arguments:
            if argument.current is None or argument.name in self.args:
                continue
            found = SHIFT.finditer(self.text, start, end)
            m = next((m for m in found if self.free(m.span())), None)
            if m is not None:
                self.args[argument.name] = m.group("shift")
                self.consumed.append(m.span())
                self.numbers.append((m.start(), argument.name))
                continue
            moved = self._move_by(start, end)
            if moved is None:
                continue
            around = (
                f"{_clause_before(self.text, start)}{self.text[start : moved.start()]} "
                f"{self.text[moved.end() : end]}"
            )
            self.args[argument.name] = _move_words(moved, around)
            self.consumed.append(moved.span())
            self.numbers.append((moved.start(), argument.name))

    def units_priced(self, start: int, end: int) -> None:
        """ "airport parking, 8 days at 12 euros a day": a count followed by the unit of time
        its price is said per belongs to the count (the object is the parking, not days)."""
        for n, (a, b) in enumerate(list(self.consumed)):
            if not any(a == at for at, name in self.numbers if name in self.counts):
                continue
            unit = _TIME_UNIT.match(self.text, b, end)
            if unit is None:
                continue
            per = re.search(
                rf"(?:\ba|\ban|\bper|\beach|/)\s*{unit.group('u')}s?\b", self.text[start:end], ICASE
            )
            if per is not None and self.free(unit.span()):
                self.consumed[n] = (a, unit.end())

    def _move_by(self, start: int, end: int) -> re.Match[str] | None:
        """The first free move by some days; its direction word may be the operation's own
        ("bring … forward a day": the phrase holds "forward", the move is "a day")."""
        for m in _MOVE_BY.finditer(self.text, start, end):
            if self.free(m.span()):
                return m
            bare = _MOVE_BY.match(self.text, m.start("count"), m.end("unit"))
            if bare is not None and self.free(bare.span()):
                return bare
        return None

    def shares(self, start: int, end: int, pattern: re.Pattern[str]) -> None:
        """ "half", "the whole thing", "some money" go to the argument the workflow proposes a
        value for; the reducer takes that share of the proposal, or asks for a vague one."""
        target = next(
            (
                a
                for a in self.op.arguments
                if a.propose is not None and not _is_text(a) and a.name not in self.args
            ),
            None,
        )
        if target is None:
            return
        for m in pattern.finditer(self.text, start, end):
            if self.free(m.span()):
                self.args[target.name] = m.group("share")
                self.consumed.append(m.span())
                self.numbers.append((m.start(), target.name))
                return

    def cues(self, start: int, end: int, object_name: str | None) -> None:
        for argument in self.op.arguments:
            if not _is_text(argument) or argument.name in (object_name, *self.args):
                continue
            for m in _cue(argument.name).finditer(self.text, start, end):
                value_end = self._value_end(m.end(), end)
                value = self.text[m.end() : value_end].strip(TRIM)
                if value and self.free((m.start(), value_end)) and self._takes(value, argument):
                    self.args[argument.name] = value
                    self.consumed.append((m.start(), value_end))
                    break
            else:
                self._agent(argument, start, end)

    def _agent(self, argument: Argument, start: int, end: int) -> None:
        """ "Pedro pays for it", "Ana will pay it herself": the one who does what an argument
        called ``<done>_by`` names ("paid_by"), said as a name before the verb. A pronoun
        ("she'll pay it herself") stands for the one name said before it in the clause;
        with none or several, nothing is taken."""
        pattern = _agent_cue(argument.name)
        if pattern is None:
            return
        for m in pattern.finditer(self.text, start, end):
            if not self.free(m.span()):
                continue
            who = m.group("who")
            if who.casefold() in _PRONOUNS:
                names = {
                    n.group(0)
                    for n in _NAME.finditer(self.text, start, m.start())
                    if n.group(0).casefold() not in _NOT_NAMES
                }
                if len(names) != 1:
                    return
                who = names.pop()
                # "a boat tour for Ana, she'll pay": "for Ana" says who, not what
                said_for = re.search(
                    rf"[\s,]+for\s+{re.escape(who)}(?!\w)", self.text[start : m.start()]
                )
                if said_for is not None and self.free(
                    (start + said_for.start(), start + said_for.end())
                ):
                    self.consumed.append((start + said_for.start(), start + said_for.end()))
            if self._takes(who, argument):
                self.args[argument.name] = who
                self.consumed.append(m.span())
                return

    def _value_end(self, start: int, end: int) -> int:
        stop = _VALUE_END.search(self.text, start, end)
        limit = stop.start() if stop is not None else end
        later = [s for s, _ in self.consumed if start <= s < limit]
        return min([limit, *later])

    def leftover(self, start: int, end: int) -> list[Span]:
        pieces: list[Span] = []
        at = start
        for s, e in sorted((*self.consumed, *self.dates)):
            if e <= at or s >= end:
                continue
            if s > at:
                pieces.append((at, s))
            at = max(at, e)
        if at < end:
            pieces.append((at, end))
        return [p for p in (_trim(self.text, s, e) for s, e in pieces) if p[0] < p[1]]


def _typed_other(words: str, carver: _Carver) -> bool:
    """Words left beside a choice go to an empty optional argument whose parser reads them
    and refuses ordinary words ("X-100" to a part number); ``False`` if none does."""
    words = _FUNCTION_ONLY.sub(" ", _OBJECT_PRONOUN.sub(" ", f" {words} ")).strip(TRIM)
    for argument in carver.op.arguments:
        if argument.required or argument.name in carver.args or not words:
            continue
        if carver._takes(words, argument) and not carver._takes("some words", argument):
            carver.args[argument.name] = words
            return True
    return False


def _choice_in(value: str, argument: Argument, carver: _Carver) -> tuple[str, str] | None:
    """For an argument with a finite set of values: the words of ``value`` that name exactly
    one of them ("my of return" -> "return"), with the words around them, when the whole does
    not; else ``None`` (no value named, or two: "the outbound or the return" is never
    narrowed to one)."""
    if not argument.choices or carver._takes(value, argument):
        return None
    words = value.split()
    found: dict[Any, tuple[str, str]] = {}
    for size in range(len(words), 0, -1):
        for at in range(len(words) - size + 1):
            window = " ".join(words[at : at + size])
            try:
                parsed = argument.parse(window, carver.ctx)
            except (ValueError, TypeError):
                continue
            rest = " ".join(words[:at] + words[at + size :])
            found.setdefault(parsed, (window, rest))  # the longest words naming each value
    return next(iter(found.values())) if len(found) == 1 else None


def _trim(text: str, start: int, end: int) -> Span:
    while start < end and text[start] in TRIM:
        start += 1
    while end > start and text[end - 1] in TRIM:
        end -= 1
    return start, end


def _with_aliases(text: str, span: Span, aliases: Sequence[AliasMatch]) -> str:
    out, at = [], span[0]
    for alias in aliases:
        if span[0] <= alias.start and alias.end <= span[1] and alias.start >= at:
            out += [text[at : alias.start], alias.canonical]
            at = alias.end
    out.append(text[at : span[1]])
    return "".join(out)


def _object_text(words: str, counted: bool, phrase_words: frozenset[str] = frozenset()) -> str:
    """The object as the user said it, without article, quantity or price: "3 boxes of
    screws" gives "boxes of screws" (never singularised or reordered: the user's words);
    a trailing "as an <operation's noun>" ("… as an item") is the operation's, not the object's."""
    # Pictographs and other symbols decorate a message; they are never part of a name.
    words = "".join(c for c in words if unicodedata.category(c) not in ("So", "Sk", "Cs"))
    words = " ".join(words.split())
    words = TRAILING_PREPOSITION.sub("", LEADING_PREPOSITION.sub("", words)).strip(TRIM)
    words = _LEADING_FOR_PRONOUN.sub("", _FOR_PRONOUN.sub("", words))
    if counted:  # "3 days of surf lessons": the days are the count, the lessons the object
        words = _COUNTED_SPAN.sub("", words, count=1)
    tail = _AS_NOUN.search(words)
    if tail is not None and tail.group("noun").casefold().rstrip("s") in phrase_words:
        words = words[: tail.start()].strip(TRIM)
    words = LEADING_ARTICLE.sub("", words).strip(TRIM)
    if counted:  # "3 days of guided tours": the count says how long, the object is the tours
        words = _DURATION_OF.sub("", words)
    return object_words(words)  # "the insurance already": filler never edges the object


#: A unit of time before "of" after a count: the count is a duration of the object.
_DURATION_OF = re.compile(
    r"^(?:days?|hours?|weeks?|months?|evenings?|mornings?|afternoons?)\s+of\s+(?=\w)",
    re.IGNORECASE,
)


#: "3 days of surf lessons": a count of time units before what is counted.
_TIME_UNITS_OF = re.compile(r"(?P<u>day|hour|week|month)s?\s+of\s+(?P<rest>\S.*)", ICASE)


def _per_unit_object(value: str, said: str) -> str:
    """ "3 days of surf lessons at 40 per day": the count is of days, the price is per day,
    so the object is what is had on each of them ("surf lessons"), never "days of …"."""
    m = _TIME_UNITS_OF.fullmatch(value)
    if m is None:
        return value
    unit = re.escape(m.group("u"))
    if re.search(rf"(?:(?<!\w)(?:per|an?|each)\s+|/\s?){unit}(?!\w)", said, ICASE) is None:
        return value
    return m.group("rest")


def read_arguments(
    op: Operation[Any],
    text: str,
    start: int,
    end: int,
    *,
    ctx: ParseContext,
    aliases: Sequence[AliasMatch] = (),
    field_keys: frozenset[str] = frozenset(),
    skip: Sequence[Span] = (),
    object_start: int | None = None,
) -> ArgumentReading:
    """Arguments from ``text[start:end]``; words before ``object_start`` (a request's
    preamble, "I want a …") are never the operation's object."""
    carver = _Carver(text=text, op=op, ctx=ctx, consumed=list(skip))
    object_arg = next((a for a in op.arguments if a.required and _is_text(a)), None)
    object_name = object_arg.name if object_arg is not None else None
    carver.shares(start, end, FRACTION)  # before dates: "1/2 of what she paid" is no 1 Feb
    carver.shapes(DATE, "date", start, end)
    carver.shifts(start, end)
    carver.shapes(MONEY, "money", start, end)
    carver.shares(start, end, SHARE)
    carver.cues(start, end, object_name)
    carver.for_counts(start, end)  # "a dinner for six": how many people, not a price
    carver.shapes(PRICED, "number", start, end)  # "at 30 each": a price, "each" and all
    counted_before = len(carver.numbers)
    carver.shapes(HEADCOUNT, "count", start, end)  # "for 2 people": the count, unit and all
    for times in TIMES:  # "x2", "2x": a count, never part of the object
        carver.shapes(times, "count", start, end)
    # "for 4 days" is how many of a per-day thing, unless a count is said as well ("2 bikes
    # for 3 days"): then it is left unread, never taken for a price or a second count.
    durations = [m.span() for m in DURATION.finditer(text, start, end) if carver.free(m.span())]
    carver.consumed += durations
    carver.shapes(COUNT, "count", start, end)
    carver.units_priced(start, end)  # "8 days at 12 euros a day": the days are the count's
    for span in durations:
        carver.consumed.remove(span)
    if len(carver.numbers) == counted_before:
        carver.shapes(DURATION, "count", start, end)
    else:
        carver.dates += [d for d in durations if carver.free(d)]
    counted = len(carver.numbers) > counted_before
    carver.shapes(NUMBER, "number", start, end)
    carver.total_of_several()
    carver.excepted(start)
    carver.hedged_amounts(start)
    priced_per_person = carver.per_person()
    for n, (a, b) in enumerate(carver.consumed):  # "15 euro each one": the "one" too
        if carver.text[a:b].rstrip().casefold().endswith("each"):
            one = _EACH_ONE.match(carver.text, b, end)
            if one is not None:
                carver.consumed[n] = (a, one.end())
    pieces = carver.leftover(start, end)
    # "… so we don't lose it": why it is asked, never what (no value in it)
    pieces = [p for p in pieces if _PURPOSE.fullmatch(text, *p) is None]
    unread: list[Span] = list(carver.dates)  # a date no argument takes: not read
    if object_start is not None:
        before = [p for p in pieces if p[1] <= object_start]
        unread += [p for p in before if not _FILLER.fullmatch(text, *p)]
        pieces = [p for p in pieces if p[1] > object_start]
    words = " ".join(_with_aliases(text, p, aliases) for p in pieces)
    names_field = False
    narrowed = False
    said = " ".join(words.split()).strip(TRIM)
    refers = PRONOUN.match(said) if object_name is not None else DEICTIC.match(said)
    if said and not refers:
        own = frozenset(
            w.casefold() for p in (op.name, *op.aliases) for w in re.findall(r"[a-z]+", p)
        )
        value = _object_text(words, counted, own)
        if counted:
            value = _per_unit_object(value, text[start:end])
        key = phrase_key(value)
        names_field = any(
            key == f or (key.startswith(f + " ") and not _COMPOUND.match(key, len(f) + 1))
            for f in field_keys
        )
        beneficiary = _FOR_SOMEONE.match(words.strip(TRIM)) is not None
        if beneficiary:  # "one for Pedro": who it is for, not what it is
            unread += pieces
        elif object_name is not None and (
            _FUNCTION_ONLY.fullmatch(value) or VAGUE_OBJECT.match(words.strip(TRIM))
        ):
            # "move it to …" with nothing named, "add some stuff": no object said, so the
            # reducer asks for it rather than running on words that name nothing.
            unread += [] if _FUNCTION_ONLY.fullmatch(value) else pieces
        elif object_name is not None and value and not names_field and ":" not in value:
            assert object_arg is not None
            choice = _choice_in(value, object_arg, carver)
            carver.args[object_name] = value if choice is None else choice[0]
            if choice is not None and choice[1] and not _typed_other(choice[1], carver):
                narrowed = True  # words beside the choice that no argument takes: unsure
        elif value:  # "a payment of half": a lone "of" left beside a value says nothing
            unread += [
                p
                for p in pieces
                if not _FUNCTION_ONLY.fullmatch(text, *p) and not _IT_ALREADY.fullmatch(text, *p)
            ]
    numbers = tuple(name for _, name in sorted(carver.numbers))
    # "add for us 2 tickets", "a kayak … for me": who it is for does not split the object
    words_pieces = [
        p
        for p in pieces
        if not _FUNCTION_ONLY.fullmatch(text, *p) and not _FOR_WHOM_ONLY.fullmatch(text, *p)
    ]
    split = narrowed or (object_name in carver.args and len(words_pieces) > 1)
    split = split or not priced_per_person
    return ArgumentReading(
        args=carver.args,
        numbers=numbers,
        unread=tuple(unread),
        names_field=names_field,
        split_object=split,
    )
